import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { startPostgres } from '../lib/testing';
import { startChild, type Child } from './child';
import { SQL_DATASET } from './dataset';
import { Client } from 'pg';
import { load, timePair, type LoadFigures } from './measure';
import { seedSql } from './seed-sql';
import type { ServeReady } from './serve';

/**
 * `npm run bench:aggregate`: GET /products/aggregate on the benchmark's 20,000 products
 * (PostgreSQL, embedded) against a hand-written GROUP BY handler with `pg` in the same run and the
 * same server process (bench/baseline-aggregate.ts); both answer the same page of groups, checked
 * before measuring. Prints the figures and the ratio and writes the "Aggregates" section of
 * bench/RESULTS.md. BENCH_SECONDS (default 8). Then its cost as the table grows: the products doubled
 * three times (to 160,000), one request at a time, library and baseline alternated.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const LOAD = { connections: 10, seconds: SECONDS, warmupSeconds: 2 };

const libraryQuery = new URLSearchParams({
  oper: JSON.stringify({ and: ['price|>=|10'] }),
  group_by: JSON.stringify(['category.name', 'status']),
  aggregate: JSON.stringify({ count: '*', sum: ['price'], avg: ['price'] }),
  orderby: JSON.stringify({ 'sum.price': 'desc' }),
  pagination: JSON.stringify({ page: 1, pageSize: 20 }),
}).toString();
const baselineQuery = 'min_price=10&page=1&page_size=20';

const row = (name: string, f: LoadFigures, base: LoadFigures) =>
  `| ${name} | ${f.requestsPerSecond.toFixed(0)} | ${(f.requestsPerSecond / base.requestsPerSecond).toFixed(2)}x | ${f.p50} | ${f.p99} | ${f.failures} |`;

/** Two runs as one: request rates and latencies averaged, requests and failures added. */
function mean(a: LoadFigures, b: LoadFigures): LoadFigures {
  return { requestsPerSecond: (a.requestsPerSecond + b.requestsPerSecond) / 2, p50: (a.p50 + b.p50) / 2, p99: (a.p99 + b.p99) / 2, requests: a.requests + b.requests, failures: a.failures + b.failures };
}

/** Sums and averages of doubles may differ in the last digits between two summation orders. */
function rounded(body: { data: Array<Record<string, unknown>> }): unknown {
  return JSON.parse(JSON.stringify(body), (_key, value: unknown) => (typeof value === 'number' ? Math.round(value * 1e6) / 1e6 : value));
}

/** One request at a time at 1x, 2x, 4x and 8x the products (each step copies every product once). */
async function costAsTableGrows(uri: string, library: string, baseline: string): Promise<Array<{ products: number; library: number; baseline: number }>> {
  const get = async (url: string): Promise<void> => {
    const res = await fetch(url);
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    await res.arrayBuffer();
  };
  const client = new Client({ connectionString: uri });
  await client.connect();
  const out: Array<{ products: number; library: number; baseline: number }> = [];
  try {
    for (let step = 0; step < 4; step++) {
      if (step > 0) {
        await client.query(
          `INSERT INTO products (name, sku, price, stock, status, description, featured, category_id, created_at, updated_at)
             SELECT name, sku || '-${step}-' || id, price, stock, status, description, featured, category_id, created_at, updated_at FROM products`,
        );
        await client.query('ANALYZE products');
      }
      const products = Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM products')).rows[0].n);
      const timed = await timePair(() => get(library), () => get(baseline), 15, 3);
      out.push({ products, library: timed.a.median, baseline: timed.b.median });
    }
  } finally {
    await client.end();
  }
  return out;
}

async function main(): Promise<void> {
  const pg = await startPostgres();
  let child: Child<ServeReady> | null = null;
  try {
    // the example app creates the tables; then the generated shop goes in
    const creator = await startChild<ServeReady>('serve.ts', ['sql', pg.uri]);
    await creator.stop();
    await seedSql(pg.uri, SQL_DATASET);
    child = await startChild<ServeReady>('serve.ts', ['sql', pg.uri]);
    const library = `${child.ready.library}/api/v1/products/aggregate?${libraryQuery}`;
    const baseline = `${child.ready.baseline}/aggregates/products?${baselineQuery}`;
    const [mine, theirs] = await Promise.all([fetch(library).then((r) => r.json()), fetch(baseline).then((r) => r.json())]);
    expect(rounded(mine as never)).to.deep.equal(rounded(theirs as never));
    const groups = (mine as { total: number }).total;
    // alternated (baseline, library, library, baseline) so drift on a shared machine hits both alike
    const first = { base: await load(baseline, LOAD, child.idle), lib: await load(library, LOAD, child.idle) };
    const second = { lib: await load(library, LOAD, child.idle), base: await load(baseline, LOAD, child.idle) };
    const base = mean(first.base, second.base);
    const lib = mean(first.lib, second.lib);
    const growth = await costAsTableGrows(pg.uri, library, baseline);
    const section = [
      '## Aggregates',
      '',
      `\`npm run bench:aggregate\`: GET /products/aggregate on ${SQL_DATASET.products.toLocaleString('en')} products (PostgreSQL, embedded), price >= 10, grouped by \`category.name\` and \`status\` (${groups} groups), count, sum and average of the price, ordered by the sum descending, page 1 of 20 groups; against a hand-written \`pg\` handler running the GROUP BY with \`count(*) OVER ()\` (bench/baseline-aggregate.ts) in the same server process and run, both answers checked equal first. ${LOAD.connections} connections, two runs of ${SECONDS} s each in the order baseline, library, library, baseline (figures averaged), read cache off.`,
      '',
      '| server | req/s | vs hand-written pg | p50 ms | p99 ms | failures |',
      '| --- | --- | --- | --- | --- | --- |',
      row('hand-written pg handler', base, base),
      row('library (one statement: grouped CTE, page and group count)', lib, base),
      '',
      'Cost as the table grows (the products doubled, one request at a time, median of 15 alternated after 3 unmeasured):',
      '',
      '| products | library ms | hand-written pg ms | library time vs pg |',
      '| ---: | ---: | ---: | ---: |',
      ...growth.map((g) => `| ${g.products.toLocaleString('en')} | ${g.library.toFixed(1)} | ${g.baseline.toFixed(1)} | ${(g.library / g.baseline).toFixed(2)}x |`),
    ].join('\n');
    console.log(section);
    const file = join(__dirname, 'RESULTS.md');
    const previous = await readFile(file, 'utf8');
    // kept before "## Read cache", the part bench:features leaves as it is
    const without = previous.replace(/\n## Aggregates\n[\s\S]*?(?=\n## )/, '');
    const at = without.indexOf('\n## Read cache');
    await writeFile(file, at < 0 ? `${without.trimEnd()}\n\n${section}\n` : `${without.slice(0, at)}\n${section}\n${without.slice(at)}`);
  } finally {
    await child?.stop();
    await pg.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
