import { startPostgres } from '../lib/testing';
import { startChild, type Child } from './child';
import { SQL_DATASET } from './dataset';
import { seedSql } from './seed-sql';
import type { ServeReady } from './serve';

/**
 * Embedded PostgreSQL holding the benchmark's data, and the serving child (library, hand-written
 * handlers, peer) over it, for `work`; both stopped afterwards. A first child creates the schema.
 */
export async function withSeededSqlServer<T>(work: (child: Child<ServeReady>) => Promise<T>): Promise<T> {
  const pg = await startPostgres();
  try {
    const creator = await startChild<ServeReady>('serve.ts', ['sql', pg.uri]);
    await creator.stop();
    await seedSql(pg.uri, SQL_DATASET);
    const child = await startChild<ServeReady>('serve.ts', ['sql', pg.uri]);
    try {
      return await work(child);
    } finally {
      await child.stop();
    }
  } finally {
    await pg.stop();
  }
}
