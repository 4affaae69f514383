/**
 * The change feed under load (`npm run bench:changes`): the example app (PostgreSQL by default,
 * BENCH_DRIVER=mongo for the emulator/mongod) in a child process, the subscribers in this one,
 * the writes from a third. First issue 51's row: 1,000 subscribers, 100 writes/s for
 * BENCH_SECONDS (p50/p99 from a write being sent to its event reaching a subscriber, the server's
 * RSS per open stream, the write's latency with and without subscribers). Then, for 100, 1,000 and
 * 5,000 subscribers (BENCH_COUNTS), the highest write rate of BENCH_RATES at which delivery p99
 * stays under 100 ms, with the write latency with and without subscribers at that rate (issue
 * 52). Ends with a markdown table: figure, value, ratio, aim, met or missed.
 */
import os from 'node:os';
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const COUNTS = (process.env.BENCH_COUNTS ?? '100,1000,5000').split(',').map(Number);
const RATES = (process.env.BENCH_RATES ?? '25,50,100,200,400').split(',').map(Number);
const STEP_SECONDS = Number(process.env.BENCH_STEP_SECONDS ?? 4);
/** The main figure's rounds (BENCH_ROUNDS): with and without streams, alternating. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MAX_STREAMS = Math.max(SUBSCRIBERS, ...COUNTS) + 10;
const TOKEN = 'bench-changes-admin';

type Stats = { sheds: number; streamsReset: number; openStreams: number };
/** `loop`: the server's event-loop delay since the last ask (p50/p99 ms): how long a ready callback, a write's included, waited for the loop. */
type Message = {
  ready?: string;
  rss?: number;
  heap?: number;
  streams?: number;
  stats?: Stats;
  loop?: { p50: number; p99: number };
  /** POST answers since the last ask, timed inside the server. */
  writes?: { p50: number; count: number };
  /** The feed's write cycles so far, and the CPU they took. */
  cycles?: { count: number; busyMs: number };
};

async function serve(): Promise<void> {
  const { createExampleApp } = await import('../example-app/app');
  const driver = process.env.BENCH_DRIVER === 'mongo' ? 'mongo' : 'sql';
  const handle = driver === 'mongo' ? await (await import('../lib/testing/start-mongo')).startMongo() : await (await import('../lib/testing/start-postgres')).startPostgres();
  const db = driver === 'mongo' ? { mongoUri: handle.uri } : { postgresUri: handle.uri };
  const winston = (await import('winston')).default;
  const logger = winston.createLogger({ silent: true, transports: [new winston.transports.Console({ silent: true })] });
  const shop = await createExampleApp({ driver, ...db, adminToken: TOKEN, logger, apiOptions: { changes: { maxStreams: MAX_STREAMS, maxStreamsPerCaller: MAX_STREAMS } } });
  await shop.reset();
  // each write's time inside the server (request in to answer out), beside the writer's own figure:
  // the difference is time the request spent outside this process (the machine's other work)
  let inServer: number[] = [];
  // absent before issue 52 (the same bench measures older code for before/after figures)
  const flushCycle = await import('../lib/changes/flush-cycle' as string).then((m: { flushCycle: { cycles: number; busyMs: number } }) => m.flushCycle, () => ({ cycles: 0, busyMs: 0 }));
  const server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      const started = performance.now();
      res.on('finish', () => inServer.push(performance.now() - started));
    }
    shop.app(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  process.on('message', (m: { ask?: string }) => {
    if (m.ask === 'stop') {
      // streams, app and database closed before the process ends (no orphaned database server)
      server.closeAllConnections();
      server.close();
      void shop.close().then(() => handle.stop()).finally(() => process.exit(0));
      return;
    }
    if (m.ask === 'rss') {
      global.gc?.();
      const loop = { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6 };
      delay.reset();
      const writes = { p50: percentile(inServer, 50), count: inServer.length };
      inServer = [];
      const cycles = { count: flushCycle.cycles, busyMs: flushCycle.busyMs };
      process.send?.({ loop, writes, cycles, heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss, streams: shop.api.changes.openStreams, stats: (shop.api.changes as { stats?: () => Stats }).stats?.() ?? { sheds: 0, streamsReset: 0, openStreams: 0 } } satisfies Message);
    }
  });
  process.send?.({ ready: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1` } satisfies Message);
}

function ask(child: ChildProcess): Promise<Message> {
  return new Promise((resolve) => {
    child.once('message', (m: Message) => resolve(m));
    child.send({ ask: 'rss' });
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

async function write(base: string, agent: http.Agent, name: string): Promise<number> {
  const started = performance.now();
  const body = JSON.stringify({ name, sku: `${name}-${Math.random()}`, price: 1 });
  await new Promise<void>((resolve, reject) => {
    const req = http.request(`${base}/products`, { method: 'POST', agent, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`write answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
  return performance.now() - started;
}

/** The machine's clock in ms with a fraction, the same in every process (send -> delivery spans two). */
const clock = () => performance.timeOrigin + performance.now();

/** Writes at `rate` per second for `seconds`; answers each write's latency. Names carry their send time. */
async function writeLoad(base: string, seconds: number, rate: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const total = seconds * rate;
  const start = performance.now();
  for (let i = 0; i < total; i += 1) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const name = `w${i}@${clock().toFixed(3)}`;
    pending.push(write(base, agent, name).then((ms) => void latencies.push(ms)));
  }
  await Promise.all(pending);
  agent.destroy();
  return latencies;
}

function subscribe(base: string, agent: http.Agent, onEvent: (name: string) => void, onReset: () => void): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/products/changes?select=name`, { agent, headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`subscribe answered ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const at = frame.indexOf('"name":"');
          if (at >= 0) onEvent(frame.slice(at + 8, frame.indexOf('"', at + 8)));
          else if (frame.includes('event: reset')) onReset();
        }
      });
      resolve(req);
    });
    req.on('error', reject);
  });
}

