import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { once } from 'node:events';
import { execSync } from 'node:child_process';
import { Client } from 'pg';
import { startPostgres } from '../lib/testing';
import { startChild } from './child';

/**
 * `npm run bench:import` (issue 51): a CSV of BENCH_IMPORT_ROWS (default 1,000,000) products
 * imported with `on_error=skip` into the example app on embedded PostgreSQL, the server in a
 * process of its own (a fresh one for each import and each bulk store, warmed by one small request)
 * whose RSS is sampled every 100 ms; in the same run, the library's JSON bulk
 * store of the same rows (POST /products, 1,000 a request, one after another) and PostgreSQL's own
 * `COPY ... FROM` of the same file, each into emptied products. Prints the machine's load and a
 * markdown table: figure, ratio, aim, met/missed. BENCH_ROUNDS (default 3) rounds whose order
 * rotates; medians of the rates, the highest RSS peak. Writes no file.
 */
const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000);
/** Rounds of the three sides, their order rotating each round (as bench:peers); medians of the rates, the highest peak. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CHUNK = 1000;
const COLUMNS = ['name', 'sku', 'price', 'stock', 'status', 'description', 'featured'];
const log = (message: string): void => console.error(`[import] ${message}`);

const row = (i: number): string[] => [`Imported product ${i}`, `IMP-${i}`, String((i % 997) + 0.5), String(i % 100), i % 3 ? 'active' : 'draft', i % 2 ? '' : `Description of product ${i}, with a comma`, i % 5 ? 'false' : 'true'];
const quote = (cell: string) => (/[",\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell);

async function writeCsv(path: string): Promise<void> {
  const out = createWriteStream(path);
  out.write(`${COLUMNS.join(',')}\n`);
  for (let i = 0; i < ROWS; i += 1) {
    if (!out.write(`${row(i).map(quote).join(',')}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

function rssOf(pid: number): number {
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0;
  }
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'grr-bench-import-'));
  const file = join(dir, 'products.csv');
  await writeCsv(file);
  // the PostgreSQL server process reads the file for COPY (it may run as another user)
  await chmod(dir, 0o755);
  await chmod(file, 0o644);
  log(`${ROWS} rows, ${(statSync(file).size / 1048576).toFixed(1)} MB of CSV`);
  const db = await startPostgres();
  // BENCH_SERVER_FLAGS: node flags of the server process (e.g. --max-old-space-size=128 to see what of its RSS is heap slack)
  const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
  const pg = new Client({ connectionString: db.uri });
  await pg.connect();
  const empty = () => pg.query('TRUNCATE products RESTART IDENTITY CASCADE');
  const loads: number[] = [loadavg()[0]];
  const figures: Record<string, Array<{ seconds: number; peak: number }>> = { import: [], bulk: [], copy: [] };
  interface Served {
    base: string;
    auth: Record<string, string>;
  }
  /**
   * One side of a round. The import and the bulk store each get a server process of their own,
   * started for the side and warmed by one small request of its kind: its peak RSS is the side's
   * own, not what an earlier side left in the heap (V8 keeps what it grew to).
   */
  const timed = async (name: string, work: (server: Served) => Promise<void>, warm?: (server: Served) => Promise<void>) => {
    const child = warm ? await startChild<{ port: number; token: string }>('import-server.ts', [db.uri], flags) : null;
    const served: Served = { base: `http://127.0.0.1:${child?.ready.port ?? 0}/api/v1`, auth: { authorization: `Bearer ${child?.ready.token ?? ''}` } };
    try {
      if (warm) await warm(served);
      await empty();
      await pg.query('VACUUM ANALYZE products');
      const pid = child?.process.pid;
      const baseline = pid ? rssOf(pid) : 0;
      let peak = baseline;
      const sampler = setInterval(() => (peak = pid ? Math.max(peak, rssOf(pid)) : 0), 100);
      const started = performance.now();
      try {
        await work(served);
      } finally {
        clearInterval(sampler);
      }
      const seconds = (performance.now() - started) / 1000;
      loads.push(loadavg()[0]);
      const { rows } = await pg.query<{ n: string }>('SELECT count(*) AS n FROM products');
      if (Number(rows[0].n) !== ROWS) throw new Error(`${name}: ${rows[0].n} rows stored, ${ROWS} expected`);
      figures[name].push({ seconds, peak });
      log(`${name}: ${seconds.toFixed(1)} s, ${Math.round(ROWS / seconds)} rows/s${pid ? `, server RSS ${Math.round(baseline / 1048576)} -> peak ${Math.round(peak / 1048576)} MB` : ''}`);
    } finally {
      await child?.stop();
    }
  };
  try {
    log(`load before: ${loadavg().map((l) => l.toFixed(2)).join(', ')}`);
    // the example app creates its tables on start
    await (await startChild('import-server.ts', [db.uri], flags)).stop();
    // COPY needs the timestamps the library sets: defaults for this run only
    await pg.query('ALTER TABLE products ALTER created_at SET DEFAULT now(), ALTER updated_at SET DEFAULT now()');
    const importFile = async ({ base, auth }: Served, body: ReadableStream | string, rows: number) => {
      const res = await fetch(`${base}/products/import?on_error=skip`, { method: 'POST', headers: { ...auth, 'content-type': 'text/csv' }, body, duplex: 'half' } as RequestInit);
      const answer = (await res.json()) as { rows?: number; created?: number; skipped?: number };
      if (!res.ok || answer.created !== rows) throw new Error(`import -> ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
    };
    const importSide = () =>
      timed('import', (served) => importFile(served, Readable.toWeb(createReadStream(file)) as ReadableStream, ROWS), (served) => importFile(served, `${COLUMNS.join(',')}\n${row(ROWS + 1).map(quote).join(',')}\n`, 1));
    const store = async ({ base, auth }: Served, from: number, to: number) => {
      const product = [];
      for (let i = from; i < to; i += 1) {
        const [name, sku, price, stock, status, description, featured] = row(i);
        product.push({ name, sku, price: Number(price), stock: Number(stock), status, description: description === '' ? null : description, featured: featured === 'true' });
      }
      const res = await fetch(`${base}/products`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ product }) });
      if (!res.ok) throw new Error(`bulk store -> ${res.status}: ${(await res.text()).slice(0, 300)}`);
      await res.arrayBuffer();
    };
    const bulkSide = () =>
      timed('bulk', async (served) => {
        for (let from = 0; from < ROWS; from += CHUNK) await store(served, from, Math.min(ROWS, from + CHUNK));
      }, (served) => store(served, ROWS + 2, ROWS + 3));
    const copySide = () => timed('copy', async () => {
      await pg.query(`COPY products (${COLUMNS.join(', ')}) FROM '${file.replace(/'/g, "''")}' WITH (FORMAT csv, HEADER true, NULL '')`);
    });
    const sides = [importSide, bulkSide, copySide];
    for (let round = 0; round < ROUNDS; round += 1) {
      log(`round ${round + 1} of ${ROUNDS}`);
      for (let i = 0; i < sides.length; i += 1) await sides[(i + round) % sides.length]();
    }
    await pg.query('ALTER TABLE products ALTER created_at DROP DEFAULT, ALTER updated_at DROP DEFAULT');
  } finally {
    await pg.end().catch(() => undefined);
    await db.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rate = (name: string) => median(figures[name].map((f) => ROWS / f.seconds));
  const peakOf = (name: string) => Math.max(...figures[name].map((f) => f.peak));
  const commit = (() => {
    try {
      return execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const peakMb = peakOf('import') / 1048576;
  const lines = [
    `commit ${commit}; ${ROUNDS} rounds (medians of rows/s; highest peak); rows/s per round: import ${figures.import.map((f) => Math.round(ROWS / f.seconds)).join(' ')}, bulk ${figures.bulk.map((f) => Math.round(ROWS / f.seconds)).join(' ')}, copy ${figures.copy.map((f) => Math.round(ROWS / f.seconds)).join(' ')}`,
    `load (1 min) during the run: ${loads.map((l) => l.toFixed(2)).join(' -> ')} on ${cpus().length} cores`,
    '',
    '| figure | value | ratio | aim | met |',
    '| --- | ---: | ---: | --- | --- |',
    `| import of ${ROWS.toLocaleString('en-US')} CSV rows (on_error=skip) vs JSON bulk store, rows/s | ${Math.round(rate('import'))} vs ${Math.round(rate('bulk'))} | ${(rate('import') / rate('bulk')).toFixed(2)}x | >= 0.8x | ${rate('import') / rate('bulk') >= 0.8 ? 'met' : 'missed'} |`,
    `| import vs PostgreSQL COPY of the same file, rows/s | ${Math.round(rate('import'))} vs ${Math.round(rate('copy'))} | ${(rate('import') / rate('copy')).toFixed(2)}x | >= 0.3x | ${rate('import') / rate('copy') >= 0.3 ? 'met' : 'missed'} |`,
    `| import: server peak RSS, MB | ${peakMb.toFixed(0)} | - | < 250 | ${peakMb < 250 ? 'met' : 'missed'} |`,
    `| JSON bulk store: server peak RSS, MB (for comparison) | ${(peakOf('bulk') / 1048576).toFixed(0)} | - | none | - |`,
  ];
  console.log(lines.join('\n'));
  process.exit(0);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
