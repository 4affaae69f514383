import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import type { Transaction } from '../../lib/driver';
import { localSettings } from './sql-options';
import { logStatement, managerOf, retireIfBroken, sendText, type TxTarget } from './run-statement';

/** The isolation levels PostgreSQL names (Sequelize's `isolationLevel` option takes these strings). */
const LEVELS = new Set(['READ UNCOMMITTED', 'READ COMMITTED', 'REPEATABLE READ', 'SERIALIZABLE']);

/** BEGIN with the application's Sequelize `isolationLevel` option, as `sequelize.transaction` would. */
function beginOf(sequelize: Sequelize): string {
  const level = (sequelize as unknown as { options: { isolationLevel?: unknown } }).options.isolationLevel;
  if (level === undefined || level === null) return 'BEGIN';
  const name = String(level).toUpperCase();
  if (!LEVELS.has(name)) throw new Error(`Unknown Sequelize isolationLevel ${JSON.stringify(level)}: expected one of ${[...LEVELS].join(', ')}.`);
  return `BEGIN ISOLATION LEVEL ${name}`;
}

/** True when the transactions' isolation lets each statement read what committed before it (PostgreSQL runs READ UNCOMMITTED as READ COMMITTED). */
export function readsCommitted(sequelize: Sequelize): boolean {
  return /^BEGIN( ISOLATION LEVEL READ (UN)?COMMITTED)?$/.test(beginOf(sequelize));
}

/**
 * One transaction on one connection of Sequelize's pool, run by this driver instead of
 * `sequelize.transaction`: the statements are this driver's own (run-statement.ts), so Sequelize's
 * transaction object was only a holder of the connection, at the cost of a round trip for its
 * START TRANSACTION and about 0.25 ms of its query layer for that and the COMMIT. Here the
 * connection is pipelined for the transaction's life (pg 8.23's `pipeline`), so BEGIN is written
 * with the first statement and statements sent together do not wait for one another; the answers
 * still come in order, and after a failed statement PostgreSQL refuses the rest of the transaction.
 * COMMIT when `work` resolves (or behind the last statement, Transaction.endsWithNext), ROLLBACK when
 * it throws; a connection whose ROLLBACK failed is retired.
 */
export async function inTransaction<T>(sequelize: Sequelize, work: (t: TxTarget) => Promise<T>): Promise<T> {
  // declared timeouts go with the BEGIN (`SET LOCAL`: they hold behind a transaction-mode pooler)
  const begin = beginOf(sequelize) + localSettings(sequelize);
  const manager = managerOf(sequelize);
  const client = await manager.getConnection({});
  const t: TxTarget = { lease: client, id: randomUUID(), begin, end: 'open' };
  client.pipeline = true;
  const end = async (sql: string): Promise<void> => {
    logStatement(sequelize, sql, t);
    await sendText(client, sql);
  };
  try {
    const result = await work(t);
    if (t.begin === null && t.end !== 'sent') await end('COMMIT');
    return result;
  } catch (error) {
    retireIfBroken(client, error);
    // answers come in order: once the ROLLBACK is answered, no statement of `work` is still in flight
    if (t.begin === null && t.end !== 'sent' && !client._invalid) await end('ROLLBACK').catch(() => (client._invalid = true));
    throw error;
  } finally {
    client.pipeline = false;
    await manager.releaseConnection(client);
  }
}

export interface SqlTransaction extends Transaction {
  readonly driver: 'sql';
  readonly t: TxTarget;
}

/** The connection state of a transaction handed back to the driver, or undefined outside one. */
export function targetOf(tx: Transaction | undefined): TxTarget | undefined {
  if (!tx) return undefined;
  if (tx.driver !== 'sql' || !(tx as SqlTransaction).t) throw new Error('A transaction of another driver was passed to the SQL driver.');
  const t = (tx as SqlTransaction).t;
  if (tx.endsWithNext) {
    // the caller's next statement is the transaction's last: COMMIT goes out with it
    tx.endsWithNext = false;
    if (t.end === 'open') t.end = 'next';
  }
  if (t.end === 'sent') throw new Error('A statement was run after the one its transaction committed with (Transaction.endsWithNext).');
  return t;
}
