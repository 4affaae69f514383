import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { freePort } from '../../lib/testing/free-port';

/**
 * A redis-server of the test's own (no persistence) that it may stall (SIGSTOP), resume, kill and
 * start again on the same port: the shared one of lib/testing cannot be restarted in place.
 */
export interface RedisProcess {
  url: string;
  port: number;
  stall(): void;
  resume(): void;
  /** SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
  /** A new redis-server on the same port (after kill). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export const haveRedisServer = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).status === 0;

/** Whether something accepts connections on 127.0.0.1:port. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function running(child: ChildProcess | null): child is ChildProcess {
  return !!child && child.exitCode === null && child.signalCode === null;
}

export async function startRedisProcess(): Promise<RedisProcess> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const launch = async (): Promise<void> => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    for (let i = 0; i < 200 && !(await listening(port)); i += 1) await new Promise((r) => setTimeout(r, 50));
  };
  const kill = async (): Promise<void> => {
    const current = child;
    if (!running(current)) return;
    const exited = new Promise((r) => current.once('exit', r));
    current.kill('SIGCONT');
    current.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stall: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    kill,
    restart: launch,
    stop: kill,
  };
}
