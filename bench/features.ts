import { writeFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from 'pg';
import autocannon from 'autocannon';
import { startPostgres, startRedis } from '../lib/testing';
import { EXPORT_COLUMNS } from './baseline-export';
import { addProducts } from './export-rows';
import { startChild, type Child } from './child';
import { BENCH_TOKENS, SQL_DATASET } from './dataset';
import { load, type LoadFigures } from './measure';
import { seedSql } from './seed-sql';
import type { ServeReady } from './serve';

/**
 * `npm run bench:features`: the read cache and the exports, each against a hand-written baseline
 * in the same run, on PostgreSQL (embedded). Writes the "Read cache" and "Exports" sections of
 * bench/RESULTS.md. BENCH_SECONDS (default 8), BENCH_EXPORT_ROWS (default 100000,1000000);
 * BENCH_ONLY=exports|auth|relations|trees runs only that part and writes nothing; BENCH_AUTH_ROUNDS (default 3); BENCH_HEAP_MB caps the server's heap.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const LOAD = { connections: 10, seconds: SECONDS, warmupSeconds: 2 };
const AUTH_ROUNDS = Number(process.env.BENCH_AUTH_ROUNDS ?? 3);
const EXPORT_SIZES = (process.env.BENCH_EXPORT_ROWS ?? '100000,1000000').split(',').map(Number);

const listQuery = new URLSearchParams({
  oper: JSON.stringify({ and: ['price|>=|10'], category: { and: ['name|like|Gadgets%'] } }),
  relations: 'category.parent,reviews',
  pagination: JSON.stringify({ page: 3, pageSize: 25 }),
}).toString();

async function serve(uri: string, env: Record<string, string>): Promise<Child<ServeReady>> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    // BENCH_HEAP_MB caps the server's V8 heap: an export that still completes streams in bounded memory
    const heap = process.env.BENCH_HEAP_MB ? [`--max-old-space-size=${process.env.BENCH_HEAP_MB}`] : [];
    return await startChild<ServeReady>('serve.ts', ['sql', uri], heap);
  } finally {
    process.env = saved;
  }
}

const row = (name: string, f: LoadFigures, base: LoadFigures) =>
  `| ${name} | ${f.requestsPerSecond.toFixed(0)} | ${(f.requestsPerSecond / base.requestsPerSecond).toFixed(2)}x | ${f.p50} | ${f.p99} | ${f.failures} |`;

async function cacheSection(uri: string, redisUrl: string | null): Promise<string> {
  const lines = ['## Read cache', '', `The list request of the main benchmark (filter, relation filter, two eager relations, page 3 of 25) on ${SQL_DATASET.products.toLocaleString('en')} products; ${LOAD.connections} connections, ${SECONDS} s each, one run.`, '', '| server | req/s | vs hand-written pg | p50 ms | p99 ms | failures |', '| --- | --- | --- | --- | --- | --- |'];
  const stores: Array<['memory' | 'redis', Record<string, string>]> = [['memory', { REST_CACHE_ENABLED: 'true', REST_CACHE_STORE: 'memory' }]];
  if (redisUrl) stores.push(['redis', { REST_CACHE_ENABLED: 'true', REST_CACHE_STORE: 'redis', REDIS_URL: redisUrl }]);
  let baseline: LoadFigures | null = null;
  for (const [store, env] of stores) {
    const child = await serve(uri, env);
    try {
      const lib = `${child.ready.library}/api/v1/products?${listQuery}`;
      baseline ??= await load(`${child.ready.baseline}/products?min_price=10&category_like=Gadgets%25&page=3&page_size=25`, LOAD, child.idle);
      if (store === 'memory') {
        const uncached = await load(`${lib}&cache=false`, LOAD, child.idle);
        lines.push(row('hand-written pg handler', baseline, baseline), row('library, uncached (cache=false)', uncached, baseline));
      }
      const hit = await load(lib, LOAD, child.idle);
      lines.push(row(`library, cache hit (${store} store)`, hit, baseline));
      const etag = (await fetch(lib)).headers.get('etag') ?? '';
      const revalidated = await autocannon({ url: lib, connections: LOAD.connections, duration: SECONDS, headers: { 'if-none-match': etag } });
      lines.push(row(`library, 304 revalidation (${store} store)`, { requestsPerSecond: revalidated.requests.average, p50: revalidated.latency.p50, p99: revalidated.latency.p99, requests: revalidated.requests.total, failures: revalidated.errors + revalidated.timeouts }, baseline));
    } finally {
      await child.stop();
    }
  }
  if (!redisUrl) lines.push('', 'Redis store not measured: no REDIS_URL and no redis-server on PATH.');
  return lines.join('\n');
}

/** Downloads a URL to the end, counting bytes; the server's peak RSS comes from its probe. */
async function exportOnce(url: string, probe: string): Promise<{ ms: number; bytes: number; peak: number }> {
  await fetch(`${probe}?reset=1`);
  const started = performance.now();
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`${url} -> ${res.status}: ${await res.text()}`);
  let bytes = 0;
  for await (const chunk of res.body) bytes += (chunk as Uint8Array).byteLength;
  const ms = performance.now() - started;
  const { peak_mb } = (await (await fetch(probe)).json()) as { peak_mb: number };
  return { ms, bytes, peak: peak_mb };
}

