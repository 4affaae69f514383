import { readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { startPostgres, startRedis } from '../lib/testing';
import { startChild, type Child } from './child';
import type { SoakInstanceReady } from './soak-instance';
import { openSubscribers } from './soak-subscribers';
import { Tally, latencyRow } from './soak-tally';

/**
 * `npm run bench:soak`: two example-app instances (sql, processes of their own) on one embedded
 * PostgreSQL and one Redis (read cache and change-feed fan-out), mixed closed-loop load on both
 * (lists, shows, writes) and SOAK_SUBSCRIBERS (200) change-feed streams split over both, for
 * SOAK_SECONDS (600). RSS of each instance every 30 s; answers by status (no 5xx expected); p50/p99
 * per kind. Prints a Markdown section; SOAK_OUT=<file> also writes it there.
 */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const READERS = Number(process.env.SOAK_READERS ?? 60);
const WRITERS = Number(process.env.SOAK_WRITERS ?? 12);
const SUBSCRIBERS = Number(process.env.SOAK_SUBSCRIBERS ?? 200);
const SAMPLE_MS = Number(process.env.SOAK_SAMPLE_MS ?? 30_000);
const TOKEN = `soak-${process.pid}-${Date.now()}`;

/** A process's resident set from /proc (MB), read from outside so the figure is the kernel's. */
async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** The instance's heap in use (MB), asked over IPC. */
function heapMb(child: Child<SoakInstanceReady>): Promise<number> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.process.off('message', onMessage);
      resolve(NaN);
    }, 5000);
    const onMessage = (m: unknown): void => {
      const memory = (m as { memory?: { heap_mb: number } } | null)?.memory;
      if (!memory) return;
      clearTimeout(timer);
      child.process.off('message', onMessage);
      resolve(memory.heap_mb);
    };
    child.process.on('message', onMessage);
    child.process.send('memory?');
  });
}

