import type { Row } from '../../driver';
import type { Database } from '../database';
import type { ListQuery, Scalar } from '../../query/ast';

const BATCH = 2000;

/**
 * Every row of a query, read in bounded batches so memory does not grow with the row count: the
 * driver's own database cursor when it has one (MongoDB aggregation cursor), else keyset batches
 * through the cursor pagination both drivers already have (the order always ends with the key).
 * Stops as soon as `signal` aborts (the client went away).
 *
 * A batch is the consumer's until it asks for the next one; then it is emptied. Why: an array
 * V8 has promoted to its old space keeps, even once dead, every row it points to alive through
 * the young generation's collections until the next full GC, so those rows are promoted too.
 * That is how all of pg's raw rows were promoted (emptied in the SQL driver's listOn since), the
 * old space growing by 300 MB during a 1,000,000-row export; the export's own arrays are emptied
 * for the same reason.
 */
export async function* rowBatches(database: Database, query: ListQuery, signal: AbortSignal): AsyncGenerator<Row[]> {
  const unpaged: ListQuery = { ...query, page: null, limit: null };
  if (database.canStream) {
    // the cursor's rows, handed on in batches so the writers loop without a promise per row
    let batch: Row[] = [];
    for await (const row of database.stream(unpaged, signal)) {
      batch.push(row);
      if (batch.length === BATCH) {
        yield batch;
        batch.length = 0;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
    return;
  }
  let after: Scalar[] | null = null;
  for (;;) {
    if (signal.aborted) return;
    const result = await database.list({ ...unpaged, page: { kind: 'cursor', size: BATCH, after } });
    if (result.rows.length > 0) yield result.rows;
    // done with by now (see the doc above): emptied, not left to a full GC
    result.rows.length = 0;
    if (!result.hasMore || !result.nextAfter) return;
    after = result.nextAfter;
  }
}
