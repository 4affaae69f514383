import type { AddressInfo } from 'node:net';
import { startMongo, startPostgres } from '../lib/testing';
import { createExampleApp } from '../example-app/app';

/**
 * `npm run bench:upsert`: decision 79's upsert of 1,000 products (500 matching existing ones, 500
 * new) against the library's own bulk store of 1,000 new products, in the same run, over HTTP to
 * the example app in this process (embedded PostgreSQL; the MongoDB emulator or mongod with
 * BENCH_DRIVERS=sql,mongo). BENCH_WRITE_REPS repetitions (default 15) after BENCH_WRITE_WARMUPS
 * (default 3) unmeasured ones, the two sides alternating; the 500 records an upsert matches are
 * stored before it, untimed, on emptied tables. Prints a markdown table of medians; writes no file.
 * LOG_LEVEL=error keeps the access log quiet.
 */
const REPS = Number(process.env.BENCH_WRITE_REPS ?? 15);
const WARMUPS = Number(process.env.BENCH_WRITE_WARMUPS ?? 3);
const DRIVERS = (process.env.BENCH_DRIVERS ?? 'sql').split(',').map((d) => d.trim()) as Array<'sql' | 'mongo'>;
const log = (message: string): void => console.error(`[upsert] ${message}`);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const product = (tag: string, i: number, price = 10) => ({ name: `Ups ${tag} ${i}`, sku: `UPS-${tag}-${i}`, price: price + (i % 90), stock: i % 20, status: 'active', description: i % 2 ? null : `Product ${i}`, featured: false });

async function measure(driver: 'sql' | 'mongo'): Promise<{ upsert: number; store: number; upserts: number[]; stores: number[] }> {
  const db = driver === 'sql' ? await startPostgres() : await startMongo();
  const app = await createExampleApp(driver === 'sql' ? { driver, postgresUri: db.uri, seed: false } : { driver, mongoUri: db.uri, seed: false });
  const server = app.app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  const send = async (path: string, body: unknown, check: (a: Record<string, unknown>) => boolean) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${app.info.adminToken}` }, body: JSON.stringify(body) });
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
      await app.reset();
      // untimed: the 500 records the upsert will match
      await send('/products', { product: Array.from({ length: 500 }, (_, i) => product(`U${tag}`, i)) }, (a) => (a.models as unknown[]).length === 500);
      const sides: Array<[number[], () => Promise<void>]> = [
        [upserts, () => send('/products/upsert', { product: Array.from({ length: 1000 }, (_, i) => product(`U${tag}`, i, 20)) }, (a) => a.created === 500 && a.updated === 500)],
        [stores, () => send('/products', { product: Array.from({ length: 1000 }, (_, i) => product(`S${tag}`, i)) }, (a) => (a.models as unknown[]).length === 1000)],
      ];
      if (rep % 2 !== 0) sides.reverse();
      for (const [samples, op] of sides) {
        const started = performance.now();
        await op();
        if (rep >= 0) samples.push(performance.now() - started);
      }
    }
  } finally {
    server.close();
    await app.close();
    await db.stop();
  }
  log(`${driver} upsert: ${upserts.map((ms) => ms.toFixed(1)).join(' ')} ms`);
  log(`${driver} store: ${stores.map((ms) => ms.toFixed(1)).join(' ')} ms`);
  return { upsert: median(upserts), store: median(stores), upserts, stores };
}

async function main(): Promise<void> {
  const rows = ['| driver | upsert of 1,000 (500 new, 500 matched), median ms | bulk store of 1,000, median ms | upsert / store |', '| --- | ---: | ---: | ---: |'];
  for (const driver of DRIVERS) {
    log(`${driver}: ${REPS} repetitions after ${WARMUPS} warm-ups`);
    const m = await measure(driver);
    rows.push(`| ${driver === 'sql' ? 'PostgreSQL' : 'MongoDB'} | ${m.upsert.toFixed(1)} | ${m.store.toFixed(1)} | ${(m.upsert / m.store).toFixed(2)}x |`);
  }
  console.log(rows.join('\n'));
  process.exit(0);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
