import { execFileSync } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Client } from 'pg';
import { startPostgres } from '../lib/testing';
import { startChild, type Child } from './child';
import { SQL_DATASET } from './dataset';
import { load, type LoadFigures } from './measure';
import { seedSql } from './seed-sql';
import type { ServeReady } from './serve';

/**
 * `npm run bench:buckets` (issue 51, decision 84): on the benchmark's products (PostgreSQL,
 * embedded, the same rows as bench:peers, their `created_at` spread over 21 months so that months
 * are groups), in one run and one server process (library and hand-written handlers, as
 * bench:aggregate): the month-bucketed aggregate in Europe/Berlin against the plain `group_by`
 * (status) with the same filter and functions, and against a hand-written `date_trunc ... GROUP
 * BY` handler (bench/baseline-buckets.ts), whose answer is checked equal first. ROUNDS rounds of
 * the three in rotating order, medians. Prints the machine's load, ends with the figures'
 * table (ratio, aim, met or missed) and appends it to bench/RESULTS.md with the commit measured.
 * BENCH_SECONDS (default 6), BENCH_ROUNDS (default 3), BENCH_WRITE=0 to leave RESULTS.md alone.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const LOAD = { connections: 10, seconds: SECONDS, warmupSeconds: 2 };
const ZONE = 'Europe/Berlin';

const common = { oper: JSON.stringify({ and: ['price|>=|10'] }), aggregate: JSON.stringify({ count: '*', sum: ['price'] }), pagination: JSON.stringify({ page: 1, pageSize: 100 }) };
const bucketedQuery = new URLSearchParams({ ...common, group_by: JSON.stringify([{ field: 'created_at', bucket: 'month', tz: ZONE }]) }).toString();
const plainQuery = new URLSearchParams({ ...common, group_by: JSON.stringify(['status']) }).toString();
const baselineQuery = new URLSearchParams({ min_price: '10', tz: ZONE, page: '1', page_size: '100' }).toString();

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const machineLoad = (): string => `load average ${loadavg().map((l) => l.toFixed(2)).join(', ')} on ${cpus().length} cores`;

/** Sums of doubles may differ in the last digits between two summation orders. */
function rounded(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (_key, value: unknown) => (typeof value === 'number' ? Math.round(value * 1e6) / 1e6 : value));
}

interface Side {
  name: string;
  url: string;
}

/** ROUNDS rounds of every side, the order rotating each round; the median of each side's figures. */
async function measure(sides: Side[], idle: () => Promise<void>): Promise<Map<string, LoadFigures>> {
  const runs = new Map<string, LoadFigures[]>(sides.map((s) => [s.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = sides.map((_, i) => sides[(i + round) % sides.length]);
    for (const side of order) {
      const figures = await load(side.url, LOAD, idle);
      runs.get(side.name)!.push(figures);
      console.log(`  round ${round + 1}: ${side.name} ${figures.requestsPerSecond.toFixed(0)} req/s, p50 ${figures.p50} ms, ${figures.failures} failures (${machineLoad()})`);
    }
  }
  const out = new Map<string, LoadFigures>();
  for (const [name, list] of runs) {
    out.set(name, {
      requestsPerSecond: median(list.map((f) => f.requestsPerSecond)),
      p50: median(list.map((f) => f.p50)),
      p99: median(list.map((f) => f.p99)),
      requests: list.reduce((n, f) => n + f.requests, 0),
      failures: list.reduce((n, f) => n + f.failures, 0),
    });
  }
  return out;
}

async function main(): Promise<void> {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname }).toString().trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: __dirname }).toString().trim() !== '';
  const before = machineLoad();
  console.log(`bench:buckets at ${commit}${dirty ? ' (with uncommitted changes)' : ''}; machine: ${before}`);
  const pg = await startPostgres();
  let child: Child<ServeReady> | null = null;
  try {
    const creator = await startChild<ServeReady>('serve.ts', ['sql', pg.uri]);
    await creator.stop();
    await seedSql(pg.uri, SQL_DATASET);
    const client = new Client({ connectionString: pg.uri });
    await client.connect();
    try {
      // the seed gives every product one instant: spread them, 47 minutes apart from 2024-01-01 UTC
      await client.query(`UPDATE products SET created_at = timestamptz '2024-01-01 00:00:00+00' + id * interval '47 minutes'`);
      await client.query('ANALYZE products');
    } finally {
      await client.end();
    }
    child = await startChild<ServeReady>('serve.ts', ['sql', pg.uri]);
    const sides: Side[] = [
      { name: 'bucketed', url: `${child.ready.library}/api/v1/products/aggregate?${bucketedQuery}` },
      { name: 'plain', url: `${child.ready.library}/api/v1/products/aggregate?${plainQuery}` },
      { name: 'hand-written', url: `${child.ready.baseline}/aggregates/products-by-month?${baselineQuery}` },
    ];
    const [mine, plain, theirs] = await Promise.all(sides.map((s) => fetch(s.url).then((r) => r.json() as Promise<{ total: number }>)));
    expect(rounded(mine)).to.deep.equal(rounded(theirs));
    console.log(`answers checked equal: ${mine.total} months (library and hand-written), ${plain.total} status groups`);
    const figures = await measure(sides, child.idle);
    const after = machineLoad();
    const bucketed = figures.get('bucketed')!;
    const plainFigures = figures.get('plain')!;
    const base = figures.get('hand-written')!;
    const timeVsPlain = plainFigures.requestsPerSecond / bucketed.requestsPerSecond;
    const vsHand = bucketed.requestsPerSecond / base.requestsPerSecond;
    const rps = (f: LoadFigures): string => `${f.requestsPerSecond.toFixed(0)} req/s (p50 ${f.p50} ms)`;
    const section = [
      '',
      `## Aggregates over time (\`npm run bench:buckets\`, bench/buckets.ts), ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${commit}${dirty ? ' + uncommitted changes' : ''}`,
      '',
      `${SQL_DATASET.products.toLocaleString('en')} products (PostgreSQL, embedded; \`created_at\` spread 47 minutes apart from 2024-01-01), price >= 10, count and sum of the price, page of 100 groups: grouped by month in ${ZONE} (${mine.total} months), by \`status\` (${plain.total} groups), and the hand-written \`date_trunc('month', created_at, zone) ... GROUP BY\` handler; one server process, ${LOAD.connections} connections, ${SECONDS} s, median of ${ROUNDS} rounds in rotating order, read cache off. Machine load before: ${before}; after: ${after} (shared machine: other engineers' builds and tests were running).`,
      '',
      `Library month-bucketed: ${rps(bucketed)}; library plain group_by: ${rps(plainFigures)}; hand-written date_trunc: ${rps(base)}; failures ${bucketed.failures + plainFigures.failures + base.failures}.`,
      '',
      '| figure | ratio | aim | met |',
      '| --- | ---: | ---: | --- |',
      `| month-bucketed aggregate vs plain \`group_by\` (time per request) | ${timeVsPlain.toFixed(2)}x | <= 1.20x | ${timeVsPlain <= 1.2 ? 'met' : 'missed'} |`,
      `| month-bucketed aggregate vs hand-written \`date_trunc\` handler (requests/s) | ${vsHand.toFixed(2)}x | >= 0.90x | ${vsHand >= 0.9 ? 'met' : 'missed'} |`,
    ].join('\n');
    console.log(section);
    if (process.env.BENCH_WRITE !== '0') await appendFile(join(__dirname, 'RESULTS.md'), `${section}\n`);
  } finally {
    await child?.stop();
    await pg.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
