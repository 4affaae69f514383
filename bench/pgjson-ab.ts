import { readFile } from 'node:fs/promises';
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
 * its noise over every side. Per side: median req/s and the server process's own CPU (utime +
 * stime from /proc, not sampled) per request. BENCH_ROUNDS (5), BENCH_SECONDS (5), BENCH_CONNECTIONS (10).
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

/** CPU seconds (user + system) a process used so far. */
async function cpuOf(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
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
    const lines = ['| request | side | req/s (median) | server CPU ms per request (median) |', '| --- | --- | ---: | ---: |'];
    for (const { label, sides } of requests) {
      const answers = await Promise.all(sides.map(async (s) => JSON.stringify(await (await fetch(s.url)).json())));
      if (answers.some((a) => a !== answers[0])) throw new Error(`${label}: the sides answer differently`);
      for (const side of sides) await autocannon({ url: side.url, connections: CONNECTIONS, duration: 2 });
      const rps = new Map<string, number[]>(sides.map((s) => [s.name, []]));
      const cpu = new Map<string, number[]>(sides.map((s) => [s.name, []]));
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const side of sides.map((_, i) => sides[(i + round) % sides.length])) {
          await side.child.idle();
          const pid = side.child.process.pid as number;
          const before = await cpuOf(pid);
          const r = await autocannon({ url: side.url, connections: CONNECTIONS, duration: SECONDS });
          await side.child.idle();
          const used = (await cpuOf(pid)) - before;
          if (r.non2xx || r.errors) throw new Error(`${label} ${side.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
          rps.get(side.name)?.push(r.requests.average);
          cpu.get(side.name)?.push((used * 1000) / r.requests.total);
          console.error(`[ab] ${label} round ${round + 1}: ${side.name} ${r.requests.average.toFixed(0)} req/s, ${((used * 1000) / r.requests.total).toFixed(2)} ms CPU/request`);
        }
      }
      const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      for (const side of sides) lines.push(`| ${label} | ${side.name} | ${median(rps.get(side.name) ?? []).toFixed(0)} | ${median(cpu.get(side.name) ?? []).toFixed(2)} |`);
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
