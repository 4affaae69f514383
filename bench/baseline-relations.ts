import express from 'express';
import type { Pool } from 'pg';

interface Link {
  tag_id: number;
  position?: number | null;
}

/**
 * The hand-written twins of the library's sync and bulk attach of product tags, with `pg` only:
 * one diff query, then one DELETE and one INSERT, in one transaction. No parent or tag checks
 * (the library does both): the floor a generic layer is compared with.
 */
export function addRelationBaseline(app: express.Express, pool: Pool): void {
  const withTransaction = async <T>(work: (query: Pool['query']) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client.query.bind(client) as Pool['query']);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };
  const insert = (query: Pool['query'], productId: number, links: Link[]) =>
    links.length === 0
      ? Promise.resolve()
      : query('INSERT INTO product_tag (product_id, tag_id, position) SELECT $1, t, p FROM unnest($2::int[], $3::int[]) AS u(t, p) ON CONFLICT DO NOTHING', [
          productId,
          links.map((l) => l.tag_id),
          links.map((l) => l.position ?? null),
        ]);

  app.post('/products/:id/tags/sync', express.json({ limit: '1mb' }), async (req, res, next) => {
    try {
      const productId = Number(req.params.id);
      const wanted = (req.body as { tags: Link[] }).tags;
      const answer = await withTransaction(async (query) => {
        const current = new Set((await query<{ tag_id: number }>('SELECT tag_id FROM product_tag WHERE product_id = $1', [productId])).rows.map((r) => r.tag_id));
        const keep = new Set(wanted.map((l) => l.tag_id));
        const detached = [...current].filter((id) => !keep.has(id));
        const attached = wanted.filter((l) => !current.has(l.tag_id));
        if (detached.length) await query('DELETE FROM product_tag WHERE product_id = $1 AND tag_id = ANY($2)', [productId, detached]);
        await insert(query, productId, attached);
        return { attached: attached.map((l) => l.tag_id), detached, updated: [] };
      });
      res.json(answer);
    } catch (err) {
      next(err);
    }
  });

  app.post('/products/:id/tags/attach', express.json({ limit: '1mb' }), async (req, res, next) => {
    try {
      const productId = Number(req.params.id);
      const wanted = (req.body as { tags: number[] }).tags;
      const attached = await withTransaction(async (query) => {
        const present = new Set((await query<{ tag_id: number }>('SELECT tag_id FROM product_tag WHERE product_id = $1 AND tag_id = ANY($2)', [productId, wanted])).rows.map((r) => r.tag_id));
        const fresh = wanted.filter((id) => !present.has(id)).map((tag_id) => ({ tag_id }));
        await insert(query, productId, fresh);
        return fresh.map((l) => l.tag_id);
      });
      res.json({ attached });
    } catch (err) {
      next(err);
    }
  });
}
