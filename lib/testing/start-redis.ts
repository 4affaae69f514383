import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { announce } from './announce';
import { freePort } from './free-port';

export type RedisKind = 'external' | 'redis-server';

export interface RedisHandle {
  url: string;
  kind: RedisKind;
  stop(): Promise<void>;
}

/** Thrown when no Redis can be had; tests that need Redis report `reason`. */
export class RedisUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`Redis unavailable: ${reason}`);
  }
}

function redisServerOnPath(): string | null {
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path ? path : null;
}

function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.end();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`redis-server did not listen on ${port}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/** REDIS_URL when set; else a `redis-server` from PATH on a free port (no persistence). */
export async function startRedis(): Promise<RedisHandle> {
  if (process.env.REDIS_URL) {
    announce('redis', 'external server from REDIS_URL');
    return { url: process.env.REDIS_URL, kind: 'external', stop: async () => undefined };
  }
  const binary = redisServerOnPath();
  if (!binary) throw new RedisUnavailableError('REDIS_URL is not set and no redis-server is on PATH');
  const port = await freePort();
  const child: ChildProcess = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  await waitForPort(port, 10_000);
  announce('redis', `redis-server from ${binary} on 127.0.0.1:${port}`);
  return {
    url: `redis://127.0.0.1:${port}`,
    kind: 'redis-server',
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
