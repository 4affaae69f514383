import { startMongo, type MongoHandle } from '../../lib/testing/start-mongo';
import { Client } from 'pg';
import { startPostgres, type PostgresHandle } from '../../lib/testing/start-postgres';

/**
 * One MongoDB and one PostgreSQL per mocha run, started on first use and stopped by the root
 * hook in global-hooks.ts. Suites use their own database names / tables and clean up after themselves.
 */
let mongo: Promise<MongoHandle> | null = null;
let postgres: Promise<PostgresHandle> | null = null;

export function sharedMongo(): Promise<MongoHandle> {
  mongo ??= startMongo();
  return mongo;
}

export function sharedPostgres(): Promise<PostgresHandle> {
  postgres ??= startPostgres();
  return postgres;
}

/** A throw-away PostgreSQL database on the shared server: its URI, and `drop` for the suite's `after`. */
export async function freshPostgresDatabase(prefix: string): Promise<{ uri: string; drop(): Promise<void> }> {
  const admin = (await sharedPostgres()).uri;
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  const run = async (sql: string): Promise<void> => {
    const client = new Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE DATABASE "${name}"`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { uri: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS "${name}"`) };
}

export async function stopSharedDatabases(): Promise<void> {
  const pending: Array<Promise<{ stop(): Promise<void> }>> = [];
  if (mongo) pending.push(mongo);
  if (postgres) pending.push(postgres);
  const handles = await Promise.allSettled(pending);
  mongo = null;
  postgres = null;
  for (const handle of handles) if (handle.status === 'fulfilled') await handle.value.stop();
}
