import type { Driver, Row } from '../driver';
import type { ListQuery, Scalar } from '../query/ast';

const BATCH = 500;

/**
 * Every row of a query, read in bounded batches so memory does not grow with the row count: the
 * driver's own database cursor when it has one (MongoDB aggregation cursor), else keyset batches
 * through the cursor pagination both drivers already have (the order always ends with the key).
 * Stops as soon as `signal` aborts (the client went away).
 */
export async function* rowSource(driver: Driver, query: ListQuery, signal: AbortSignal): AsyncGenerator<Row> {
  const unpaged: ListQuery = { ...query, page: null, limit: null };
  if (driver.streams) {
    yield* driver.streams.stream(unpaged, signal);
    return;
  }
  let after: Scalar[] | null = null;
  for (;;) {
    if (signal.aborted) return;
    const result = await driver.list({ ...unpaged, page: { kind: 'cursor', size: BATCH, after } });
    for (const row of result.rows) yield row;
    if (!result.hasMore || !result.nextAfter) return;
    after = result.nextAfter;
  }
}
