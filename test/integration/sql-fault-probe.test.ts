import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { freePort } from '../../lib/testing/free-port';
import { startCluster, type Cluster } from '../../lib/testing/postgres-cluster';
import { recovery, startProbe, violations } from '../support/fault-probe';

/**
 * Issue 35's fault check, shortened, on PostgreSQL: a list, a write and /health every 500 ms on
 * two example apps sharing one PostgreSQL of their own, while it is stalled (SIGSTOP of every
 * postgres process) and killed (SIGKILL of the postmaster, restarted on its port). Every answer is
 * a 200 or a 503 with Retry-After in the error shape, within the deadline, and the first 200
 * comes within 5 s of the database's return. The full-length run is scripts/fault-probe-sql.ts.
 */
const DEADLINE_MS = 2000;
const MAX_MS = DEADLINE_MS + 1500;
const HEALTH_MAX_MS = 2000 + 1500;
const RECOVERY_MS = 5000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function postgresPids(dataDir: string): number[] {
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = spawnSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
  return [postmaster, ...children];
}

async function reachable(port: number): Promise<boolean> {
  const client = new Client({ host: '127.0.0.1', port, user: 'postgres', password: 'password', database: 'postgres', connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('PostgreSQL stalled and killed under two running apps, probed every 500 ms (issue 35)', function () {
  this.timeout(120_000);
  let root = '';
  let port = 0;
  let cluster: Cluster | null = null;
  let restarted: ChildProcess | null = null;
  const shops: ExampleApp[] = [];
  const servers: Server[] = [];
  const bases: string[] = [];
  let token = '';

  const probeBoth = () => bases.map((base) => startProbe(base, token, 500));
  const stopBoth = async (probes: ReturnType<typeof probeBoth>) => (await Promise.all(probes.map((p) => p.stop()))).flat();

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'grr-probe-'));
    port = await freePort();
    cluster = await startCluster(root, port, 'password', ['-c', 'fsync=off', '-c', 'synchronous_commit=off']);
    token = `probe-${process.pid}-${Date.now()}`;
    for (let i = 0; i < 2; i += 1) {
      const shop = await createExampleApp({ driver: 'sql', postgresUri: `postgres://postgres:password@127.0.0.1:${port}/postgres`, adminToken: token, apiOptions: { config: { requestTimeoutMs: DEADLINE_MS } } });
      shops.push(shop);
      const server = shop.app.listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      servers.push(server);
      bases.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
  });

  after(async () => {
    for (const pid of (() => {
      try {
        return postgresPids(join(root, 'data'));
      } catch {
        return [];
      }
    })()) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // gone already
      }
    }
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
    for (const shop of shops) await shop.close().catch(() => undefined);
    if (restarted) {
      const exited = new Promise((r) => restarted!.once('exit', r));
      restarted.kill('SIGINT');
      await Promise.race([exited, sleep(10_000)]);
    } else await cluster?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('stalled 6 s: every answer 200 or 503 within the deadline, 200 again within 5 s of SIGCONT', async () => {
    const probes = probeBoth();
    await sleep(1000);
    const stalled = postgresPids(join(root, 'data'));
    for (const pid of stalled) process.kill(pid, 'SIGSTOP');
    await sleep(6000);
    for (const pid of stalled) process.kill(pid, 'SIGCONT');
    const back = Date.now();
    await sleep(RECOVERY_MS + 1000);
    const answers = await stopBoth(probes);
    expect(violations(answers, MAX_MS, HEALTH_MAX_MS), JSON.stringify(answers.filter((a) => a.status !== 200))).to.deep.equal([]);
    expect(answers.filter((a) => a.status === 503 && a.what !== 'health').length, '503s during the stall').to.be.greaterThan(0);
    const { list, write } = recovery(answers, back);
    expect(list, 'first list 200 after SIGCONT (ms)').to.be.below(RECOVERY_MS);
    expect(write, 'first write 200 after SIGCONT (ms)').to.be.below(RECOVERY_MS);
  });

  it('killed, restarted on its port after 3 s: every answer 200 or 503, 200 again within 5 s of its return', async () => {
    const probes = probeBoth();
    await sleep(1000);
    const [postmaster] = postgresPids(join(root, 'data'));
    const cmdline = readFileSync(`/proc/${postmaster}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const owner = statSync(`/proc/${postmaster}`);
    process.kill(postmaster, 'SIGKILL');
    await sleep(3000);
    restarted = spawn(cmdline[0], cmdline.slice(1), { stdio: 'ignore', uid: owner.uid, gid: owner.gid });
    const until = Date.now() + 30_000;
    while (!(await reachable(port))) {
      if (Date.now() > until) throw new Error('PostgreSQL did not come back');
      await sleep(100);
    }
    const back = Date.now();
    await sleep(RECOVERY_MS + 1000);
    const answers = await stopBoth(probes);
    expect(violations(answers, MAX_MS, HEALTH_MAX_MS), JSON.stringify(answers.filter((a) => a.status !== 200))).to.deep.equal([]);
    expect(answers.filter((a) => a.status === 503 && a.what !== 'health').length, '503s while down').to.be.greaterThan(0);
    const { list, write } = recovery(answers, back);
    expect(list, 'first list 200 after the restart (ms)').to.be.below(RECOVERY_MS);
    expect(write, 'first write 200 after the restart (ms)').to.be.below(RECOVERY_MS);
  });
});
