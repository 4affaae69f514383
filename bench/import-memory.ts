import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { once } from 'node:events';
import { cpus, loadavg } from 'node:os';

import { Readable } from 'node:stream';
import { startPostgres } from '../lib/testing';
import { startChild, type Child } from './child';

/**
 * `npm run bench:import-memory`: where an import's server memory goes. A CSV of BENCH_IMPORT_ROWS
 * (default 300,000, the hidden suite's size) products, generated as it is sent, imported with
 * `on_error=skip` into the example app on embedded PostgreSQL, the server in a process of its own
 * (as bench:import). Sampled: RSS from /proc every 50 ms, and the server's own
 * `process.memoryUsage()` (heap used and committed, external, array buffers) every 250 ms; after
 * the import, the same after a full collection when the server runs with --expose-gc (what the
 * import left behind). BENCH_SERVER_FLAGS: node flags of the server (e.g. `--expose-gc`,
 * `--max-semi-space-size=4`). BENCH_PROFILE_PROMOTED=<file>: a sampling heap profile of what
 * outlived the young generation during the import (child.ts); BENCH_IMPORT_FILE=1: the CSV
 * written to a file first and sent from it, as bench:import does; BENCH_PROFILE_ALLOCATED=<file>: of
 * every allocation, collected or not (where the garbage comes from); BENCH_PROFILE_CPU=<file>: a CPU
 * profile of the import. Prints one line per figure.
 */
const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 300_000);
const MB = 1048576;
const log = (message: string): void => console.error(`[import-memory] ${message}`);

function csvStream(rows: number): ReadableStream<Uint8Array> {
  let i = 0;
  const source = new Readable({
    read() {
      if (i === 0) this.push('name,sku,price,stock,status,description,featured\n');
      const lines: string[] = [];
      for (let n = 0; n < 2000 && i < rows; n += 1, i += 1) {
        lines.push(`Imported product ${i},IMP-${i},${(i % 997) + 0.5},${i % 100},${i % 3 ? 'active' : 'draft'},${i % 2 ? '' : `"Description of product ${i}, with a comma"`},${i % 5 ? 'false' : 'true'}`);
      }
      if (lines.length > 0) this.push(lines.join('\n') + '\n');
      if (i >= rows) this.push(null);
    },
  });
  return Readable.toWeb(source) as ReadableStream<Uint8Array>;
}

function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

type Sample = NodeJS.MemoryUsage & { spaces: Record<string, number> };

function memoryOf(server: Child<unknown>, message: 'memory?' | 'gc-memory?'): Promise<Sample> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if (!m || typeof m !== 'object' || !('memory' in m)) return;
      server.process.off('message', on);
      const { memory, spaces } = m as { memory: NodeJS.MemoryUsage; spaces: Record<string, number> };
      resolve({ ...memory, spaces });
    };
    server.process.on('message', on);
    server.process.send(message);
  });
}

function profiled(server: Child<unknown>, command: object, answer: string): Promise<void> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if (!m || typeof m !== 'object' || !(answer in m)) return;
      server.process.off('message', on);
      resolve();
    };
    server.process.on('message', on);
    server.process.send(command);
  });
}

