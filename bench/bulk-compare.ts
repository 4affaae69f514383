import type { Child } from './child';
import { withSeededSqlServer } from './seeded-sql-server';
import type { ServeReady } from './serve';

/**
 * `npx tsx bench/bulk-compare.ts`: the bulk create of 1,000 products alone, the library and the
 * hand-written `pg` handler (without and with the example app's yup schema) alternating in one
 * server on PostgreSQL (embedded) in an order that rotates each repetition, BENCH_WRITE_REPS
 * (default 40) measured repetitions after 3 unmeasured ones; medians and ratios to the
 * hand-written INSERT. A quicker loop than
 * `npm run bench:peers` for work on the write path (same request, same data, same handlers).
 */
const REPS = Number(process.env.BENCH_WRITE_REPS ?? 40);
const WARMUPS = 3;
const SIZE = 1000;

const body = (tag: string): string =>
  JSON.stringify({
    product: Array.from({ length: SIZE }, (_, i) => ({ name: `Bulk ${tag} ${i}`, sku: `BULK-${tag}-${i}`, price: 10 + (i % 90), stock: i % 20, status: 'active', description: i % 2 ? null : `Bulk product ${i}`, featured: false, category_id: 6 + (i % 45) })),
  });

async function post(url: string, payload: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload });
  const answer = (await res.json()) as { models?: unknown[] };
  if (!res.ok || answer.models?.length !== SIZE) throw new Error(`POST ${url} -> ${res.status}`);
  return performance.now() - started;
}

async function compare(child: Child<ServeReady>): Promise<void> {
  const sides: Record<string, string> = {
    library: `${child.ready.library}/api/v1/products`,
    'hand-written pg': `${child.ready.baseline}/products`,
    'hand-written pg + yup': `${child.ready.baseline}/products?validate=1`,
  };
  const samples = new Map<string, number[]>(Object.keys(sides).map((name) => [name, []]));
  const entries = Object.entries(sides);
  for (let rep = -WARMUPS; rep < REPS; rep += 1) {
    for (let k = 0; k < entries.length; k += 1) {
      // the order rotates: no side always follows the same one
      const i = (k + rep + WARMUPS) % entries.length;
      const [name, url] = entries[i];
      // the body is made before the clock starts: only the server's work is timed
      const ms = await post(url, body(`${i}-${rep}`));
      if (rep >= 0) samples.get(name)?.push(ms);
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const base = median(samples.get('hand-written pg') ?? []);
  for (const [name, xs] of samples) console.log(`${name.padEnd(22)} ${median(xs).toFixed(1).padStart(6)} ms  ${(median(xs) / base).toFixed(2)}x`);
}

async function main(): Promise<void> {
  await withSeededSqlServer(compare);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
