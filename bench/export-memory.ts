import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { MongoClient, ObjectId } from 'mongodb';
import { startPostgres } from '../lib/testing';
import { EXPORT_COLUMNS } from './baseline-export';
import { startChild, type Child } from './child';
import { SEED_TIME, priceOf } from './dataset';
import { addProducts } from './export-rows';
import type { ServeReady } from './serve';

/**
 * `npx tsx bench/export-memory.ts`: the big xlsx export's time and server RSS over time, the
 * library against the hand-written `pg-cursor` -> exceljs handler, each export in a fresh server
 * child (bench/export-serve.ts), alternating, on embedded PostgreSQL; then the PDF export and the MongoDB export (library only).
 * The client discards the bytes as fast as it reads them. Writes bench/results-export.md.
 * BENCH_EXPORT_ROWS (default 1000000), BENCH_EXPORT_ROUNDS (2), BENCH_PDF_ROWS (100000),
 * BENCH_MONGO_EXPORT_ROWS (200000; 0 skips MongoDB), BENCH_EXPORT_OUT (another output file),
 * BENCH_HEAP_MB (caps the server's V8 old space: what the export really needs, not what V8 lets grow).
 */
const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_EXPORT_ROUNDS ?? 2);
const PDF_ROWS = Number(process.env.BENCH_PDF_ROWS ?? 100_000);
const MONGO_ROWS = Number(process.env.BENCH_MONGO_EXPORT_ROWS ?? 200_000);
const OUT = process.env.BENCH_EXPORT_OUT ?? join(__dirname, 'results-export.md');

interface Run {
  ms: number;
  bytes: number;
  /** RSS MB just before the request: what the export added is peak - idle. */
  idle: number;
  peak: number;
  /** [seconds since the start, RSS MB], one a second. */
  timeline: Array<[number, number]>;
}

/** Downloads `url` to the end, discarding the bytes, while sampling the server's RSS from its probe. */
async function exportOnce(url: string, probe: string): Promise<Run> {
  const { rss_mb: idle } = (await (await fetch(`${probe}?reset=1`)).json()) as { rss_mb: number };
  const started = performance.now();
  const timeline: Array<[number, number]> = [];
  const sampler = setInterval(() => {
    void fetch(probe)
      .then((r) => r.json() as Promise<{ rss_mb: number }>)
      .then(({ rss_mb }) => timeline.push([Math.round((performance.now() - started) / 1000), rss_mb]))
      .catch(() => undefined);
  }, 1000);
  try {
    const res = await fetch(url);
    if (!res.ok || !res.body) throw new Error(`${url} -> ${res.status}: ${await res.text()}`);
    let bytes = 0;
    for await (const chunk of res.body) bytes += (chunk as Uint8Array).byteLength;
    const ms = performance.now() - started;
    const { peak_mb } = (await (await fetch(probe)).json()) as { peak_mb: number };
    return { ms, bytes, idle, peak: peak_mb, timeline };
  } finally {
    clearInterval(sampler);
  }
}

/** RSS at a tenth, a quarter, half, three quarters and the end of the run. */
function shape(run: Run): string {
  const at = (f: number): string => {
    const t = (run.ms / 1000) * f;
    const sample = run.timeline.reduce<[number, number] | null>((best, s) => (!best || Math.abs(s[0] - t) < Math.abs(best[0] - t) ? s : best), null);
    return sample ? String(sample[1]) : '-';
  };
  return [0.1, 0.25, 0.5, 0.75, 1].map(at).join(' / ');
}

const line = (what: string, rows: number, run: Run, base?: Run): string =>
  `| ${what} | ${rows.toLocaleString('en')} | ${(run.ms / 1000).toFixed(1)} | ${base ? (base.ms / run.ms).toFixed(2) + 'x' : ''} | ${(run.bytes / 1048576).toFixed(1)} | ${run.idle} | ${run.peak} | ${shape(run)} |`;

/**
 * One export from a server child of its own: RSS that an export leaves behind (V8 and malloc keep
 * what they grew) would otherwise count against the next one.
 */
async function fresh(driver: 'sql' | 'mongo', uri: string, url: (ready: ServeReady) => string): Promise<Run> {
  const child = await serve(driver, uri);
  try {
    return await exportOnce(url(child.ready), `${child.ready.baseline}/__memory`);
  } finally {
    await child.stop();
  }
}

function serve(driver: 'sql' | 'mongo', uri: string): Promise<Child<ServeReady>> {
  return startChild<ServeReady>('export-serve.ts', [driver, uri], process.env.BENCH_HEAP_MB ? [`--max-old-space-size=${process.env.BENCH_HEAP_MB}`] : []);
}