/** Authorization's cost: the same list with authentication off, as a superuser and as a restricted role (viewer). */
async function authSection(uri: string): Promise<string> {
  const lines = ['## Authorization', '', `The list request above; authentication and permission checks on (bearer token looked up, grants in memory) against off, ${LOAD.connections} connections, ${SECONDS} s each, median of ${AUTH_ROUNDS} alternating rounds.`, '', '| server | req/s | vs auth off | p50 ms | p99 ms | failures |', '| --- | --- | --- | --- | --- | --- |'];
  const samples: Record<'off' | 'superuser' | 'viewer', LoadFigures[]> = { off: [], superuser: [], viewer: [] };
  for (let round = 0; round < AUTH_ROUNDS; round += 1) {
    const off = await serve(uri, {});
    try {
      samples.off.push(await load(`${off.ready.library}/api/v1/products?${listQuery}&cache=false`, LOAD, off.idle));
    } finally {
      await off.stop();
    }
    const on = await serve(uri, { BENCH_AUTH: '1' });
    try {
      for (const who of ['superuser', 'viewer'] as const) {
        samples[who].push(await load(`${on.ready.library}/api/v1/products?${listQuery}&cache=false`, { ...LOAD, headers: { Authorization: `Bearer ${BENCH_TOKENS[who]}` } }, on.idle));
      }
    } finally {
      await on.stop();
    }
  }
  const median = (list: LoadFigures[]) => [...list].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(list.length / 2)];
  const base = median(samples.off);
  lines.push(row('library, authentication off', base, base), row('library, superuser', median(samples.superuser), base), row('library, viewer (read policy hides cost)', median(samples.viewer), base));
  return lines.join('\n');
}

const RELATION_REPETITIONS = Number(process.env.BENCH_RELATION_REPS ?? 7);

/**
 * Relation routes on PostgreSQL: sync of 1,000 tag ids onto a product linked to 750 (500 kept,
 * 500 new, 250 removed) and bulk attach of 1,000 ids, against the hand-written pg twins, each
 * repetition on a fresh product (set up untimed), alternating library and baseline.
 */
