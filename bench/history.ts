import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { startPostgres } from '../lib/testing';
import { createExampleApp, type ExampleApp } from '../example-app/app';

/**
 * `npm run bench:history` (issue 51's row for decision 83): a single update and a batch update of
 * 100 orders with history on (the example app's orders) against the same without it (a second
 * example app on the same database with `history: {orders: false}`), in the same run, over HTTP to
 * both apps in this process (embedded PostgreSQL). BENCH_WRITE_REPS rounds (default 15) after
 * BENCH_WRITE_WARMUPS (default 3) unmeasured ones, the two sides alternating; each round times 10
 * single updates and one batch of 100 per side; medians. Prints the machine's load and ends with a
 * markdown table (figure, with history, without, ratio, aim, met or missed); writes no file.
 */
const REPS = Number(process.env.BENCH_WRITE_REPS ?? 15);
const WARMUPS = Number(process.env.BENCH_WRITE_WARMUPS ?? 3);
const AIM = 1.25;
const log = (message: string): void => console.error(`[history] ${message}`);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Side {
  name: string;
  base: string;
  token: string;
  single: number[];
  batch: number[];
}

async function serve(app: ExampleApp): Promise<{ base: string; close: () => void }> {
  const server = app.app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, close: () => server.close() };
}

async function call(side: Side, method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${side.base}${path}`, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${side.token}` }, body: JSON.stringify(body) });
  const answer = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${side.name} ${method} ${path} -> ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  return answer;
}

async function main(): Promise<void> {
  log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const db = await startPostgres();
  const withApp = await createExampleApp({ driver: 'sql', postgresUri: db.uri, seed: false });
  const withoutApp = await createExampleApp({ driver: 'sql', postgresUri: db.uri, seed: false, adminToken: withApp.info.adminToken, history: { orders: false } });
  const a = await serve(withApp);
  const b = await serve(withoutApp);
  const sides: Side[] = [
    { name: 'with history', base: a.base, token: withApp.info.adminToken, single: [], batch: [] },
    { name: 'without history', base: b.base, token: withApp.info.adminToken, single: [], batch: [] },
  ];
  try {
    await withApp.reset();
    const user = (await call(sides[0], 'POST', '/users', { name: 'Bench', email: 'bench-history@example.test' })).model as { id: number };
    // each side writes its own 100 orders (the same rows, the same statements but history's)
    const ids: number[][] = [];
    for (const side of sides) {
      const created = await call(side, 'POST', '/orders', { order: Array.from({ length: 100 }, (_, i) => ({ user_id: user.id, number: `HB-${side.name}-${i}`, total: 10 + i, placed_at: '2026-11-01T10:00:00.000Z' })) });
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
        await call(side, 'PATCH', '/orders/batch', { order: ids[index].map((id, i) => ({ id, notes: `batch ${rep} ${i}`, total: 10 + ((i + rep) % 50) })) });
        if (rep >= 0) side.batch.push(performance.now() - started);
      }
    }
  } finally {
    a.close();
    b.close();
    await withApp.close();
    await withoutApp.close();
    await db.stop();
  }
  for (const side of sides) log(`${side.name}: single ${side.single.map((ms) => ms.toFixed(1)).join(' ')} ms; batch ${side.batch.map((ms) => ms.toFixed(1)).join(' ')} ms`);
  log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const rows = ['| figure | with history, median ms | without, median ms | ratio | aim | result |', '| --- | ---: | ---: | ---: | --- | --- |'];
  for (const [figure, key] of [['single update (PATCH one order)', 'single'], ['batch update of 100 orders', 'batch']] as const) {
    const on = median(sides[0][key]);
    const off = median(sides[1][key]);
    const ratio = on / off;
    rows.push(`| ${figure} | ${on.toFixed(2)} | ${off.toFixed(2)} | ${ratio.toFixed(2)}x | <= ${AIM.toFixed(2)}x | ${ratio <= AIM ? 'met' : 'missed'} |`);
  }
  console.log(rows.join('\n'));
  process.exit(0);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
