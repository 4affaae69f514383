import { execFileSync } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { Client } from 'pg';
import { startMongo, startPostgres } from '../lib/testing';
import { startChild } from './child';
import type { ServeReady } from './serve';

/**
 * `npm run bench:upsert`: decision 79's upsert of 1,000 products (500 matching existing ones, 500
 * new) against the library's own bulk store of 1,000 new products, in the same run, over HTTP to
 * the example app served as bench:peers serves it (a server process of its own running the
 * compiled JavaScript, access log off; embedded PostgreSQL; the MongoDB emulator or mongod with
 * BENCH_DRIVERS=sql,mongo). BENCH_WRITE_REPS repetitions (default 45) after BENCH_WRITE_WARMUPS
 * (default 3) unmeasured ones, the two sides alternating; before each, untimed, the products are
 * emptied and the 500 records the upsert matches stored. Prints the machine's load and the
 * figures' table (ratio, aim, met or missed) and appends it to bench/RESULTS.md with the commit
 * measured (BENCH_WRITE=0: not).
 */
const REPS = Number(process.env.BENCH_WRITE_REPS ?? 45);
const WARMUPS = Number(process.env.BENCH_WRITE_WARMUPS ?? 3);
const DRIVERS = (process.env.BENCH_DRIVERS ?? 'sql').split(',').map((d) => d.trim()) as Array<'sql' | 'mongo'>;
const AIM = 1.2;
const log = (message: string): void => console.error(`[upsert] ${message}`);
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const machineLoad = (): string => `load average ${loadavg().map((l) => l.toFixed(2)).join(', ')} on ${cpus().length} cores`;

const product = (tag: string, i: number, price = 10) => ({ name: `Ups ${tag} ${i}`, sku: `UPS-${tag}-${i}`, price: price + (i % 90), stock: i % 20, status: 'active', description: i % 2 ? null : `Product ${i}`, featured: false });

/** Empties the products (untimed, before each repetition), on either database. */
async function emptier(driver: 'sql' | 'mongo', uri: string, database: string): Promise<{ empty(): Promise<void>; close(): Promise<void> }> {
  if (driver === 'sql') {
    const client = new Client({ connectionString: uri });
    await client.connect();
    return { empty: async () => void (await client.query('TRUNCATE products RESTART IDENTITY CASCADE')), close: () => client.end() };
  }
  const client = await MongoClient.connect(uri);
  return { empty: async () => void (await client.db(database).collection('products').deleteMany({})), close: () => client.close() };
}

async function measure(driver: 'sql' | 'mongo'): Promise<{ upsert: number; store: number }> {
  const db = driver === 'sql' ? await startPostgres() : await startMongo();
  const child = await startChild<ServeReady>('serve.ts', [driver, db.uri]);
  const tables = await emptier(driver, db.uri, child.ready.database);
  const base = `${child.ready.library}/api/v1`;
  const send = async (path: string, body: unknown, check: (a: Record<string, unknown>) => boolean) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const answer = (await res.json()) as Record<string, unknown>;
    if (!res.ok || !check(answer)) throw new Error(`${path} -> ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  };
  const upserts: number[] = [];
  const stores: number[] = [];
  try {
    for (let rep = -WARMUPS; rep < REPS; rep += 1) {
      const tag = `${driver}${rep + WARMUPS}`;
      // untimed: every repetition starts from empty tables (the MongoDB emulator scans a collection
      // inside a transaction, so a growing one would make each repetition slower than the last)
      await tables.empty();
      // untimed: the 500 records the upsert will match
      await send('/products', { product: Array.from({ length: 500 }, (_, i) => product(`U${tag}`, i)) }, (a) => (a.models as unknown[]).length === 500);
      const sides: Array<[number[], () => Promise<void>]> = [
        [upserts, () => send('/products/upsert', { product: Array.from({ length: 1000 }, (_, i) => product(`U${tag}`, i, 20)) }, (a) => a.created === 500 && a.updated === 500)],
        [stores, () => send('/products', { product: Array.from({ length: 1000 }, (_, i) => product(`S${tag}`, i)) }, (a) => (a.models as unknown[]).length === 1000)],
      ];
      if (rep % 2 !== 0) sides.reverse();
      await child.idle();
      for (const [samples, op] of sides) {
        const started = performance.now();
        await op();
        if (rep >= 0) samples.push(performance.now() - started);
      }
    }
  } finally {
    await tables.close();
    await child.stop();
    await db.stop();
  }
  log(`${driver} upsert: ${upserts.map((ms) => ms.toFixed(1)).join(' ')} ms`);
  log(`${driver} store: ${stores.map((ms) => ms.toFixed(1)).join(' ')} ms`);
  return { upsert: median(upserts), store: median(stores) };
}

async function main(): Promise<void> {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname }).toString().trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: __dirname }).toString().trim() !== '';
  const before = machineLoad();
  log(`at ${commit}${dirty ? ' (with uncommitted changes)' : ''}; machine: ${before}`);
  const rows = ['| figure | upsert ms | store ms | ratio | aim | met |', '| --- | ---: | ---: | ---: | --- | --- |'];
  for (const driver of DRIVERS) {
    log(`${driver}: ${REPS} repetitions after ${WARMUPS} warm-ups`);
    const m = await measure(driver);
    const ratio = m.upsert / m.store;
    // the aim is PostgreSQL's; the MongoDB emulator's figures say nothing of a real server
    const [aim, met] = driver === 'sql' ? [`<= ${AIM.toFixed(2)}x`, ratio <= AIM ? 'met' : 'missed'] : ['none (emulator)', '-'];
    rows.push(`| upsert of 1,000 (500 new, 500 matched) vs bulk store of 1,000, ${driver === 'sql' ? 'PostgreSQL' : 'MongoDB'} (median time) | ${m.upsert.toFixed(1)} | ${m.store.toFixed(1)} | ${ratio.toFixed(2)}x | ${aim} | ${met} |`);
  }
  const section = [
    '',
    `## Upsert (\`npm run bench:upsert\`, bench/upsert.ts), ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${commit}${dirty ? ' + uncommitted changes' : ''}`,
    '',
    `The example app in a server process of its own (compiled, access log off), ${REPS} repetitions after ${WARMUPS} warm-ups, the sides alternating, medians. Machine load before: ${before}; after: ${machineLoad()}.`,
    '',
    ...rows,
  ].join('\n');
  console.log(section);
  if (process.env.BENCH_WRITE !== '0') await appendFile(join(__dirname, 'RESULTS.md'), `${section}\n`);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
