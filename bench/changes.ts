/**
 * The change feed under load (`npm run bench:changes`): the example app (PostgreSQL by default,
 * BENCH_DRIVER=mongo for the emulator/mongod) in a child process, 1,000 open subscribers in this
 * one, 100 writes/s from a third. Reports p50/p99 from a write being sent to its event reaching a subscriber
 * (the write commits, the record is read once, the event is rendered and written to every stream),
 * the server's RSS per open stream, and the write's latency with and without subscribers.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TOKEN = 'bench-changes-admin';

type Message = { ready?: string; rss?: number; streams?: number };

async function serve(): Promise<void> {
  const { createExampleApp } = await import('../example-app/app');
  const driver = process.env.BENCH_DRIVER === 'mongo' ? 'mongo' : 'sql';
  const handle = driver === 'mongo' ? await (await import('../lib/testing/start-mongo')).startMongo() : await (await import('../lib/testing/start-postgres')).startPostgres();
  const db = driver === 'mongo' ? { mongoUri: handle.uri } : { postgresUri: handle.uri };
  const winston = (await import('winston')).default;
  const logger = winston.createLogger({ silent: true, transports: [new winston.transports.Console({ silent: true })] });
  const shop = await createExampleApp({ driver, ...db, adminToken: TOKEN, logger, apiOptions: { changes: { maxStreams: SUBSCRIBERS + 10, maxStreamsPerCaller: SUBSCRIBERS + 10 } } });
  await shop.reset();
  const server = http.createServer(shop.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
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
      process.send?.({ rss: process.memoryUsage().rss, streams: shop.api.changes.openStreams } satisfies Message);
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

/** Writes at RATE per second for `seconds`; answers each write's latency. Names carry their send time. */
async function writeLoad(base: string, seconds: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const total = seconds * RATE;
  const start = performance.now();
  for (let i = 0; i < total; i += 1) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const name = `w${i}@${clock().toFixed(3)}`;
    pending.push(write(base, agent, name).then((ms) => void latencies.push(ms)));
  }
  await Promise.all(pending);
  agent.destroy();
  return latencies;
}

function subscribe(base: string, agent: http.Agent, onEvent: (name: string) => void): Promise<http.ClientRequest> {
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
function writeIn(base: string, seconds: number): Promise<number[]> {
  const writer = fork(__filename, ['--write', base, String(seconds)], { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    writer.once('message', (m: { latencies: number[] }) => resolve(m.latencies));
    writer.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`writer exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  if (process.argv.includes('--serve')) return serve();
  const writing = process.argv.indexOf('--write');
  if (writing >= 0) {
    const latencies = await writeLoad(process.argv[writing + 1], Number(process.argv[writing + 2]));
    process.send?.({ latencies }, () => process.exit(0));
    return;
  }
  // BENCH_CPU_PROF=<dir>: the served process writes a CPU profile there (where the feed's time goes)
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = fork(__filename, ['--serve'], { execArgv: [...process.execArgv, '--expose-gc', ...profile], stdio: 'inherit' });
  const base = await new Promise<string>((resolve) => child.once('message', (m: Message) => resolve(m.ready!)));
  const results: string[] = [];
  // 1. writes with no stream ever opened: the feed records nothing
  const quiet = await writeIn(base, Math.max(3, SECONDS / 2));
  results.push(`write latency, no subscribers (resource never subscribed): p50 ${percentile(quiet, 50).toFixed(2)} ms, p99 ${percentile(quiet, 99).toFixed(2)} ms`);
  const before = await ask(child);
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const delivery: number[] = [];
  let received = 0;
  const requests: http.ClientRequest[] = [];
  for (let i = 0; i < SUBSCRIBERS; i += 1) {
    requests.push(await subscribe(base, agent, (name) => {
      const at = Number(name.slice(name.indexOf('@') + 1));
      received += 1;
      if (Number.isFinite(at)) delivery.push(clock() - at);
    }));
  }
  const after = await ask(child);
  results.push(`server RSS: ${(before.rss! / 1048576).toFixed(1)} MiB before, ${(after.rss! / 1048576).toFixed(1)} MiB with ${after.streams} streams: ${((after.rss! - before.rss!) / SUBSCRIBERS / 1024).toFixed(1)} KiB per subscriber`);
  const loaded = await writeIn(base, SECONDS);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  results.push(`write latency, ${SUBSCRIBERS} subscribers: p50 ${percentile(loaded, 50).toFixed(2)} ms, p99 ${percentile(loaded, 99).toFixed(2)} ms`);
  results.push(`write sent -> event delivered (${SECONDS * RATE} writes at ${RATE}/s, ${received} deliveries of ${SECONDS * RATE * SUBSCRIBERS} expected): p50 ${percentile(delivery, 50).toFixed(2)} ms, p99 ${percentile(delivery, 99).toFixed(2)} ms`);
  for (const req of requests) req.destroy();
  console.log(results.join('\n'));
  child.send({ ask: 'stop' });
  await new Promise((resolve) => child.once('exit', resolve));
  process.exit(0);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
