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

/**
 * Runs one statement on the `pg` client of the transaction, else on one Sequelize's pool lends,
 * and returns its rows. `sequelize.query` would add about 0.25 ms of its own per statement (bind
 * formatting, result parsing, an id per query: a quarter of the library's overhead on a list, by
 * the profiles in bench/RESULTS.md) for nothing the driver uses: the statements are already SQL
 * with `$n` parameters and the rows are wanted raw. Same pool, same connections, same type
 * parsers; Sequelize's `logging` option still sees every statement. Statements stay unnamed (not
 * server-side prepared): PostgreSQL's generic plans made the benchmark's count 40 % slower.
 */
export async function runStatement(sequelize: Sequelize, statement: SqlStatement, t: SequelizeTransaction | undefined): Promise<Rows> {
  const logging = (sequelize as unknown as { options: { logging?: unknown } }).options.logging;
  if (typeof logging === 'function') (logging as (sql: string) => void)(`Executing (${t ? (t as unknown as { id: string }).id : 'default'}): ${statement.sql}`);
  // text and values, not a config object: pg copies config objects on every call
  if (t) return (await (t as unknown as { connection: PgClient }).connection.query(statement.sql, statement.bind)).rows;
  const manager = (sequelize as unknown as { connectionManager: ConnectionManager }).connectionManager;
  const client = await manager.getConnection({ type: 'SELECT' });
  try {
    return (await client.query(statement.sql, statement.bind)).rows;
  } catch (error) {
    if (BROKEN.test(String((error as { message?: unknown }).message ?? '')) || (error as { code?: unknown }).code === 'ECONNRESET') client._invalid = true;
    throw error;
  } finally {
    await manager.releaseConnection(client);
  }
}
