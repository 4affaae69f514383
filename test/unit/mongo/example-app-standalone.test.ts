import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/**
 * Decision 65 end to end: the example app started on a standalone MongoDB (TEST_MONGO_TOPOLOGY=
 * standalone, the emulator playing it) refuses to start, within 60 s, with a message naming the
 * replica set; with MONGODB_TRANSACTIONS=false it starts.
 */
const root = join(__dirname, '..', '..', '..');

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function startApp(env: Record<string, string>): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'example-app/server.ts'], {
    cwd: root,
    env: { ...process.env, TEST_MONGO: 'emulator', PORT: '0', LOG_LEVEL: 'info', MONGODB_URI: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms)))]).finally(() => clearTimeout(timer));
}

describe('example app on a standalone MongoDB (decision 65)', function () {
  this.timeout(90_000);
  const started: ChildProcess[] = [];

  after(() => {
    for (const child of started) if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGTERM');
  });

  it('refuses to start within 60 s, naming the replica set and how to make one', async () => {
    const run = startApp({ TEST_MONGO_TOPOLOGY: 'standalone' });
    started.push(run.child);
    const began = Date.now();
    const code = await within(run.exited, 60_000, 'the app did not exit');
    expect(code, run.output()).to.equal(1);
    expect(Date.now() - began).to.be.below(60_000);
    const out = run.output();
    expect(out).to.match(/example app failed to start/);
    expect(out).to.match(/standalone server, not a replica set/);
    expect(out).to.include('--replSet rs0');
    expect(out).to.include('rs.initiate()');
    expect(out).not.to.match(/listening on/);
  });

  it('starts on the standalone server with MONGODB_TRANSACTIONS=false', async () => {
    const run = startApp({ TEST_MONGO_TOPOLOGY: 'standalone', MONGODB_TRANSACTIONS: 'false' });
    started.push(run.child);
    await within(
      new Promise<void>((resolve, reject) => {
        const poll = setInterval(() => {
          if (/listening on/.test(run.output())) {
            clearInterval(poll);
            resolve();
          } else if (run.child.exitCode !== null) {
            clearInterval(poll);
            reject(new Error(`the app exited: ${run.output()}`));
          }
        }, 100);
      }),
      60_000,
      'the app did not listen',
    );
    expect(run.output()).to.match(/playing MongoDB 7\.0\.0 as a standalone server/);
    run.child.kill('SIGTERM');
    await within(run.exited, 20_000, 'the app did not stop');
  });
});
