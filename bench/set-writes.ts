import { Client } from 'pg';
import { startPostgres } from '../lib/testing';
import { startChild, type Child } from './child';
import { SQL_DATASET } from './dataset';
import { seedSql } from './seed-sql';
import type { ServeReady } from './serve';

/**
 * `npm run bench:set-writes`: the set-based writes (issue 36) against their hand-written `pg`
 * twins in one run: bulk insert of 1,000, batch update of 100, sync of 100 tags and sync of
 * 1,000 ids. The same scenarios and timing as bench:peers' writes (each side in a server process
 * of its own; BENCH_WRITE_REPS repetitions, default 15, after BENCH_WRITE_WARMUPS, default 3,
 * unmeasured ones, sides alternating in a rotating order; median ms), without the reads, so a
 * change to a write path is measured in two minutes. Prints a markdown table; writes no file.
 * BENCH_ONLY=bulk|batch|sync runs one scenario group. The syncs have a third side: the library
 * with its per-step link path (BENCH_PER_STEP_LINKS=1 in bench/serve.ts: read, detach, update,
 * attach, what every sync ran before issue 36), so both forms are measured under the same load.
 */
const WRITE_REPS = Number(process.env.BENCH_WRITE_REPS ?? 15);
const WRITE_WARMUPS = Number(process.env.BENCH_WRITE_WARMUPS ?? 3);
/** BENCH_ONLY=sync (or bulk, batch): only those scenarios. */
const only = (name: string): boolean => !process.env.BENCH_ONLY || process.env.BENCH_ONLY === name;

const log = (message: string): void => console.error(`[set-writes] ${message}`);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Median ms of each side's operation; `setup` (untimed) runs before each timed call. */
async function timeSides(sides: Record<string, (rep: number) => Promise<() => Promise<void>>>): Promise<Map<string, number>> {
  const samples = new Map<string, number[]>(Object.keys(sides).map((k) => [k, []]));
  const entries = Object.entries(sides);
  for (let rep = -WRITE_WARMUPS; rep < WRITE_REPS; rep += 1) {
    const shift = (rep + WRITE_WARMUPS) % entries.length;
    for (const [name, prepare] of [...entries.slice(shift), ...entries.slice(0, shift)]) {
      const op = await prepare(rep);
      const started = performance.now();
      await op();
      if (rep >= 0) samples.get(name)?.push(performance.now() - started);
    }
  }
  for (const [k, v] of samples) log(`  ${k}: ${v.map((ms) => ms.toFixed(1)).join(' ')} ms`);
  return new Map([...samples].map(([k, v]) => [k, median(v)]));
}