/** BENCH_IMPORT_FILE=1: the CSV written to a file first and sent from it (as bench:import sends it). */
async function fileBody(dir: string): Promise<ReadableStream<Uint8Array>> {
  const path = join(dir, 'products.csv');
  const out = createWriteStream(path);
  for await (const chunk of Readable.fromWeb(csvStream(ROWS) as never)) if (!out.write(chunk)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
  return Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'grr-import-memory-'));
  const db = await startPostgres();
  const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
  const server = await startChild<{ port: number; token: string }>('import-server.ts', [db.uri], flags);
  const pid = server.process.pid!;
  const base = `http://127.0.0.1:${server.ready.port}/api/v1`;
  const loads = [loadavg()[0]];
  try {
    // one small import first: the parser, the schema and the statements are loaded and compiled before the baseline
    const warm = await fetch(`${base}/products/import?on_error=skip`, { method: 'POST', headers: { authorization: `Bearer ${server.ready.token}`, 'content-type': 'text/csv' }, body: 'name,sku,price\nWarm,WARM-1,1\n' });
    if (!warm.ok) throw new Error(`warm-up import -> ${warm.status}: ${await warm.text()}`);
    const idle = await memoryOf(server, 'gc-memory?');
    const baseline = rssOf(pid);
    const peak = { rss: baseline, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0, spaces: {} as Record<string, number> };
    const rssTimer = setInterval(() => (peak.rss = Math.max(peak.rss, rssOf(pid))), 50);
    const heapTimer = setInterval(() => {
      void memoryOf(server, 'memory?').then((m) => {
        peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
        peak.heapTotal = Math.max(peak.heapTotal, m.heapTotal);
        peak.external = Math.max(peak.external, m.external);
        peak.arrayBuffers = Math.max(peak.arrayBuffers, m.arrayBuffers);
        for (const [space, size] of Object.entries(m.spaces)) peak.spaces[space] = Math.max(peak.spaces[space] ?? 0, size);
      });
    }, 250);
    const profile = process.env.BENCH_PROFILE_PROMOTED ?? process.env.BENCH_PROFILE_ALLOCATED ?? process.env.BENCH_PROFILE_CPU;
    const kind = process.env.BENCH_PROFILE_PROMOTED ? 'start-promoted' : process.env.BENCH_PROFILE_ALLOCATED ? 'start-heap' : 'start';
    if (profile) await profiled(server, { profile: kind }, 'profiling');
    const started = performance.now();
    let answer: { created?: number };
    try {
      const body = process.env.BENCH_IMPORT_FILE ? await fileBody(dir) : csvStream(ROWS);
      const res = await fetch(`${base}/products/import?on_error=skip`, { method: 'POST', headers: { authorization: `Bearer ${server.ready.token}`, 'content-type': 'text/csv' }, body, duplex: 'half' } as RequestInit);
      answer = (await res.json()) as { created?: number };
      if (!res.ok || answer.created !== ROWS) throw new Error(`import -> ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
    } finally {
      clearInterval(rssTimer);
      clearInterval(heapTimer);
    }
    const seconds = (performance.now() - started) / 1000;
    if (profile) await profiled(server, { profile }, 'profiled');
    loads.push(loadavg()[0]);
    const after = await memoryOf(server, 'gc-memory?');
    const mb = (n: number) => `${(n / MB).toFixed(0)} MB`;
    console.log([
      `${ROWS} rows in ${seconds.toFixed(1)} s (${Math.round(ROWS / seconds)} rows/s); server flags: ${flags.join(' ') || 'none'}; load (1 min) ${loads.map((l) => l.toFixed(2)).join(' -> ')} on ${cpus().length} cores`,
      `RSS: ${mb(baseline)} before -> peak ${mb(peak.rss)} (+${mb(peak.rss - baseline)})`,
      `heap used: ${mb(idle.heapUsed)} idle -> peak ${mb(peak.heapUsed)}; heap committed: ${mb(idle.heapTotal)} -> peak ${mb(peak.heapTotal)}`,
      `external: peak ${mb(peak.external)}; array buffers: peak ${mb(peak.arrayBuffers)}`,
      `V8 spaces committed, idle -> peak: ${Object.keys(peak.spaces).filter((s) => peak.spaces[s] >= MB).map((s) => `${s} ${mb(idle.spaces[s] ?? 0)} -> ${mb(peak.spaces[s])}`).join(', ')}`,
      `after the import${flags.includes('--expose-gc') ? ' and a full collection' : ''}: heap used ${mb(after.heapUsed)}, committed ${mb(after.heapTotal)}, RSS ${mb(after.rss)}`,
    ].join('\n'));
  } finally {
    await server.stop();
    await db.stop();
    await rm(dir, { recursive: true, force: true });
  }
  process.exit(0);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
