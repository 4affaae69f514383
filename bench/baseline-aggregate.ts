import type express from 'express';
import type { Pool } from 'pg';

/**
 * The hand-written handler the aggregate benchmark compares with: products with price >= min_price
 * grouped by category name and status, count, sum and average of the price, ordered by the sum
 * descending (group fields ascending after it), one page of groups with their number
 * (`count(*) OVER ()`), answered in the library's envelope. What a developer would write with `pg`.
 */
export function addAggregateBaseline(app: express.Express, pool: Pool): void {
  app.get('/aggregates/products', async (req, res, next) => {
    try {
      const minPrice = Number(req.query.min_price ?? 0);
      const page = Math.max(1, Number(req.query.page ?? 1));
      const size = Math.max(1, Number(req.query.page_size ?? 20));
      const { rows } = await pool.query<Record<string, unknown>>(
        `SELECT c.name AS category, p.status, count(*) AS count, sum(p.price) AS sum, avg(p.price) AS avg, count(*) OVER () AS total
           FROM products p LEFT JOIN categories c ON c.id = p.category_id
          WHERE p.price >= $1
          GROUP BY c.name, p.status
          ORDER BY sum(p.price) DESC NULLS LAST, c.name COLLATE "C" ASC NULLS FIRST, p.status COLLATE "C" ASC NULLS FIRST
          LIMIT $2 OFFSET $3`,
        [minPrice, size, (page - 1) * size],
      );
      const total = rows.length ? Number(rows[0].total) : 0;
      const data = rows.map((r) => ({ group: { 'category.name': r.category, status: r.status }, count: Number(r.count), sum: { price: Number(r.sum) }, avg: { price: Number(r.avg) } }));
      const from = data.length ? (page - 1) * size + 1 : null;
      res.json({ current_page: page, data, per_page: size, total, last_page: Math.max(1, Math.ceil(total / size)), from, to: from === null ? null : from + data.length - 1 });
    } catch (error) {
      next(error);
    }
  });
}