async function relationSection(uri: string): Promise<string> {
  const client = new Client({ connectionString: uri });
  await client.connect();
  const child = await serve(uri, {});
  try {
    const tagIds = (await client.query<{ id: number }>(`INSERT INTO tags (name, created_at, updated_at) SELECT 'rel-bench-' || i || '-' || $1, now(), now() FROM generate_series(1, 1250) i RETURNING id`, [Date.now()])).rows.map((r) => r.id);
    let serial = 0;
    const freshProduct = async (linked: number[]): Promise<number> => {
      serial += 1;
      const { rows } = await client.query<{ id: number }>(`INSERT INTO products (name, sku, price, stock, status, featured, created_at, updated_at) VALUES ('Rel', $1, 1, 0, 'active', false, now(), now()) RETURNING id`, [`REL-${Date.now()}-${serial}`]);
      if (linked.length) await client.query('INSERT INTO product_tag (product_id, tag_id, position) SELECT $1, unnest($2::int[]), 1', [rows[0].id, linked]);
      return rows[0].id;
    };
    const post = async (url: string, body: unknown, check: (answer: Record<string, unknown[]>) => boolean): Promise<number> => {
      const started = performance.now();
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answer = (await res.json()) as Record<string, unknown[]>;
      const ms = performance.now() - started;
      if (!res.ok || !check(answer)) throw new Error(`POST ${url} -> ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
      return ms;
    };
    const scenarios = {
      'sync 1,000 ids (500 kept, 500 new, 250 removed)': {
        linked: tagIds.slice(0, 750),
        library: (p: number) => [`${child.ready.library}/api/v1/products/${p}/tags/attach?_scenario=sync`, { tags: tagIds.slice(250).map((tag_id) => ({ tag_id, position: 1 })) }] as const,
        baseline: (p: number) => [`${child.ready.baseline}/products/${p}/tags/sync`, { tags: tagIds.slice(250).map((tag_id) => ({ tag_id, position: 1 })) }] as const,
        check: (a: Record<string, unknown[]>) => a.attached.length === 500 && a.detached.length === 250,
      },
      'bulk attach of 1,000 ids': {
        linked: [] as number[],
        library: (p: number) => [`${child.ready.library}/api/v1/products/${p}/tags/attach?_scenario=bulk_attach`, { tags: tagIds.slice(0, 1000) }] as const,
        baseline: (p: number) => [`${child.ready.baseline}/products/${p}/tags/attach`, { tags: tagIds.slice(0, 1000) }] as const,
        check: (a: Record<string, unknown[]>) => a.attached.length === 1000,
      },
    };
    const lines = ['## Relation routes', '', `PostgreSQL, each repetition on a fresh product (set up untimed); median of ${RELATION_REPETITIONS} alternating repetitions after one warm-up; wall time of the HTTP request.`, '', '| operation | library ms | hand-written pg ms | speed vs baseline |', '| --- | --- | --- | --- |'];
    for (const [name, scenario] of Object.entries(scenarios)) {
      const lib: number[] = [];
      const base: number[] = [];
      for (let rep = -1; rep < RELATION_REPETITIONS; rep += 1) {
        const [lu, lb] = scenario.library(await freshProduct(scenario.linked));
        const l = await post(lu, lb, scenario.check);
        const [bu, bb] = scenario.baseline(await freshProduct(scenario.linked));
        const b = await post(bu, bb, scenario.check);
        if (rep >= 0) {
          lib.push(l);
          base.push(b);
        }
      }
      const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
      lines.push(`| ${name} | ${median(lib).toFixed(1)} | ${median(base).toFixed(1)} | ${(median(base) / median(lib)).toFixed(2)}x |`);
    }
    return lines.join('\n');
  } finally {
    await child.stop();
    await client.end();
  }
}

const TREE_NODES = 100_000;
const TREE_BASE = 1_000_000;

/**
 * Hierarchy on PostgreSQL: a tree of 100,000 categories under 8 roots (about 3.2 children per
 * node, depth 8-9), the subtree of one root (about 12,500 nodes) and the ancestors of a leaf,
 * through the library (show with hierarchy, select=name) and the hand-written WITH RECURSIVE
 * handler; answers checked equal before loading; the server's peak RSS from its probe.
 */
/**
 * A closed loop of `connections` clients, each sending its next request when the previous answer
 * is read to the end, for SECONDS after a 2 s warm-up: no request is left behind at the end, so
 * large answers (megabytes of tree) are measured whole.
 */
async function closedLoop(url: string, connections = 4): Promise<{ requestsPerSecond: number; p50: number }> {
  const run = async (seconds: number): Promise<number[]> => {
    const until = performance.now() + seconds * 1000;
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < until) {
          const started = performance.now();
          const res = await fetch(url);
          await res.arrayBuffer();
          if (!res.ok) throw new Error(`GET ${url} -> ${res.status}`);
          times.push(performance.now() - started);
        }
      }),
    );
    return times;
  };
  await run(2);
  const started = performance.now();
  const times = await run(SECONDS);
  const elapsed = (performance.now() - started) / 1000;
  const sorted = [...times].sort((a, b) => a - b);
  return { requestsPerSecond: times.length / elapsed, p50: Math.round(sorted[Math.floor(sorted.length / 2)]) };
}

async function treeSection(uri: string): Promise<string> {
  const client = new Client({ connectionString: uri });
  await client.connect();
  await client.query(
    `INSERT INTO categories (id, name, parent_id, created_at, updated_at)
       SELECT ${TREE_BASE} + i, 'Node ' || i, CASE WHEN i < 8 THEN NULL ELSE ${TREE_BASE} + floor((i - 8) / 3.2)::int END, now(), now()
       FROM generate_series(0, ${TREE_NODES - 1}) i ON CONFLICT (id) DO NOTHING`,
  );
  await client.query('ANALYZE categories');
  console.error('trees: 100,000 categories inserted');
  const child = await serve(uri, {});
  try {
    const root = TREE_BASE;
    const leaf = TREE_BASE + TREE_NODES - 1;
    const cases = [
      { name: 'subtree of one root', library: `${child.ready.library}/api/v1/categories/${root}?select=name&hierarchy=${encodeURIComponent('{"mode":"with_descendants"}')}`, baseline: `${child.ready.baseline}/categories/${root}/tree/down` },
      { name: 'ancestors of a leaf', library: `${child.ready.library}/api/v1/categories/${leaf}?select=name&hierarchy=${encodeURIComponent('{"mode":"with_ancestors"}')}`, baseline: `${child.ready.baseline}/categories/${leaf}/tree/up` },
    ];
    const count = (node: { children?: unknown[] }): number => 1 + (node.children ?? []).reduce<number>((n, c) => n + count(c as { children?: unknown[] }), 0);
    const lines = ['## Hierarchy', '', `PostgreSQL, ${TREE_NODES.toLocaleString('en')} categories under 8 roots (about 3.2 children per node); show with \`hierarchy\` and \`select=name\` against a hand-written \`WITH RECURSIVE\` handler with \`pg\` (answers checked equal first); 4 clients in a closed loop, ${SECONDS} s each after a 2 s warm-up.`, '', '| request | nodes | library req/s | baseline req/s | library vs baseline | library p50 ms | baseline p50 ms | server peak RSS MB |', '| --- | --- | --- | --- | --- | --- | --- | --- |'];
    for (const c of cases) {
      console.error(`trees: ${c.name}: checking the answers`);
      const lib = (await (await fetch(c.library)).json()) as { children?: unknown[] };
      const base = (await (await fetch(c.baseline)).json()) as { children?: unknown[] };
      if (JSON.stringify(lib) !== JSON.stringify(base)) throw new Error(`${c.name}: the library and the baseline answer differently`);
      await fetch(`${child.ready.baseline}/__memory?reset=1`);
      console.error(`trees: ${c.name}: loading`);
      const l = await closedLoop(c.library);
      const b = await closedLoop(c.baseline);
      const { peak_mb } = (await (await fetch(`${child.ready.baseline}/__memory`)).json()) as { peak_mb: number };
      lines.push(`| ${c.name} | ${count(lib).toLocaleString('en')} | ${l.requestsPerSecond.toFixed(1)} | ${b.requestsPerSecond.toFixed(1)} | ${(l.requestsPerSecond / b.requestsPerSecond).toFixed(2)}x | ${l.p50} | ${b.p50} | ${peak_mb} |`);
    }
    return lines.join('\n');
  } finally {
    await child.stop();
    await client.query(`DELETE FROM categories WHERE id >= ${TREE_BASE}`).catch(() => undefined);
    await client.end();
  }
}

async function exportSection(uri: string): Promise<string> {
  const lines = ['## Exports', '', `Every product as .xlsx (columns ${EXPORT_COLUMNS.join(', ')}) through the library and through a hand-written \`pg-cursor\` -> exceljs streaming handler, same server process, alternating; the peak RSS is the server process's, sampled every 50 ms.`, '', '| export | rows | library s | baseline s | library rows/s vs baseline | library peak RSS MB | baseline peak RSS MB |', '| --- | --- | --- | --- | --- | --- | --- |'];
  for (const size of EXPORT_SIZES) {
    await addProducts(uri, size);
    const child = await serve(uri, {});
    try {
      const probe = `${child.ready.baseline}/__memory`;
      const lib = await exportOnce(`${child.ready.library}/api/v1/products/export/excel?columns=${EXPORT_COLUMNS.join(',')}`, probe);
      const base = await exportOnce(`${child.ready.baseline}/products/export/excel`, probe);
      lines.push(`| xlsx | ${size.toLocaleString('en')} | ${(lib.ms / 1000).toFixed(1)} | ${(base.ms / 1000).toFixed(1)} | ${(base.ms / lib.ms).toFixed(2)}x | ${lib.peak} | ${base.peak} |`);
      if (size === EXPORT_SIZES[0]) {
        const pdf = await exportOnce(`${child.ready.library}/api/v1/products/export/pdf?columns=id,name,sku,price`, probe);
        lines.push(`| pdf (library only) | ${size.toLocaleString('en')} | ${(pdf.ms / 1000).toFixed(1)} | | ${Math.round(size / (pdf.ms / 1000)).toLocaleString('en')} rows/s | ${pdf.peak} | |`);
      }
    } finally {
      await child.stop();
    }
  }
  lines.push('', 'On MongoDB the export reads one aggregation cursor; offline that cursor is the in-process emulator, whose figures say nothing about a real mongod, so they are not reported here.');
  return lines.join('\n');
}

async function main(): Promise<void> {
  const pg = await startPostgres();
  let redis: Awaited<ReturnType<typeof startRedis>> | null = null;
  try {
    redis = await startRedis();
  } catch (error) {
    console.log(`redis: ${(error as Error).message}`);
  }
  try {
    // the example app creates the tables; then the generated shop goes in
    const creator = await serve(pg.uri, {});
    await creator.stop();
    await seedSql(pg.uri, SQL_DATASET);
    const cache = process.env.BENCH_ONLY ? '' : await cacheSection(pg.uri, redis?.url ?? null);
    console.log(cache);
    const auth = process.env.BENCH_ONLY && process.env.BENCH_ONLY !== 'auth' ? '' : await authSection(pg.uri);
    console.log(auth);
    const relations = process.env.BENCH_ONLY && process.env.BENCH_ONLY !== 'relations' ? '' : await relationSection(pg.uri);
    console.log(relations);
    const trees = process.env.BENCH_ONLY && process.env.BENCH_ONLY !== 'trees' ? '' : await treeSection(pg.uri);
    console.log(trees);
    if (['auth', 'relations', 'trees'].includes(process.env.BENCH_ONLY ?? '')) return;
    const exports = await exportSection(pg.uri);
    console.log(exports);
    if (process.env.BENCH_ONLY) return;
    const file = join(__dirname, 'RESULTS.md');
    const previous = await readFile(file, 'utf8').catch(() => '');
    const kept = previous.split('\n## Read cache')[0].trimEnd();
    await writeFile(file, `${kept}\n\n${cache}\n\n${auth}\n\n${relations}\n\n${trees}\n\n${exports}\n`);
  } finally {
    await redis?.stop();
    await pg.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
