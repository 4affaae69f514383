import { Client } from 'pg';
import { CHILDREN_PER_ROOT, SEED_TIME, type DatasetSize } from './dataset';

/**
 * Fills the example app's (empty, already created) tables with set-based INSERT ... SELECT
 * generate_series statements: 20k products take well under a second. Formulas mirror dataset.ts.
 */
export async function seedSql(uri: string, size: DatasetSize): Promise<void> {
  const client = new Client({ connectionString: uri });
  await client.connect();
  try {
    const roots = size.roots;
    const children = roots * CHILDREN_PER_ROOT;
    const t = `'${SEED_TIME}'::timestamptz`;
    const statements = [
      // the example app made its superuser at start; the generated users take ids from 1 (it is re-made at the next start)
      'DELETE FROM users',
      `INSERT INTO categories (id, name, parent_id, created_at, updated_at)
         SELECT i, 'Department ' || i, NULL, ${t}, ${t} FROM generate_series(1, ${roots}) i`,
      // children: ids roots+1 .. roots+children; name by childCategoryName(i)
      `INSERT INTO categories (id, name, parent_id, created_at, updated_at)
         SELECT i, CASE WHEN i % 2 = 0 THEN 'Gadgets ' ELSE 'Tools ' END || i, 1 + (i - ${roots + 1}) % ${roots}, ${t}, ${t}
         FROM generate_series(${roots + 1}, ${roots + children}) i`,
      `INSERT INTO users (id, name, email, roles, is_superuser, api_token, created_at, updated_at)
         SELECT i, 'User ' || i, 'user' || i || '@example.com', ARRAY['customer'], false, NULL, ${t}, ${t}
         FROM generate_series(1, ${size.users}) i`,
      `INSERT INTO tags (id, name, created_at, updated_at)
         SELECT i, 'tag-' || i, ${t}, ${t} FROM generate_series(1, ${size.tags}) i`,
      `INSERT INTO products (id, name, sku, price, stock, status, description, featured, category_id, created_at, updated_at)
         SELECT i, 'Product ' || i, 'SKU-' || lpad(i::text, 6, '0'), ((i * 37) % 10000) / 100.0, i % 50,
                (ARRAY['active', 'inactive', 'draft'])[1 + i % 3],
                CASE WHEN i % 4 = 0 THEN NULL ELSE 'Description of product ' || i END,
                i % 10 = 0, ${roots + 1} + (i * 7) % ${children}, ${t}, ${t}
         FROM generate_series(1, ${size.products}) i`,
      `INSERT INTO reviews (id, product_id, user_id, rating, comment, created_at, updated_at)
         SELECT r, 1 + (r - 1) / ${size.reviewsPerProduct}, 1 + r % ${size.users}, 1 + r % 5,
                CASE WHEN r % 3 = 0 THEN NULL ELSE 'Review ' || r END, ${t}, ${t}
         FROM generate_series(1, ${size.products * size.reviewsPerProduct}) r`,
      `INSERT INTO product_tag (product_id, tag_id, position, note)
         SELECT p, 1 + (p + (k - 1) * 3) % ${size.tags}, k, NULL
         FROM generate_series(1, ${size.products}) p, generate_series(1, ${size.tagsPerProduct}) k`,
      ...['categories', 'users', 'tags', 'products', 'reviews', 'product_tag'].map(
        (table) => `SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT max(id) FROM ${table}))`,
      ),
      'ANALYZE',
    ];
    for (const sql of statements) await client.query(sql);
  } finally {
    await client.end();
  }
}
