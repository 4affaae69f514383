import { startMongo, type MongoHandle } from '../../lib/testing/start-mongo';
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

export async function stopSharedDatabases(): Promise<void> {
  const pending: Array<Promise<{ stop(): Promise<void> }>> = [];
  if (mongo) pending.push(mongo);
  if (postgres) pending.push(postgres);
  const handles = await Promise.allSettled(pending);
  mongo = null;
  postgres = null;
  for (const handle of handles) if (handle.status === 'fulfilled') await handle.value.stop();
}
