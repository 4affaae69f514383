import type express from 'express';
import type { Pool } from 'pg';

/**
 * The hand-written handler bench:buckets compares with: products with price >= min_price counted
 * and their prices summed per month of `created_at` in a zone (`date_trunc('month', ts, zone)`,
 * PostgreSQL 12), months ascending, one page with the number of months (`count(*) OVER ()`),
 * answered in the library's envelope with the month's start rendered as the library renders
 * dates. What a developer would write with `pg`.
 */
export function addBucketsBaseline(app: express.Express, pool: Pool): void {
  app.get('/aggregates/products-by-month', async (req, res, next) => {
    try {
      const minPrice = Number(req.query.min_price ?? 0);
      const zone = String(req.query.tz ?? 'UTC');
      const page = Math.max(1, Number(req.query.page ?? 1));
      const size = Math.max(1, Number(req.query.page_size ?? 100));
      const { rows } = await pool.query<Record<string, unknown>>(
        `SELECT to_char(date_trunc('month', p.created_at, $2) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS month,
                count(*) AS count, sum(p.price) AS sum, count(*) OVER () AS total
           FROM products p
          WHERE p.price >= $1
          GROUP BY date_trunc('month', p.created_at, $2)
          ORDER BY date_trunc('month', p.created_at, $2) ASC NULLS FIRST
          LIMIT $3 OFFSET $4`,
        [minPrice, zone, size, (page - 1) * size],
      );
      const total = rows.length ? Number(rows[0].total) : 0;
      const data = rows.map((r) => ({ group: { created_at: r.month }, count: Number(r.count), sum: { price: Number(r.sum) } }));
      const from = data.length ? (page - 1) * size + 1 : null;
      res.json({ current_page: page, data, per_page: size, total, last_page: Math.max(1, Math.ceil(total / size)), from, to: from === null ? null : from + data.length - 1 });
    } catch (error) {
      next(error);
    }
  });
}