async function main(): Promise<void> {
  // one access-log line per request would be most of the instances' work
  process.env.LOG_LEVEL ??= 'warn';
  const pg = await startPostgres();
  const redis = await startRedis();
  const instances: Array<Child<SoakInstanceReady>> = [];
  const prefix = `soak${Date.now()}`;
  try {
    for (let i = 0; i < 2; i += 1) instances.push(await startChild<SoakInstanceReady>('soak-instance.ts', [pg.uri, redis.url, TOKEN, prefix]));
    const bases = instances.map((c) => `${c.ready.url}/api/v1`);
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => (await (await fetch(`${bases[0]}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as Record<string, unknown>;
    const category = (await post('/categories', { name: 'Soak' })).model as { id: number };
    const seeded = (await post('/products', { product: Array.from({ length: 200 }, (_, i) => ({ name: `Soak ${i}`, sku: `SOAK-${i}`, price: i, category_id: category.id })) })).models as Array<{ model: { id: number } }>;
    const productIds = seeded.map((m) => m.model.id);

    const subscribers = await openSubscribers(bases, TOKEN, SUBSCRIBERS);
    const tallies = { list: new Tally(), show: new Tally(), write: new Tally() };
    const rss: string[] = [];
    const loads: number[] = [];
    const started = Date.now();
    const until = started + SECONDS * 1000;
    const sample = async (): Promise<void> => {
      const figures = await Promise.all(instances.map(async (c) => `${await rssMb(c.ready.pid)} (${await heapMb(c)})`));
      loads.push(loadavg()[0]);
      rss.push(`${Math.round((Date.now() - started) / 1000)} s: ${figures.join(' / ')}`);
    };
    await sample();
    const sampler = setInterval(() => void sample().catch(() => undefined), SAMPLE_MS);

    const listQuery = `oper=${encodeURIComponent(JSON.stringify({ and: ['price|>=|10'] }))}&relations=category,reviews&pagination=${encodeURIComponent('{"page":2,"pageSize":20}')}`;
    let serial = 0;
    let productWrites = 0;
    const reader = async (i: number): Promise<void> => {
      const base = bases[i % 2];
      while (Date.now() < until) {
        const n = serial++;
        if (n % 2 === 0) await tallies.show.time(() => fetch(`${base}/products/${productIds[n % productIds.length]}?relations=reviews`, { headers }));
        else await tallies.list.time(() => fetch(`${base}/products?${listQuery}`, { headers }));
      }
    };
    const writer = async (i: number): Promise<void> => {
      const base = bases[i % 2];
      while (Date.now() < until) {
        const n = serial++;
        const product = productIds[n % productIds.length];
        const kind = Math.floor(i / 2) % 3;
        if (kind === 0) {
          if ((await tallies.write.time(() => fetch(`${base}/products/${product}`, { method: 'PATCH', headers, body: JSON.stringify({ stock: n % 100 }) }))) === 200) productWrites += 1;
        }
        else if (kind === 1) await tallies.write.time(() => fetch(`${base}/reviews`, { method: 'POST', headers, body: JSON.stringify({ product_id: product, rating: 1 + (n % 5) }) }));
        else await tallies.write.time(() => fetch(`${base}/tags`, { method: 'POST', headers, body: JSON.stringify({ name: `soak-${n}-${Date.now()}` }) }));
      }
    };
    await Promise.all([...Array.from({ length: READERS }, (_, i) => reader(i)), ...Array.from({ length: WRITERS }, (_, i) => writer(i))]);
    clearInterval(sampler);
    await sample();
    const seconds = (Date.now() - started) / 1000;
    // the last events still travel: count once no more arrive for 2 s (at most 20 s)
    for (let last = -1, waited = 0; subscribers.events() !== last && waited < 20_000; waited += 2000) {
      last = subscribers.events();
      await new Promise((r) => setTimeout(r, 2000));
    }
    const feed = subscribers.close();
    const fiveXX = Object.values(tallies).reduce((n, t) => n + t.fiveXX(), 0);
    const errors = new Map<string, number>();
    for (const t of Object.values(tallies)) for (const [m, n] of t.errors) errors.set(m, (errors.get(m) ?? 0) + n);
    const section = [
      `## Two-instance soak (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
      '',
      `Two example-app instances (sql, read cache and change feed on one Redis, authorization on) on one embedded PostgreSQL, ${READERS} readers (show with reviews, list with filter, two relations and a page) and ${WRITERS} writers (update a product, create a review, create a tag) in closed loops split over both instances, and ${SUBSCRIBERS} change-feed subscribers on /products/changes split over both, for ${(seconds / 60).toFixed(1)} min on loopback (\`SOAK_SECONDS=${SECONDS} npm run bench:soak\`). Load generator, both instances, PostgreSQL and Redis on one 2-core machine shared with other jobs: 1-min load average ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)} during the run.`,
      '',
      '| kind | requests | req/s | answers by status | p50 ms | p99 ms |',
      '| --- | --- | --- | --- | --- | --- |',
      ...Object.entries(tallies).map(([kind, t]) => latencyRow(kind, t, seconds)),
      '',
      `5xx answers: ${fiveXX}. Change feed: ${feed.events.toLocaleString('en')} events received over ${SUBSCRIBERS} streams (${feed.open} still open at the end, ${feed.failed} failed or ended early; ${productWrites.toLocaleString('en')} product updates x ${SUBSCRIBERS} streams = ${(productWrites * SUBSCRIBERS).toLocaleString('en')} expected).`,
      '',
      `RSS in MB (heap in use) of instance 1 / instance 2 every ${SAMPLE_MS / 1000} s: ${rss.join('; ')}.`,
      ...(errors.size ? ['', `Network errors (status 0 above, counted with the 5xx): ${[...errors.entries()].map(([m, n]) => `${n} x ${m}`).join('; ')}.`] : []),
    ].join('\n');
    console.log(section);
    if (process.env.SOAK_OUT) await writeFile(resolve(process.env.SOAK_OUT), `${section}\n`);
    if (fiveXX > 0) process.exitCode = 1;
  } finally {
    for (const child of instances) await child.stop();
    await redis.stop();
    await pg.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