/**
 * The writes, from a process of their own: in the process that parses the 1,000 streams, each
 * write's answer waited for that process's event loop, so the parsing counted as write latency.
 */
function writeIn(base: string, seconds: number, rate = RATE): Promise<number[]> {
  const writer = fork(__filename, ['--write', base, String(seconds), String(rate)], { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    writer.once('message', (m: { latencies: number[] }) => resolve(m.latencies));
    writer.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`writer exited with ${code}`))));
  });
}

/** The subscribers this process holds, and what they received since the last `take()`. */
class Audience {
  private readonly requests: http.ClientRequest[] = [];
  private readonly agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  delivery: number[] = [];
  received = 0;
  resets = 0;

  constructor(private readonly base: string) {}

  get size(): number {
    return this.requests.length;
  }

  /** Opens or closes streams until `n` are open (opened 50 at a time). */
  async resize(n: number): Promise<void> {
    while (this.requests.length > n) this.requests.pop()!.destroy();
    while (this.requests.length < n) {
      const batch = Math.min(50, n - this.requests.length);
      const opened = await Promise.all(Array.from({ length: batch }, () => subscribe(this.base, this.agent, (name) => this.event(name), () => (this.resets += 1))));
      this.requests.push(...opened);
    }
  }

  private event(name: string): void {
    const at = Number(name.slice(name.indexOf('@') + 1));
    this.received += 1;
    if (Number.isFinite(at)) this.delivery.push(clock() - at);
  }

  take(): { delivery: number[]; received: number; resets: number } {
    const out = { delivery: this.delivery, received: this.received, resets: this.resets };
    this.delivery = [];
    this.received = 0;
    this.resets = 0;
    return out;
  }
}

interface Step {
  rate: number;
  writeP50: number;
  deliveryP99: number;
  received: number;
  expected: number;
  resets: number;
}

const ms = (x: number) => `${x.toFixed(1)} ms`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const row = (figure: string, value: string, ratio: string, aim: string, met: boolean | null) => `| ${figure} | ${value} | ${ratio} | ${aim} | ${met === null ? 'stated' : met ? 'met' : 'missed'} |`;