async function send(method: string, url: string, body: unknown, check: (answer: Record<string, unknown[]>) => boolean): Promise<void> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await res.json()) as Record<string, unknown[]>;
  if (!res.ok || !check(answer)) throw new Error(`${method} ${url} -> ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
}

/** The bench's server child (serve.ts) on PostgreSQL, `env` added to its environment. */
const serve = (uri: string, env: Record<string, string> = {}): Promise<Child<ServeReady>> => startChild<ServeReady>('serve.ts', ['sql', uri], [], env);

async function main(): Promise<void> {
  const pg = await startPostgres();
  const client = new Client({ connectionString: pg.uri });
  const rows: string[] = [];
  try {
    log('creating the schema');
    const creator = await serve(pg.uri);
    await creator.stop();
    log('seeding');
    await seedSql(pg.uri, SQL_DATASET);
    await client.connect();
    const tagIds = (await client.query<{ id: number }>(`INSERT INTO tags (name, created_at, updated_at) SELECT 'set-' || i, now(), now() FROM generate_series(1, 1250) i RETURNING id`)).rows.map((r) => r.id);
    // a third server: the library with the per-step link path (what a sync ran before issue 36)
    const [libraryServer, baselineServer, perStepServer] = await Promise.all([serve(pg.uri), serve(pg.uri), serve(pg.uri, { BENCH_PER_STEP_LINKS: '1' })]);
    try {
      const library = libraryServer.ready.library;
      const baseline = baselineServer.ready.baseline;
      const perStep = perStepServer.ready.library;
      const record = (name: string, figures: Map<string, number>) => {
        const lib = figures.get('library') ?? 0;
        const base = figures.get('hand-written pg') ?? 0;
        const step = figures.get('library, per-step links');
        const stepped = step === undefined ? '| n/a | n/a' : `| ${step.toFixed(1)} | ${(step / base).toFixed(2)}x`;
        rows.push(`| ${name} | ${lib.toFixed(1)} | ${base.toFixed(1)} | ${(lib / base).toFixed(2)}x | ${(base / lib).toFixed(2)}x ${stepped} |`);
      };

      if (only('bulk')) {
        log('bulk insert of 1,000 products');
        const bulk = (tag: string) => ({
          product: Array.from({ length: 1000 }, (_, i) => ({ name: `Set ${tag} ${i}`, sku: `SETW-${tag}-${i}`, price: 10 + (i % 90), stock: i % 20, status: 'active', description: i % 2 ? null : `Bulk product ${i}`, featured: false, category_id: 6 + (i % 45) })),
        });
        const created = (a: Record<string, unknown[]>) => a.models?.length === 1000;
        record(
          'bulk insert of 1,000 products',
          await timeSides({
            library: async (rep) => () => send('POST', `${library}/api/v1/products`, bulk(`L${rep}`), created),
            'hand-written pg': async (rep) => () => send('POST', `${baseline}/products`, bulk(`B${rep}`), created),
          }),
        );
      }
      if (only('batch')) {
        log('batch update of 100 products');
        const batch = (rep: number) => ({ product: Array.from({ length: 100 }, (_, i) => ({ id: 1000 + i * 7, price: 20 + ((rep + i) % 50), stock: (rep * 3 + i) % 40 })) });
        const updated = (a: Record<string, unknown[]>) => a.models?.length === 100;
        record(
          'batch update of 100 products (price, stock)',
          await timeSides({
            library: async (rep) => () => send('PATCH', `${library}/api/v1/products/batch`, batch(rep + 100), updated),
            'hand-written pg': async (rep) => () => send('PATCH', `${baseline}/products/batch`, batch(rep + 200), updated),
          }),
        );
      }
      let serial = 0;
      const freshProduct = async (linked: number[]): Promise<number> => {
        serial += 1;
        const { rows: made } = await client.query<{ id: number }>(`INSERT INTO products (name, sku, price, stock, status, featured, created_at, updated_at) VALUES ('Sync', $1, 1, 0, 'active', false, now(), now()) RETURNING id`, [`SETS-${Date.now()}-${serial}`]);
        await client.query('INSERT INTO product_tag (product_id, tag_id, position) SELECT $1, unnest($2::int[]), 1', [made[0].id, linked]);
        return made[0].id;
      };
      const syncs = [
        { name: 'sync of 100 tags (50 kept, 50 new, 25 removed)', linked: tagIds.slice(0, 75), wanted: tagIds.slice(25, 125), attached: 50, detached: 25 },
        { name: 'sync of 1,000 ids (500 kept, 500 new, 250 removed)', linked: tagIds.slice(0, 750), wanted: tagIds.slice(250, 1250), attached: 500, detached: 250 },
      ];
      for (const s of only('sync') ? syncs : []) {
        log(s.name);
        const body = { tags: s.wanted.map((tag_id) => ({ tag_id, position: 1 })) };
        const synced = (a: Record<string, unknown[]>) => a.attached?.length === s.attached && a.detached?.length === s.detached;
        record(
          s.name,
          await timeSides({
            library: async () => {
              const id = await freshProduct(s.linked);
              return () => send('POST', `${library}/api/v1/products/${id}/tags/attach?_scenario=sync`, body, synced);
            },
            'hand-written pg': async () => {
              const id = await freshProduct(s.linked);
              return () => send('POST', `${baseline}/products/${id}/tags/sync`, body, synced);
            },
            'library, per-step links': async () => {
              const id = await freshProduct(s.linked);
              return () => send('POST', `${perStep}/api/v1/products/${id}/tags/attach?_scenario=sync`, body, synced);
            },
          }),
        );
      }
    } finally {
      await Promise.all([libraryServer.stop(), baselineServer.stop(), perStepServer.stop()]);
    }
  } finally {
    await client.end().catch(() => undefined);
    await pg.stop();
  }
  console.log(
    [
      `\`npm run bench:set-writes\`, ${new Date().toISOString()}: PostgreSQL (embedded), ${SQL_DATASET.products.toLocaleString('en')} products; library and hand-written \`pg\` each in a server process of its own; median of ${WRITE_REPS} repetitions after ${WRITE_WARMUPS} unmeasured ones, sides alternating in a rotating order; wall time of the HTTP request (a sync's product set up untimed).`,
      '',
      '| write | library ms | hand-written pg ms | library time vs pg | speed vs pg | library, per-step links ms | per-step time vs pg |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rows,
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