async function sqlPart(lines: string[]): Promise<void> {
  const pg = await startPostgres();
  try {
    const creator = await serve('sql', pg.uri);
    await creator.stop();
    const t = Date.now();
    await addProducts(pg.uri, ROWS);
    console.log(`seeded ${ROWS} products in ${Date.now() - t} ms`);
    const columns = EXPORT_COLUMNS.join(',');
    const lib = () => fresh('sql', pg.uri, (ready) => `${ready.library}/api/v1/products/export/excel?columns=${columns}`);
    const base = () => fresh('sql', pg.uri, (ready) => `${ready.baseline}/products/export/excel`);
    for (let round = 1; round <= ROUNDS; round += 1) {
      // alternate which side goes first, so drift hits both alike
      const [l, b] = round % 2 === 1 ? [await lib(), await base()] : (([x, y]) => [y, x])([await base(), await lib()]);
      console.log(`round ${round}: library ${l.ms.toFixed(0)} ms peak ${l.peak} MB, baseline ${b.ms.toFixed(0)} ms peak ${b.peak} MB`);
      lines.push(line(`xlsx, library (round ${round})`, ROWS, l, b), line(`xlsx, hand-written (round ${round})`, ROWS, b));
    }
    if (PDF_ROWS > 0) {
      const oper = encodeURIComponent(JSON.stringify({ and: [`id|<=|${PDF_ROWS}`] }));
      const pdf = await fresh('sql', pg.uri, (ready) => `${ready.library}/api/v1/products/export/pdf?columns=id,name,sku,price&oper=${oper}`);
      console.log(`pdf ${pdf.ms.toFixed(0)} ms peak ${pdf.peak} MB`);
      lines.push(line('pdf, library', PDF_ROWS, pdf));
    }
  } finally {
    await pg.stop();
  }
}

/** MongoDB (startMongo(): mongod, or offline the emulator, in its own child): the library's export only. */
async function mongoPart(lines: string[]): Promise<string> {
  const mongo = await startChild<{ uri: string; kind: string }>('mongo-server.ts', []);
  try {
    const creator = await serve('mongo', mongo.ready.uri);
    const database = creator.ready.database;
    await creator.stop();
    const client = await MongoClient.connect(mongo.ready.uri);
    try {
      const products = client.db(database).collection('products');
      const time = new Date(SEED_TIME);
      const statuses = ['active', 'inactive', 'draft'];
      for (let from = 1; from <= MONGO_ROWS; from += 10_000) {
        const docs = Array.from({ length: Math.min(10_000, MONGO_ROWS - from + 1) }, (_, k) => {
          const i = from + k;
          return { _id: new ObjectId(), name: `Export product ${i}`, sku: `EXP-${String(i).padStart(8, '0')}`, price: priceOf(i), stock: i % 50, status: statuses[i % 3], description: `Description of product ${i}`, featured: i % 5 === 0, category_id: null, created_at: time, updated_at: time };
        });
        await products.insertMany(docs, { ordered: false });
      }
    } finally {
      await client.close();
    }
    const run = await fresh('mongo', mongo.ready.uri, (ready) => `${ready.library}/api/v1/products/export/excel?columns=name,sku,price,stock,status,created_at`);
    lines.push(line(`xlsx, library, MongoDB (${mongo.ready.kind})`, MONGO_ROWS, run));
    return mongo.ready.kind;
  } finally {
    await mongo.stop();
  }
}

async function main(): Promise<void> {
  const load = loadavg().map((l) => l.toFixed(2)).join(', ');
  const lines = [
    '# Export memory',
    '',
    `\`npx tsx bench/export-memory.ts\`, ${new Date().toISOString().slice(0, 16)} UTC, 2 cores shared with other work (load average at the start ${load}). Every product as .xlsx (columns ${EXPORT_COLUMNS.join(', ')}), the library against a hand-written \`pg-cursor\` -> exceljs streaming handler, each export in a fresh server child, alternating${process.env.BENCH_HEAP_MB ? `, server old space capped at ${process.env.BENCH_HEAP_MB} MB` : ''}; the client discards the bytes as they come. RSS is the server process's: peak sampled every 50 ms, and the value at 10 % / 25 % / 50 % / 75 % / 100 % of the run.`,
    '',
    '| export | rows | s | vs hand-written | MB sent | RSS MB before | peak RSS MB | RSS MB over the run |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  await sqlPart(lines);
  if (MONGO_ROWS > 0) {
    const kind = await mongoPart(lines);
    lines.push('', `MongoDB: ${kind === 'emulator' ? 'the in-process JS emulator (no mongod offline), in its own child process, so the server figures are the library\'s but the time says nothing about a real mongod' : kind}; no hand-written MongoDB export to compare with.`);
  }
  const text = `${lines.join('\n')}\n`;
  console.log(text);
  await writeFile(OUT, text);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