async function main(): Promise<void> {
  if (process.argv.includes('--serve')) return serve();
  const writing = process.argv.indexOf('--write');
  if (writing >= 0) {
    const latencies = await writeLoad(process.argv[writing + 1], Number(process.argv[writing + 2]), Number(process.argv[writing + 3]));
    process.send?.({ latencies }, () => process.exit(0));
    return;
  }
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  // BENCH_CPU_PROF=<dir>: the served process writes a CPU profile there (where the feed's time goes)
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = fork(__filename, ['--serve'], { execArgv: [...process.execArgv, '--expose-gc', ...profile], stdio: 'inherit' });
  const base = await new Promise<string>((resolve) => child.once('message', (m: Message) => resolve(m.ready!)));
  const results: string[] = [`load average at start: ${load} (${os.cpus().length} cores)`];
  // 1. writes with no stream ever opened (the feed records nothing): the main rate, then each rate of the ladder
  await ask(child);
  const quiet = await writeIn(base, Math.max(3, SECONDS / 2));
  const quietAsk = await ask(child);
  const quietLoop = quietAsk.loop!;
  results.push(`write latency, no subscribers (resource never subscribed), ${RATE}/s: p50 ${percentile(quiet, 50).toFixed(2)} ms, p99 ${percentile(quiet, 99).toFixed(2)} ms; server event-loop delay p50 ${quietLoop.p50.toFixed(1)} ms, p99 ${quietLoop.p99.toFixed(1)} ms`);
  const quietAt = new Map<number, number>();
  for (const rate of RATES) quietAt.set(rate, percentile(await writeIn(base, STEP_SECONDS, rate), 50));
  results.push(`write p50 without subscribers by rate: ${RATES.map((r) => `${r}/s ${quietAt.get(r)!.toFixed(2)} ms`).join(', ')}`);
  const audience = new Audience(base);
  // the resource live (a stream opened once, now closed): each write also reads its record back
  // once after the commit and publishes it, with nobody to hand it to; what is left is the fan-out's
  await audience.resize(1);
  await audience.resize(0);
  await ask(child);
  const live = await writeIn(base, STEP_SECONDS);
  const liveAsk = await ask(child);
  results.push(`write latency, resource live but no stream open, ${RATE}/s: p50 ${percentile(live, 50).toFixed(2)} ms, p99 ${percentile(live, 99).toFixed(2)} ms (inside the server p50 ${liveAsk.writes!.p50.toFixed(2)} ms)`);
  // 2. issue 51's row: SUBSCRIBERS streams, RATE writes/s for SECONDS
  const before = await ask(child);
  await audience.resize(SUBSCRIBERS);
  const after = await ask(child);
  const perStream = (after.rss! - before.rss!) / SUBSCRIBERS / 1024;
  results.push(`server RSS: ${(before.rss! / 1048576).toFixed(1)} MiB before, ${(after.rss! / 1048576).toFixed(1)} MiB with ${after.streams} streams: ${perStream.toFixed(1)} KiB per subscriber`);
  // in ROUNDS rounds, each a stretch with no stream open then one with SUBSCRIBERS open, side by
  // side: the machine's state moved a single unsubscribed figure taken at the start by 1.2-2.1 ms
  // between runs, more than the effect measured
  const loaded: number[] = [];
  const rounds: Array<{ without: number; with: number }> = [];
  let delivered = { delivery: [] as number[], received: 0, resets: 0 };
  for (let round = 0; round < ROUNDS; round += 1) {
    await audience.resize(0);
    const without = await writeIn(base, STEP_SECONDS);
    await audience.resize(SUBSCRIBERS);
    await ask(child);
    audience.take();
    const withSubscribers = await writeIn(base, SECONDS / ROUNDS);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const got = audience.take();
    delivered = { delivery: [...delivered.delivery, ...got.delivery], received: delivered.received + got.received, resets: delivered.resets + got.resets };
    loaded.push(...withSubscribers);
    rounds.push({ without: percentile(without, 50), with: percentile(withSubscribers, 50) });
    console.error(`[changes] round ${round + 1}: write p50 ${ms(rounds[round].with)} with ${SUBSCRIBERS} subscribers, ${ms(rounds[round].without)} with no stream open`);
  }
  const main = delivered;
  const afterLoad = await ask(child);
  const roundRatio = median(rounds.map((r) => r.with / r.without));
  results.push(`write p50 by round, with ${SUBSCRIBERS} subscribers vs no stream open: ${rounds.map((r) => `${ms(r.with)} vs ${ms(r.without)}`).join(', ')}`);
  results.push(`write latency, ${SUBSCRIBERS} subscribers: p50 ${percentile(loaded, 50).toFixed(2)} ms, p99 ${percentile(loaded, 99).toFixed(2)} ms`);
  results.push(`write sent -> event delivered (${loaded.length} writes at ${RATE}/s, ${main.received} deliveries of ${loaded.length * SUBSCRIBERS} expected, ${main.resets} resets): p50 ${percentile(main.delivery, 50).toFixed(2)} ms, p99 ${percentile(main.delivery, 99).toFixed(2)} ms`);
  results.push(`server event-loop delay during the run: p50 ${afterLoad.loop!.p50.toFixed(1)} ms, p99 ${afterLoad.loop!.p99.toFixed(1)} ms; a write inside the server: p50 ${afterLoad.writes!.p50.toFixed(2)} ms (without subscribers ${quietAsk.writes!.p50.toFixed(2)} ms); feed: ${afterLoad.cycles!.count - after.cycles!.count} write cycles taking ${(afterLoad.cycles!.busyMs - after.cycles!.busyMs).toFixed(0)} ms of CPU over the rounds`);
  results.push(`server RSS after the run: ${(afterLoad.rss! / 1048576).toFixed(1)} MiB; feed shed ${afterLoad.stats!.sheds} times (${afterLoad.stats!.streamsReset} streams reset)`);
  // 3. issue 52: the highest rate at which delivery p99 stays under 100 ms, per number of subscribers
  /** `steps` more steps of writes at `rate` with `count` streams open; the server's RSS after them. */
  const sustain = async (at: string, count: number, rate: number, steps: number): Promise<number> => {
    for (let i = 0; i < steps; i += 1) {
      audience.take();
      await writeIn(at, STEP_SECONDS, rate);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      audience.take();
    }
    const rss = (await ask(child)).rss!;
    console.error(`[changes] ${count} subscribers, ${steps} more step(s) at ${rate}/s: server RSS ${(rss / 1048576).toFixed(1)} MiB`);
    return rss;
  };
  const capacity = new Map<number, { best: Step | null; steps: Step[]; rssPerStream: number; heapPerStream: number; rssOpen: number; rssAfter: number }>();
  for (const count of COUNTS) {
    const idle = await ask(child);
    await audience.resize(count);
    const open = await ask(child);
    // what the streams opened at this step added (the heap after a collection is steadier than RSS, which V8 grows in chunks)
    const opened = count - (idle.streams ?? 0);
    const rssPerStream = opened > 0 ? (open.rss! - idle.rss!) / opened / 1024 : NaN;
    const heapPerStream = opened > 0 ? (open.heap! - idle.heap!) / opened / 1024 : NaN;
    const steps: Step[] = [];
    let best: Step | null = null;
    for (const rate of RATES) {
      audience.take();
      const latencies = await writeIn(base, STEP_SECONDS, rate);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const got = audience.take();
      const step: Step = { rate, writeP50: percentile(latencies, 50), deliveryP99: percentile(got.delivery, 99), received: got.received, expected: latencies.length * count, resets: got.resets };
      steps.push(step);
      console.error(`[changes] ${count} subscribers, ${rate}/s: write p50 ${ms(step.writeP50)}, delivery p99 ${ms(step.deliveryP99)}, ${step.received}/${step.expected} delivered, ${step.resets} resets`);
      if (!(step.deliveryP99 < 100) || step.resets > 0) break;
      best = step;
    }
    // sustained writes at the ladder's first rate: the server's RSS after one more step and after
    // three more must not keep growing (bounded buffers); the first step's growth is V8 taking its
    // working heap, not a backlog
    const rssAfterOne = await sustain(base, count, RATES[0], 1);
    const rssAfter = await sustain(base, count, RATES[0], 2);
    capacity.set(count, { best, steps, rssPerStream, heapPerStream, rssOpen: rssAfterOne, rssAfter });
    results.push(`${count} subscribers (server RSS ${(idle.rss! / 1048576).toFixed(1)} -> ${(open.rss! / 1048576).toFixed(1)} MiB, ${opened > 0 ? `${rssPerStream.toFixed(1)} KiB RSS and ${heapPerStream.toFixed(1)} KiB heap per stream opened` : 'none opened'}): ${steps.map((s) => `${s.rate}/s write p50 ${ms(s.writeP50)} (${ms(quietAt.get(s.rate)!)} without), delivery p99 ${ms(s.deliveryP99)}, ${s.received}/${s.expected} delivered, ${s.resets} resets`).join('; ')}`);
  }
  const final = await ask(child);
  results.push(`feed shed load ${final.stats!.sheds} times in the whole run (${final.stats!.streamsReset} streams reset)`);
  await audience.resize(0);
  // the table (issue 51's shape)
  const quietP50 = percentile(quiet, 50);
  const table = ['', '| figure | value | ratio | aim | met |', '| --- | --- | ---: | --- | --- |'];
  table.push(row(`write p50, ${SUBSCRIBERS} subscribers at ${RATE}/s vs no stream open (median of ${ROUNDS} alternating rounds)`, rounds.map((r) => `${ms(r.with)} vs ${ms(r.without)}`).join('; '), `${roundRatio.toFixed(2)}x`, '<= 1.5x', roundRatio <= 1.5));
  table.push(row(`write p50, ${SUBSCRIBERS} subscribers at ${RATE}/s vs never subscribed (taken at the start)`, `${ms(percentile(loaded, 50))} vs ${ms(quietP50)}`, `${(percentile(loaded, 50) / quietP50).toFixed(2)}x`, 'informative', null));
  table.push(row(`delivery p99, ${SUBSCRIBERS} subscribers at ${RATE}/s`, `${ms(percentile(main.delivery, 99))} (${main.received} of ${loaded.length * SUBSCRIBERS}, ${main.resets} resets)`, '', '< 100 ms', percentile(main.delivery, 99) < 100));
  // per stream opened: the two largest steps that opened streams (100 -> 1,000 and 1,000 -> 5,000 by default)
  const opening = [...capacity].filter(([, c]) => Number.isFinite(c.rssPerStream)).slice(-2);
  if (opening.length === 2) {
    const [[lowCount, low], [highCount, high]] = opening;
    table.push(row(`server RSS per stream opened, up to ${lowCount} vs up to ${highCount} subscribers`, `${low.rssPerStream.toFixed(1)} vs ${high.rssPerStream.toFixed(1)} KiB`, `${(high.rssPerStream / low.rssPerStream).toFixed(2)}x`, 'flat (<= 1.5x)', high.rssPerStream > 0 && high.rssPerStream <= 1.5 * Math.max(low.rssPerStream, 1)));
    table.push(row(`server heap per stream opened (after a collection), up to ${lowCount} vs up to ${highCount} subscribers`, `${low.heapPerStream.toFixed(1)} vs ${high.heapPerStream.toFixed(1)} KiB`, `${(high.heapPerStream / low.heapPerStream).toFixed(2)}x`, 'flat (<= 1.5x)', high.heapPerStream <= 1.5 * low.heapPerStream));
  }
  const largest = [...capacity].at(-1);
  if (largest) {
    const [count, { rssOpen, rssAfter, steps }] = largest;
    table.push(row(`server RSS with ${count} subscribers writing ${RATES[0]}/s on: after ${STEP_SECONDS} s more vs after ${3 * STEP_SECONDS} s more`, `${(rssOpen / 1048576).toFixed(1)} vs ${(rssAfter / 1048576).toFixed(1)} MiB`, `${(rssAfter / rssOpen).toFixed(2)}x`, 'flat (<= 1.1x)', rssAfter <= 1.1 * rssOpen));
  }
  for (const [count, { best, steps }] of capacity) {
    const first = steps[0];
    if (best) table.push(row(`highest rate with delivery p99 < 100 ms, ${count} subscribers`, `${best.rate}/s (of ${RATES.join(', ')}): write p50 ${ms(best.writeP50)} vs ${ms(quietAt.get(best.rate)!)} without`, `${(best.writeP50 / quietAt.get(best.rate)!).toFixed(2)}x`, 'stated', null));
    else table.push(row(`highest rate with delivery p99 < 100 ms, ${count} subscribers`, `below ${first.rate}/s: at ${first.rate}/s delivery p99 ${ms(first.deliveryP99)}, ${first.resets} resets, write p50 ${ms(first.writeP50)} vs ${ms(quietAt.get(first.rate)!)} without`, `${(first.writeP50 / quietAt.get(first.rate)!).toFixed(2)}x`, 'stated; write p50 <= 2x when shedding', first.writeP50 <= 2 * quietAt.get(first.rate)!));
  }
  console.log([...results, ...table].join('\n'));
  child.send({ ask: 'stop' });
  await new Promise((resolve) => child.once('exit', resolve));
  process.exit(0);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
