import express from 'express';
import type { Pool } from 'pg';
import { productSchemas } from '../example-app/validation';
import { isoMicro } from './format';

type Row = Record<string, unknown>;

/** Dates become the API's timestamp strings; everything else pg returns already fits JSON. */
function out(row: Row): Row {
  for (const key of Object.keys(row)) {
    const value = row[key];
    if (value instanceof Date) row[key] = isoMicro(value);
  }
  return row;
}

function byId(rows: Row[]): Map<unknown, Row> {
  return new Map(rows.map((r) => [r.id, r]));
}

/** category (with its parent) and reviews of each product: batched `= ANY($1)`, siblings in parallel. */
async function withRelations(pool: Pool, products: Row[]): Promise<Row[]> {
  const categoryIds = [...new Set(products.map((p) => p.category_id).filter((id) => id !== null))];
  const productIds = products.map((p) => p.id);
  const [categories, reviews] = await Promise.all([
    pool.query<Row>('SELECT * FROM categories WHERE id = ANY($1)', [categoryIds]),
    pool.query<Row>('SELECT * FROM reviews WHERE product_id = ANY($1) ORDER BY id', [productIds]),
  ]);
  const parentIds = [...new Set(categories.rows.map((c) => c.parent_id).filter((id) => id !== null))];
  const parents = byId((await pool.query<Row>('SELECT * FROM categories WHERE id = ANY($1)', [parentIds])).rows.map(out));
  const categoryById = byId(
    categories.rows.map((c) => {
      out(c);
      c.parent = c.parent_id === null ? null : (parents.get(c.parent_id) ?? null);
      return c;
    }),
  );
  const reviewsByProduct = new Map<unknown, Row[]>(productIds.map((id) => [id, []]));
  for (const review of reviews.rows) reviewsByProduct.get(review.product_id)?.push(out(review));
  for (const p of products) {
    p.category = p.category_id === null ? null : (categoryById.get(p.category_id) ?? null);
    p.reviews = reviewsByProduct.get(p.id) ?? [];
  }
  return products;
}

/**
 * The hand-written twin of
 * GET /api/v1/products?oper={"and":["price|>=|10"],"category":{"and":["name|like|<pattern>"]}}
 *   &relations=category.parent,reviews&pagination={"page":3,"pageSize":25}
 * with `pg` only: count and page in parallel, then categories/reviews batched with `= ANY($1)`.
 * Fixed to that one query on purpose: it is the floor a generic layer is compared with.
 */
export function sqlBaselineApp(pool: Pool): express.Express {
  const app = express();
  app.disable('x-powered-by');

  app.get('/products', async (req, res, next) => {
    try {
      const minPrice = Number(req.query.min_price ?? 10);
      const pattern = String(req.query.category_like ?? '%');
      const page = Number(req.query.page ?? 1);
      const pageSize = Number(req.query.page_size ?? 25);
      // a restricted caller's hand-written twin: the columns its role may not read are dropped
      const hidden = req.query.hide ? String(req.query.hide).split(',') : [];
      const where = `p.price >= $1 AND EXISTS (SELECT 1 FROM categories c WHERE c.id = p.category_id AND c.name LIKE $2)`;
      const [countResult, pageResult] = await Promise.all([
        pool.query<{ n: string }>(`SELECT count(*) AS n FROM products p WHERE ${where}`, [minPrice, pattern]),
        pool.query<Row>(`SELECT p.* FROM products p WHERE ${where} ORDER BY p.id LIMIT $3 OFFSET $4`, [minPrice, pattern, pageSize, (page - 1) * pageSize]),
      ]);
      const products = await withRelations(pool, pageResult.rows.map(out));
      for (const column of hidden) for (const p of products) delete p[column];
      const total = Number(countResult.rows[0].n);
      res.json({
        current_page: page,
        data: products,
        total,
        per_page: pageSize,
        last_page: Math.max(1, Math.ceil(total / pageSize)),
        from: products.length ? (page - 1) * pageSize + 1 : null,
        to: products.length ? (page - 1) * pageSize + products.length : null,
      });
    } catch (err) {
      next(err);
    }
  });

  /** Show with the same two relations: the product, then its relations as above. */
  app.get('/products/:id', async (req, res, next) => {
    try {
      const { rows } = await pool.query<Row>('SELECT * FROM products WHERE id = $1', [Number(req.params.id)]);
      if (rows.length === 0) {
        res.status(404).json({ message: 'Not found' });
        return;
      }
      res.json((await withRelations(pool, [out(rows[0])]))[0]);
    } catch (err) {
      next(err);
    }
  });

  /** Batch update of price and stock: one UPDATE ... FROM unnest(...) RETURNING * (autocommit). */
  app.patch('/products/batch', express.json({ limit: '1mb' }), async (req, res, next) => {
    try {
      const items = (req.body as { product: { id: number; price: number; stock: number }[] }).product;
      const result = await pool.query<Row>(
        `UPDATE products p SET price = u.price, stock = u.stock, updated_at = now()
           FROM unnest($1::int[], $2::numeric[], $3::int[]) AS u(id, price, stock) WHERE p.id = u.id RETURNING p.*`,
        [items.map((i) => i.id), items.map((i) => i.price), items.map((i) => i.stock)],
      );
      res.json({ success: true, models: result.rows.map((row) => ({ success: true, model: out(row) })) });
    } catch (err) {
      next(err);
    }
  });

  /** Bulk create: one multi-row INSERT ... RETURNING * (no validation beyond the database's). */
  const columns = ['name', 'sku', 'price', 'stock', 'status', 'description', 'featured', 'category_id'] as const;
  // ?validate=1: each item first through the example app's yup schema (the library proves plain
  // records valid with its quick check instead: lib/service/writes/yup-quick-check.ts)
  const schema = productSchemas('sql').create;
  app.post('/products', express.json({ limit: '1mb' }), async (req, res, next) => {
    try {
      const items = (req.body as { product: Row[] }).product;
      if (req.query.validate === '1') for (const item of items) await schema.validate(item, { abortEarly: false });
      const values: unknown[] = [];
      const tuples = items.map((item) => {
        const start = values.length;
        for (const column of columns) values.push(item[column] ?? null);
        return `(${columns.map((_, i) => `$${start + i + 1}`).join(', ')}, now(), now())`;
      });
      const result = await pool.query<Row>(
        `INSERT INTO products (${columns.join(', ')}, created_at, updated_at) VALUES ${tuples.join(', ')} RETURNING *`,
        values,
      );
      res.json({ success: true, models: result.rows.map((row) => ({ success: true, model: out(row) })) });
    } catch (err) {
      next(err);
    }
  });
  return app;
}
