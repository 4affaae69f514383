import type { SqlStatement } from './sql-builder';
import type { Target } from './run-statement';

export type RunStatement = (statement: SqlStatement, t: Target) => Promise<Record<string, unknown>[]>;

/**
 * An advisory lock, tried without waiting first (one statement in the usual case). When another
 * transaction holds it: wait. READ COMMITTED reads what that one commits in the next statement; a
 * snapshot already taken (REPEATABLE READ, SERIALIZABLE) would not, so the transaction runs again
 * (a serialization failure, retried by transaction() and a 409 if it persists).
 */
export async function lockOrRetry(run: RunStatement, attempt: SqlStatement, wait: SqlStatement, t: Target): Promise<void> {
  const [first] = await run(attempt, t);
  if (first?.locked === true) return;
  await run(wait, t);
  if (first?.isolation !== 'read committed') {
    throw Object.assign(new Error('A concurrent write of the same records committed after this transaction began.'), { code: '40001' });
  }
}
