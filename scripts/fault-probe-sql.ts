import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../lib/testing/free-port';
import { startCluster } from '../lib/testing/postgres-cluster';
import { startRedisProcess } from '../test/support/redis-process';
import { recovery, startProbe, violations, type ProbeAnswer } from '../test/support/fault-probe';

/**
 * `npx tsx scripts/fault-probe-sql.ts`: issue 35's fault check by hand. Two example-app servers
 * (example-app/server.ts as child processes, default settings, read cache on Redis) on one
 * PostgreSQL of their own; a list, a write and /health every 500 ms on both while PostgreSQL is
 * stalled (SIGSTOP of every postgres process, STALL_SECONDS, 20) and killed (SIGKILL of the
 * postmaster, restarted on its port after 5 s), then Redis stalled and killed. Prints, per fault,
 * the answers by status, the slowest, what breaks the rule (200 or 503 within 12 s) and the first
 * 200 after the database's return (must be within 5 s).
 */
const STALL_MS = Number(process.env.STALL_SECONDS ?? 20) * 1000;
const MAX_MS = 12_000;
const TOKEN = `probe-${process.pid}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function pids(dataDir: string): { postmaster: number; all: number[] } {
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = spawnSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
  return { postmaster, all: [postmaster, ...children] };
}

async function reachable(port: number): Promise<boolean> {
  const client = new Client({ host: '127.0.0.1', port, user: 'postgres', password: 'password', database: 'postgres', connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    await client.end().catch(() => undefined);
    return false;
  }
}

async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, '../example-app/server.ts')], {
    env: { ...process.env, ...env, PORT: String(port), DB_DRIVER: 'sql', EXAMPLE_ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'error', EXAMPLE_SEED: '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i += 1) {
    if (await fetch(`${base}/api/v1/health`).then((r) => r.ok, () => false)) return { child, base };
    await sleep(200);
  }
  throw new Error('example server did not start');
}

function report(name: string, answers: ProbeAnswer[], back: number): boolean {
  const byStatus = new Map<string, number>();
  for (const a of answers) byStatus.set(`${a.what} ${a.status}${a.type ? ` ${a.type}` : ''}`, (byStatus.get(`${a.what} ${a.status}${a.type ? ` ${a.type}` : ''}`) ?? 0) + 1);
  const bad = violations(answers, MAX_MS);
  const slowest = Math.max(...answers.map((a) => a.ms));
  const { list, write } = recovery(answers, back);
  const ok = bad.length === 0 && list < 5000 && write < 5000;
  console.log(`\n${name}: ${ok ? 'PASS' : 'FAIL'}`);
  console.log(`  answers: ${[...byStatus.entries()].sort().map(([k, n]) => `${k}: ${n}`).join(', ')}`);
  console.log(`  slowest ${slowest} ms; first 200 after the return: list ${list} ms, write ${write} ms`);
  if (bad.length) console.log(`  breaking the rule: ${bad.slice(0, 10).join('; ')}${bad.length > 10 ? ` (+${bad.length - 10})` : ''}`);
  return ok;
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'grr-probe-'));
  const pgPort = await freePort();
  const cluster = await startCluster(root, pgPort, 'password', []);
  const redis = await startRedisProcess();
  const env = { DATABASE_URL: `postgres://postgres:password@127.0.0.1:${pgPort}/postgres`, REST_CACHE_ENABLED: 'true', REST_CACHE_STORE: 'redis', REDIS_URL: redis.url };
  const servers = [await startServer(env), await startServer(env)];
  let restarted: ChildProcess | null = null;
  const results: boolean[] = [];
  const probeBoth = () => servers.map((s) => startProbe(s.base, TOKEN, 500));
  const stopBoth = async (probes: ReturnType<typeof probeBoth>) => (await Promise.all(probes.map((p) => p.stop()))).flat();
  try {
    // PostgreSQL stalled
    let probes = probeBoth();
    await sleep(1000);
    const stalled = pids(join(root, 'data')).all;
    for (const pid of stalled) process.kill(pid, 'SIGSTOP');
    await sleep(STALL_MS);
    for (const pid of stalled) process.kill(pid, 'SIGCONT');
    let back = Date.now();
    await sleep(8000);
    results.push(report(`PostgreSQL stalled ${STALL_MS / 1000} s`, await stopBoth(probes), back));

    // PostgreSQL killed, restarted on its port
    probes = probeBoth();
    await sleep(1000);
    const { postmaster } = pids(join(root, 'data'));
    const cmdline = readFileSync(`/proc/${postmaster}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const owner = statSync(`/proc/${postmaster}`);
    process.kill(postmaster, 'SIGKILL');
    await sleep(5000);
    restarted = spawn(cmdline[0], cmdline.slice(1), { stdio: 'ignore', uid: owner.uid, gid: owner.gid });
    while (!(await reachable(pgPort))) await sleep(100);
    back = Date.now();
    await sleep(8000);
    results.push(report('PostgreSQL killed, restarted after 5 s', await stopBoth(probes), back));

    // Redis stalled, then killed and restarted: probes plus a stale-read check across the instances
    for (const fault of ['stalled', 'killed'] as const) {
      probes = probeBoth();
      await sleep(1000);
      if (fault === 'stalled') redis.stall();
      else await redis.kill();
      const stale: string[] = [];
      const created = (await (await fetch(`${servers[0].base}/api/v1/categories`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'r0' }) })).json()) as { model: { id: number } };
      const until = Date.now() + 10_000;
      for (let n = 1; Date.now() < until || n < 3; n += 1) {
        const name = `r${n}`;
        await fetch(`${servers[n % 2].base}/api/v1/categories/${created.model.id}`, { method: 'PATCH', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
        const seen = (await (await fetch(`${servers[(n + 1) % 2].base}/api/v1/categories/${created.model.id}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { name?: string };
        if (seen.name !== name) stale.push(`${seen.name} for ${name}`);
        if (n === 10) {
          if (fault === 'stalled') redis.resume();
          else await redis.restart();
          back = Date.now();
        }
        await sleep(200);
      }
      const answers = await stopBoth(probes);
      const ok = report(`Redis ${fault}`, answers, back) && stale.length === 0 && answers.every((a) => a.status === 200);
      console.log(`  stale reads: ${stale.length ? stale.join(', ') : 'none'}; all 200: ${answers.every((a) => a.status === 200)}`);
      results.push(ok);
    }
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
    await sleep(1000);
    await redis.stop();
    if (restarted) restarted.kill('SIGINT');
    else await cluster.stop();
    await sleep(1000);
    rmSync(root, { recursive: true, force: true });
  }
  console.log(`\n${results.every(Boolean) ? 'ALL PASS' : 'SOME FAILED'}`);
  process.exitCode = results.every(Boolean) ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
