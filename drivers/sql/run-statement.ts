import type { Sequelize, Transaction as SequelizeTransaction } from 'sequelize';
import type { SqlStatement } from './sql-builder';

type Rows = Record<string, unknown>[];

/** What the library uses of the `pg` client Sequelize's pool lends. */
interface PgClient {
  query(text: string, values: unknown[]): Promise<{ rows: Rows }>;
  _invalid?: boolean;
}

interface ConnectionManager {
  getConnection(options: { type: string }): Promise<PgClient>;
  releaseConnection(client: PgClient): Promise<void> | void;
}

/** Socket failures after which Sequelize itself retires a connection (its postgres query.js). */
const BROKEN = /ECONNRESET|Connection terminated|Query read timeout/;

/** A pool connection held for every statement of one read (`withLease`). */
export interface Lease {
  readonly lease: PgClient;
}

/** Where a statement runs: a transaction's connection, a read's leased one, or any from the pool. */
export type Target = SequelizeTransaction | Lease | undefined;

function managerOf(sequelize: Sequelize): ConnectionManager {
  return (sequelize as unknown as { connectionManager: ConnectionManager }).connectionManager;
}

function retireIfBroken(client: PgClient, error: unknown): void {
  if (BROKEN.test(String((error as { message?: unknown }).message ?? '')) || (error as { code?: unknown }).code === 'ECONNRESET') client._invalid = true;
}

/**
 * Holds one pool connection for the statements of one read (its page, count and relation levels
 * queue on it): one acquire and one release per read instead of per statement, and the same
 * PostgreSQL backend serves them all.
 */
export async function withLease<T>(sequelize: Sequelize, work: (lease: Lease) => Promise<T>): Promise<T> {
  const manager = managerOf(sequelize);
  const client = await manager.getConnection({ type: 'SELECT' });
  try {
    return await work({ lease: client });
  } catch (error) {
    retireIfBroken(client, error);
    throw error;
  } finally {
    await manager.releaseConnection(client);
  }
}

/**
 * Runs one statement on the `pg` client of the transaction or lease, else on one Sequelize's pool
 * lends, and returns its rows. `sequelize.query` would add about 0.25 ms of its own per statement
 * (bind formatting, result parsing, an id per query: a quarter of the library's overhead on a
 * list, by the profiles in bench/RESULTS.md) for nothing the driver uses: the statements are
 * already SQL with `$n` parameters and the rows are wanted raw. Same pool, same connections, same
 * type parsers; Sequelize's `logging` option still sees every statement. Statements stay unnamed
 * (not server-side prepared): PostgreSQL's generic plans made the benchmark's count 40 % slower.
 */
export async function runStatement(sequelize: Sequelize, statement: SqlStatement, target: Target): Promise<Rows> {
  const logging = (sequelize as unknown as { options: { logging?: unknown } }).options.logging;
  const t = target && !('lease' in target) ? target : undefined;
  if (typeof logging === 'function') (logging as (sql: string) => void)(`Executing (${t ? (t as unknown as { id: string }).id : 'default'}): ${statement.sql}`);
  // text and values, not a config object: pg copies config objects on every call
  if (target && 'lease' in target) return (await target.lease.query(statement.sql, statement.bind)).rows;
  if (t) return (await (t as unknown as { connection: PgClient }).connection.query(statement.sql, statement.bind)).rows;
  return withLease(sequelize, async ({ lease }) => (await lease.query(statement.sql, statement.bind)).rows);
}
