import { readdir, readFile } from 'node:fs/promises';
import autocannon from 'autocannon';
import { startPostgres } from '../lib/testing';
import { startChild, type Child } from './child';
import { SQL_DATASET } from './dataset';
import { seedSql } from './seed-sql';
import type { ServeReady } from './serve';

/**
 * `npx tsx bench/pgjson-ab.ts`: issue 36's fast path against the usual path and the hand-written
 * handler, in one run on one database: two server children (REST_JSON_READS=false in one), each
 * request loaded in short rounds whose order rotates, so a machine shared with other work spreads
 * its noise over every side. Per side: median req/s, the server process's own CPU (utime +
 * stime from /proc, not sampled) per request and PostgreSQL's (its processes, exited ones included). BENCH_ROUNDS (5), BENCH_SECONDS (5), BENCH_CONNECTIONS (10).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const LIST = new URLSearchParams({
  oper: JSON.stringify({ and: ['price|>=|10'], category: { and: ['name|like|Gadgets%'] } }),
  relations: 'category.parent,reviews',
  pagination: JSON.stringify({ page: 3, pageSize: 25 }),
}).toString();
const BASELINE_LIST = 'min_price=10&category_like=Gadgets%25&page=3&page_size=25';
const SHOW_ID = 4242;

/** CPU seconds (user + system) a process used so far; with `reaped`, also its exited children's. */
async function cpuOf(pid: number, reaped = false): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12]) + (reaped ? Number(fields[13]) + Number(fields[14]) : 0)) / 100;
}

/** The postmaster listening on `port` (`postgres -D … -p <port>`). */
async function postmasterOf(port: string): Promise<number> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const args = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (/postgres$/.test(args[0] ?? '') && args[args.indexOf('-p') + 1] === port) return Number(entry);
  }
  throw new Error(`no postmaster found on port ${port}`);
}

/** CPU seconds PostgreSQL used so far: the postmaster, its live processes and those that exited. */
async function postgresCpu(postmaster: number): Promise<number> {
  let total = await cpuOf(postmaster, true);
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (stat && Number(stat.split(') ')[1].split(' ')[1]) === postmaster) total += await cpuOf(Number(entry));
  }
  return total;
}

interface Side {
  name: string;
  url: string;
  child: Child<ServeReady>;
}

async function main(): Promise<void> {
  const pg = await startPostgres();
  const children: Child<ServeReady>[] = [];
  try {
    const creator = await startChild<ServeReady>('serve.ts', ['sql', pg.uri]);
    await creator.stop();
    await seedSql(pg.uri, SQL_DATASET);
    process.env.REST_JSON_READS = 'false';
    const usual = await startChild<ServeReady>('serve.ts', ['sql', pg.uri]);
    delete process.env.REST_JSON_READS;
    const fast = await startChild<ServeReady>('serve.ts', ['sql', pg.uri]);
    children.push(usual, fast);
    const requests: { label: string; sides: Side[] }[] = [
      { label: 'list', sides: [
        { name: 'library, JSON by PostgreSQL', url: `${fast.ready.library}/api/v1/products?${LIST}`, child: fast },
        { name: 'library, usual path', url: `${usual.ready.library}/api/v1/products?${LIST}`, child: usual },
        { name: 'hand-written pg', url: `${fast.ready.baseline}/products?${BASELINE_LIST}`, child: fast },
      ] },
      { label: 'show', sides: [
        { name: 'library, JSON by PostgreSQL', url: `${fast.ready.library}/api/v1/products/${SHOW_ID}?relations=category.parent,reviews`, child: fast },
        { name: 'library, usual path', url: `${usual.ready.library}/api/v1/products/${SHOW_ID}?relations=category.parent,reviews`, child: usual },
        { name: 'hand-written pg', url: `${fast.ready.baseline}/products/${SHOW_ID}`, child: fast },
      ] },
    ];
    const postmaster = await postmasterOf(new URL(pg.uri).port);
    const lines = ['| request | side | req/s (median) | server CPU ms per request (median) | PostgreSQL CPU ms per request (median) |', '| --- | --- | ---: | ---: | ---: |'];
    for (const { label, sides } of requests) {
      const answers = await Promise.all(sides.map(async (s) => JSON.stringify(await (await fetch(s.url)).json())));
      if (answers.some((a) => a !== answers[0])) throw new Error(`${label}: the sides answer differently`);
      for (const side of sides) await autocannon({ url: side.url, connections: CONNECTIONS, duration: 2 });
      const rps = new Map<string, number[]>(sides.map((s) => [s.name, []]));
      const cpu = new Map<string, number[]>(sides.map((s) => [s.name, []]));
      const dbCpu = new Map<string, number[]>(sides.map((s) => [s.name, []]));
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const side of sides.map((_, i) => sides[(i + round) % sides.length])) {
          await side.child.idle();
          const pid = side.child.process.pid as number;
          const [before, dbBefore] = [await cpuOf(pid), await postgresCpu(postmaster)];
          const r = await autocannon({ url: side.url, connections: CONNECTIONS, duration: SECONDS });
          await side.child.idle();
          const used = (await cpuOf(pid)) - before;
          const dbUsed = (await postgresCpu(postmaster)) - dbBefore;
          dbCpu.get(side.name)?.push((dbUsed * 1000) / r.requests.total);
          if (r.non2xx || r.errors) throw new Error(`${label} ${side.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
          rps.get(side.name)?.push(r.requests.average);
          cpu.get(side.name)?.push((used * 1000) / r.requests.total);
          console.error(`[ab] ${label} round ${round + 1}: ${side.name} ${r.requests.average.toFixed(0)} req/s, ${((used * 1000) / r.requests.total).toFixed(2)} ms CPU/request, PostgreSQL ${((dbUsed * 1000) / r.requests.total).toFixed(2)} ms`);
        }
      }
      const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      for (const side of sides) lines.push(`| ${label} | ${side.name} | ${median(rps.get(side.name) ?? []).toFixed(0)} | ${median(cpu.get(side.name) ?? []).toFixed(2)} | ${median(dbCpu.get(side.name) ?? []).toFixed(2)} |`);
    }
    console.log(lines.join('\n'));
  } finally {
    for (const child of children) await child.stop();
    await pg.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
