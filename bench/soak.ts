import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startPostgres } from '../lib/testing';
import { startChild } from './child';
import type { ServeReady } from './serve';

/**
 * `npx tsx bench/soak.ts`: the example app (PostgreSQL, embedded) under 200 concurrent readers
 * and 50 writers for SOAK_MINUTES (default 10), on loopback, each client in a closed loop. Reports
 * requests, answers by status (no 5xx expected), p99 per kind, and the server's RSS every 30 s;
 * writes the "Soak" section of bench/RESULTS.md.
 */
const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const READERS = Number(process.env.SOAK_READERS ?? 200);
const WRITERS = Number(process.env.SOAK_WRITERS ?? 50);

interface Tally {
  latencies: number[];
  statuses: Map<number, number>;
}

function record(t: Tally, status: number, ms: number): void {
  t.statuses.set(status, (t.statuses.get(status) ?? 0) + 1);
  if (t.latencies.length < 2_000_000) t.latencies.push(ms);
}

const p99 = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] : 0);

async function main(): Promise<void> {
  const pg = await startPostgres();
  const child = await startChild<ServeReady>('serve.ts', ['sql', pg.uri]);
  const api = `${child.ready.library}/api/v1`;
  const json = { 'content-type': 'application/json' };
  try {
    const category = (await (await fetch(`${api}/categories`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'Soak' }) })).json()) as { model: { id: number } };
    const seeded = (await (await fetch(`${api}/products`, { method: 'POST', headers: json, body: JSON.stringify({ product: Array.from({ length: 200 }, (_, i) => ({ name: `Soak ${i}`, sku: `SOAK-${i}`, price: i, category_id: category.model.id })) }) })).json()) as { models: Array<{ model: { id: number } }> };
    const productIds = seeded.models.map((m) => m.model.id);
    const reads: Tally = { latencies: [], statuses: new Map() };
    const writes: Tally = { latencies: [], statuses: new Map() };
    const rss: string[] = [];
    const until = Date.now() + MINUTES * 60_000;
    const started = Date.now();
    const sampler = setInterval(() => {
      void fetch(`${child.ready.baseline}/__memory`).then(async (r) => {
        const m = (await r.json()) as { rss_mb: number };
        rss.push(`${Math.round((Date.now() - started) / 1000)} s: ${m.rss_mb} MB`);
      });
    }, 30_000);
    const timed = async (t: Tally, run: () => Promise<Response>): Promise<void> => {
      const t0 = performance.now();
      try {
        const res = await run();
        await res.arrayBuffer();
        record(t, res.status, performance.now() - t0);
      } catch {
        record(t, 0, performance.now() - t0);
      }
    };
    const listQuery = `oper=${encodeURIComponent(JSON.stringify({ and: ['price|>=|10'] }))}&relations=category,reviews&pagination=${encodeURIComponent('{"page":2,"pageSize":20}')}`;
    let serial = 0;
    const reader = async (i: number) => {
      while (Date.now() < until) {
        const path = i % 3 === 0 ? `/products/${productIds[serial++ % productIds.length]}?relations=reviews` : `/products?${listQuery}`;
        await timed(reads, () => fetch(`${api}${path}`));
      }
    };
    const writer = async (i: number) => {
      while (Date.now() < until) {
        const n = serial++;
        const product = productIds[n % productIds.length];
        if (i % 3 === 0) await timed(writes, () => fetch(`${api}/products/${product}`, { method: 'PATCH', headers: json, body: JSON.stringify({ stock: n % 100 }) }));
        else if (i % 3 === 1) await timed(writes, () => fetch(`${api}/reviews`, { method: 'POST', headers: json, body: JSON.stringify({ product_id: product, rating: 1 + (n % 5) }) }));
        else await timed(writes, () => fetch(`${api}/tags`, { method: 'POST', headers: json, body: JSON.stringify({ name: `soak-${n}-${Date.now()}` }) }));
      }
    };
    await Promise.all([...Array.from({ length: READERS }, (_, i) => reader(i)), ...Array.from({ length: WRITERS }, (_, i) => writer(i))]);
    clearInterval(sampler);
    const seconds = (Date.now() - started) / 1000;
    const statusList = (t: Tally) => [...t.statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s === 0 ? 'network error' : s}: ${n.toLocaleString('en')}`).join(', ');
    const total = (t: Tally) => [...t.statuses.values()].reduce((a, b) => a + b, 0);
    const section = [
      '## Soak',
      '',
      `The example app on PostgreSQL (embedded), ${READERS} readers (list with filter, two relations and a page; show with reviews) and ${WRITERS} writers (update a product, create a review, create a tag) in closed loops for ${MINUTES} min on loopback (\`npx tsx bench/soak.ts\`, ${new Date().toISOString().slice(0, 10)}).`,
      '',
      '| clients | requests | req/s | answers by status | p99 ms |',
      '| --- | --- | --- | --- | --- |',
      `| readers | ${total(reads).toLocaleString('en')} | ${(total(reads) / seconds).toFixed(0)} | ${statusList(reads)} | ${p99(reads.latencies).toFixed(0)} |`,
      `| writers | ${total(writes).toLocaleString('en')} | ${(total(writes) / seconds).toFixed(0)} | ${statusList(writes)} | ${p99(writes.latencies).toFixed(0)} |`,
      '',
      `Server RSS every 30 s: ${rss.join('; ')}.`,
    ].join('\n');
    console.log(section);
    const file = join(__dirname, 'RESULTS.md');
    const previous = await readFile(file, 'utf8');
    const start = previous.indexOf('\n## Soak');
    const kept = start < 0 ? previous.trimEnd() : (previous.slice(0, start) + previous.slice(previous.indexOf('\n## ', start + 1) > 0 ? previous.indexOf('\n## ', start + 1) : previous.length)).trimEnd();
    await writeFile(file, `${kept}\n\n${section}\n`);
  } finally {
    await child.stop();
    await pg.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
