import { execFileSync } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../lib/testing';
import { startChild, type Child } from './child';
import type { ServeReady } from './serve';

/**
 * `npm run bench:history` (issue 51's row for decision 83): a single update and a batch update of
 * 100 orders with history on (the example app's orders) against the same without it (a second
 * server with `history: {orders: false}`, BENCH_HISTORY_OFF), in the same run, each side served as
 * bench:peers serves it (a server process of its own running the compiled JavaScript, access log
 * off), both on one embedded PostgreSQL. BENCH_WRITE_REPS rounds (default 45) after
 * BENCH_WRITE_WARMUPS (default 3) unmeasured ones, the two sides alternating; each round times 10
 * single updates and one batch of 100 per side; medians. Prints the machine's load, ends with the
 * figures' table (ratio, aim, met or missed) and appends it to bench/RESULTS.md with the commit
 * measured (BENCH_WRITE=0: not).
 */
const REPS = Number(process.env.BENCH_WRITE_REPS ?? 45);
const WARMUPS = Number(process.env.BENCH_WRITE_WARMUPS ?? 3);
const AIM = 1.25;
const log = (message: string): void => console.error(`[history] ${message}`);
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const machineLoad = (): string => `load average ${loadavg().map((l) => l.toFixed(2)).join(', ')} on ${cpus().length} cores`;

interface Side {
  name: string;
  base: string;
  single: number[];
  batch: number[];
}

async function call(side: Side, method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${side.base}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${side.name} ${method} ${path} -> ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  return answer;
}

/** The bench's server child (serve.ts) on PostgreSQL, `env` added to its environment. */
const serve = (uri: string, env: Record<string, string> = {}): Promise<Child<ServeReady>> => startChild<ServeReady>('serve.ts', ['sql', uri], [], env);

async function main(): Promise<void> {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname }).toString().trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: __dirname }).toString().trim() !== '';
  const before = machineLoad();
  log(`at ${commit}${dirty ? ' (with uncommitted changes)' : ''}; machine: ${before}`);
  const db = await startPostgres();
  const withHistory = await serve(db.uri, {});
  const withoutHistory = await serve(db.uri, { BENCH_HISTORY_OFF: 'orders' });
  const sides: Side[] = [
    { name: 'with history', base: `${withHistory.ready.library}/api/v1`, single: [], batch: [] },
    { name: 'without history', base: `${withoutHistory.ready.library}/api/v1`, single: [], batch: [] },
  ];
  try {
    const user = (await call(sides[0], 'POST', '/users', { name: 'Bench', email: `bench-history-${Date.now()}@example.test` })).model as { id: number };
    // each side writes its own 100 orders (the same rows, the same statements but history's)
    const ids: number[][] = [];
    for (const side of sides) {
      const created = await call(side, 'POST', '/orders', { order: Array.from({ length: 100 }, (_, i) => ({ user_id: user.id, number: `HB-${side.name}-${Date.now()}-${i}`, total: 10 + i, placed_at: '2026-11-01T10:00:00.000Z' })) });
      ids.push((created.models as Array<{ model: { id: number } }>).map((m) => m.model.id));
    }
    for (let rep = -WARMUPS; rep < REPS; rep += 1) {
      const order = rep % 2 === 0 ? [0, 1] : [1, 0];
      for (const index of order) {
        const side = sides[index];
        for (let k = 0; k < 10; k += 1) {
          const started = performance.now();
          await call(side, 'PATCH', `/orders/${ids[index][k]}`, { notes: `single ${rep} ${k}` });
          if (rep >= 0) side.single.push(performance.now() - started);
        }
        const started = performance.now();
        await call(side, 'PATCH', '/orders/batch', { order: ids[index].map((id, i) => ({ id, notes: `batch ${rep} ${i}`, total: 10 + ((i + rep + WARMUPS) % 50) })) });
        if (rep >= 0) side.batch.push(performance.now() - started);
      }
    }
  } finally {
    await withHistory.stop();
    await withoutHistory.stop();
    await db.stop();
  }
  for (const side of sides) log(`${side.name}: batch ${side.batch.map((ms) => ms.toFixed(1)).join(' ')} ms`);
  const rows = ['| figure | with history, median ms | without, median ms | ratio | aim | met |', '| --- | ---: | ---: | ---: | --- | --- |'];
  for (const [figure, key] of [['single update (PATCH one order)', 'single'], ['batch update of 100 orders', 'batch']] as const) {
    const on = median(sides[0][key]);
    const off = median(sides[1][key]);
    const ratio = on / off;
    rows.push(`| ${figure} | ${on.toFixed(2)} | ${off.toFixed(2)} | ${ratio.toFixed(2)}x | <= ${AIM.toFixed(2)}x | ${ratio <= AIM ? 'met' : 'missed'} |`);
  }
  const section = [
    '',
    `## History (\`npm run bench:history\`, bench/history.ts), ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${commit}${dirty ? ' + uncommitted changes' : ''}`,
    '',
    `Orders with history against a second server without it, each in a server process of its own (compiled, access log off), one embedded PostgreSQL; ${REPS} rounds after ${WARMUPS} warm-ups, the sides alternating, each round 10 single updates and one batch of 100 per side; medians. Machine load before: ${before}; after: ${machineLoad()}.`,
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
