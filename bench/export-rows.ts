import { Client } from 'pg';
import { SEED_TIME } from './dataset';

/**
 * Tops the products table up to `total` rows with generated export rows (one INSERT ... SELECT
 * over generate_series, so a million rows take seconds), then ANALYZE.
 */
export async function addProducts(uri: string, total: number): Promise<void> {
  const client = new Client({ connectionString: uri });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string; top: string | null }>('SELECT count(*) AS n, max(id) AS top FROM products');
    const have = Number(rows[0].n);
    if (have >= total) return;
    const from = Number(rows[0].top ?? 0) + 1;
    const t = `'${SEED_TIME}'::timestamptz`;
    await client.query(`INSERT INTO products (id, name, sku, price, stock, status, description, featured, category_id, created_at, updated_at)
      SELECT i, 'Export product ' || i, 'EXP-' || lpad(i::text, 8, '0'), ((i * 37) % 10000) / 100.0, i % 50, (ARRAY['active','inactive','draft'])[1 + i % 3],
             'Description of product ' || i, i % 5 = 0, NULL, ${t}, ${t}
      FROM generate_series(${from}, ${from + total - have - 1}) i`);
    await client.query("SELECT setval(pg_get_serial_sequence('products', 'id'), (SELECT max(id) FROM products))");
    await client.query('ANALYZE products');
  } finally {
    await client.end();
  }
}
