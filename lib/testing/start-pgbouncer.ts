import { execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { announce } from './announce';
import { freePort } from './free-port';
import { postgresIds } from './postgres-cluster';

/** Thrown when PgBouncer is not installed or does not start; the message says what to do. */
export class PoolerUnavailableError extends Error {}

export interface PoolerHandle {
  /** The same URI as the server's, with the pooler's port. */
  uri: string;
  /** What PgBouncer logged so far (its errors name the client and the server's message). */
  log(): string;
  stop(): Promise<void>;
}

/** The pgbouncer binary on PATH (Debian: /usr/sbin/pgbouncer), or null. */
export function pgbouncerBinary(): string | null {
  for (const candidate of ['pgbouncer', '/usr/sbin/pgbouncer', '/usr/bin/pgbouncer']) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A stock PgBouncer in front of the PostgreSQL at `serverUri`, in `pool_mode = transaction` with
 * a small pool (`poolSize` server connections per database and user, default 4), as hosted
 * PostgreSQL fronts it: clients are authenticated with the server's own user and password, and
 * `ignore_startup_parameters` is only `extra_float_digits` (any other startup parameter is
 * refused, as PgBouncer's default does). As root it runs as the `postgres` user.
 */
export async function startPgBouncer(serverUri: string, options: { poolSize?: number } = {}): Promise<PoolerHandle> {
  const binary = pgbouncerBinary();
  if (!binary) throw new PoolerUnavailableError('pgbouncer is not on PATH: install it (Debian: apt-get install pgbouncer).');
  const server = new URL(serverUri);
  const user = decodeURIComponent(server.username);
  const password = decodeURIComponent(server.password);
  const port = await freePort();
  const root = mkdtempSync(join(tmpdir(), 'grr-pgbouncer-'));
  const quote = (s: string): string => `"${s.replace(/"/g, '""')}"`;
  writeFileSync(join(root, 'userlist.txt'), `${quote(user)} ${quote(password)}\n`, { mode: 0o600 });
  writeFileSync(
    join(root, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = plain',
      `auth_file = ${join(root, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 4}`,
      'max_client_conn = 500',
      'ignore_startup_parameters = extra_float_digits',
      'server_reset_query =',
      'log_connections = 0',
      'log_disconnections = 0',
      `pidfile = ${join(root, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const ids = userInfo().uid === 0 ? postgresIds() : null;
  if (ids) for (const file of ['', 'userlist.txt', 'pgbouncer.ini']) chownSync(join(root, file), ids.uid, ids.gid);
  const child = spawn(binary, [join(root, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'], ...(ids ?? {}) });
  let log = '';
  const keep = (chunk: Buffer): void => void (log = (log + chunk.toString()).slice(-200_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await reachable(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(root, { recursive: true, force: true });
      throw new PoolerUnavailableError(`pgbouncer did not start: ${log.trim().split('\n').slice(-3).join(' | ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  announce('pgbouncer', `${binary} on 127.0.0.1:${port} (pool_mode = transaction, pool of ${options.poolSize ?? 4}) in front of ${server.hostname}:${server.port}`);
  const uri = new URL(serverUri);
  uri.port = String(port);
  return {
    uri: uri.toString(),
    log: () => log,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
