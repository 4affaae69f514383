import { execFileSync } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../lib/testing';
import { startPgBouncer } from '../lib/testing/start-pgbouncer';
import { startChild, type Child } from './child';
import { firstDifference } from './compare';
import { SQL_DATASET } from './dataset';
import { load, type LoadFigures, type LoadOptions } from './measure';
import { seedSql } from './seed-sql';
import type { ServeReady } from './serve';

/**
 * `npm run bench:pooler`: the example app's list and show straight to PostgreSQL and through a
 * stock PgBouncer 1.18 in `pool_mode = transaction` (pool of 5, the app's own pool size), in one
 * run on the embedded PostgreSQL with bench:peers' rows and requests. Same layout as bench:peers:
 * each app in a server child, the load generator here, PostgreSQL and PgBouncer in processes of
 * their own; each figure the median of BENCH_ROUNDS (default 3) rounds whose order alternates.
 * Both apps run DB_PREPARED_STATEMENTS=auto (the pooled one falls back to unnamed statements on
 * the pooler's first error, during the warm-up). Appends its section to bench/RESULTS.md.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const LOAD: LoadOptions = { connections: 10, seconds: SECONDS, warmupSeconds: 1 };
const AIM = 0.9;

const listQuery = new URLSearchParams({
  oper: JSON.stringify({ and: ['price|>=|10'], category: { and: ['name|like|Gadgets%'] } }),
  relations: 'category.parent,reviews',
  pagination: JSON.stringify({ page: 3, pageSize: 25 }),
}).toString();
const SHOW_ID = 4242;

const log = (message: string): void => console.error(`[pooler] ${message}`);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const loadNow = (): string => loadavg().map((l) => l.toFixed(2)).join(', ');

function serve(uri: string, prepared = 'auto'): Promise<Child<ServeReady>> {
  const saved = { ...process.env };
  Object.assign(process.env, { DB_PREPARED_STATEMENTS: prepared });
  try {
    return startChild<ServeReady>('serve.ts', ['sql', uri]);
  } finally {
    process.env = saved;
  }
}

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url} -> ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return res.json();
}

async function main(): Promise<void> {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const startLoad = loadNow();
  log(`commit ${commit}, load average at the start ${startLoad}`);
  const pg = await startPostgres();
  const pooler = await startPgBouncer(pg.uri, { poolSize: 5 });
  const lines: string[] = [];
  try {
    const creator = await serve(pg.uri);
    await creator.stop();
    await seedSql(pg.uri, SQL_DATASET);
    const direct = await serve(pg.uri);
    const pooled = await serve(pooler.uri);
    // where the difference comes from: the same direct connection with unnamed statements only
    const unnamed = await serve(pg.uri, 'off');
    try {
      const sides = [
        { name: 'direct', child: direct },
        { name: 'PgBouncer', child: pooled },
        { name: 'direct, unnamed', child: unnamed },
      ];
      const requests = [
        { figure: 'list: filter + relation filter + 2 eager relations, page 3 of 25', path: `/api/v1/products?${listQuery}` },
        { figure: 'show by id with 2 relations', path: `/api/v1/products/${SHOW_ID}?relations=category.parent,reviews` },
      ];
      const results: { figure: string; direct: LoadFigures; pooled: LoadFigures; unnamed: LoadFigures }[] = [];
      for (const request of requests) {
        const answers = await Promise.all(sides.map((s) => getJson(`${s.child.ready.library}${request.path}`)));
        for (const [i, answer] of answers.entries()) {
          const difference = firstDifference(answers[0], answer);
          if (difference) throw new Error(`${request.figure}: direct and ${sides[i].name} answer differently at ${difference}`);
        }
        const samples = new Map<string, LoadFigures[]>(sides.map((s) => [s.name, []]));
        for (let round = 0; round < ROUNDS; round += 1) {
          for (const side of sides.map((_, i) => sides[(i + round) % sides.length])) {
            const figures = await load(`${side.child.ready.library}${request.path}`, LOAD, side.child.idle);
            if (figures.failures) throw new Error(`${request.figure}: ${side.name} had ${figures.failures} failures`);
            samples.get(side.name)?.push(figures);
            log(`${request.figure} round ${round + 1}: ${side.name} ${figures.requestsPerSecond.toFixed(0)} req/s (load ${loadNow()})`);
          }
        }
        const pick = (name: string): LoadFigures => {
          const list = samples.get(name) ?? [];
          const rps = median(list.map((f) => f.requestsPerSecond));
          return list.find((f) => f.requestsPerSecond === rps) ?? list[0];
        };
        results.push({ figure: request.figure, direct: pick('direct'), pooled: pick('PgBouncer'), unnamed: pick('direct, unnamed') });
      }
      const endLoad = loadNow();
      lines.push(
        `## Behind PgBouncer (transaction mode) vs direct (commit ${commit})`,
        '',
        `\`npm run bench:pooler\`, ${new Date().toISOString().slice(0, 16)} UTC, commit ${commit}: the example app (sql, DB_PREPARED_STATEMENTS=auto) straight to the embedded PostgreSQL and through PgBouncer ${pgbouncerVersion()} in pool_mode = transaction (default_pool_size 5, the app's own pool size), bench:peers' rows and requests, ${LOAD.connections} connections for ${SECONDS} s per round, median of ${ROUNDS} rounds in rotating order; beside them the same direct connection with DB_PREPARED_STATEMENTS=off, to tell the pooler's hop from the cost of unnamed statements. 2 cores shared with other engineers' work: 1-min load average ${startLoad.split(', ')[0]} at the start, ${endLoad.split(', ')[0]} at the end.`,
        '',
        '| figure | direct req/s (p50 ms) | behind PgBouncer req/s (p50 ms) | direct, unnamed req/s (p50 ms) | ratio | aim | met |',
        '| --- | --- | --- | --- | --- | --- | --- |',
      );
      for (const r of results) {
        const ratio = r.pooled.requestsPerSecond / r.direct.requestsPerSecond;
        lines.push(`| ${r.figure} | ${r.direct.requestsPerSecond.toFixed(0)} (${r.direct.p50}) | ${r.pooled.requestsPerSecond.toFixed(0)} (${r.pooled.p50}) | ${r.unnamed.requestsPerSecond.toFixed(0)} (${r.unnamed.p50}) | ${ratio.toFixed(2)}x | >= ${AIM.toFixed(2)}x | ${ratio >= AIM ? 'met' : 'missed'} |`);
      }
    } finally {
      await Promise.all([direct.stop(), pooled.stop(), unnamed.stop()]);
    }
  } finally {
    await pooler.stop();
    await pg.stop();
  }
  const section = lines.join('\n');
  console.log(section);
  if (process.env.BENCH_WRITE === '0') return;
  await appendFile(join(__dirname, 'RESULTS.md'), `\n${section}\n`);
}

function pgbouncerVersion(): string {
  try {
    return /PgBouncer ([0-9.]+)/.exec(execFileSync('pgbouncer', ['--version'], { encoding: 'utf8' }))?.[1] ?? '?';
  } catch {
    return '?';
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
