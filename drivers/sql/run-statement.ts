import { createHash } from 'node:crypto';
import type { Sequelize, Transaction as SequelizeTransaction } from 'sequelize';
import type { SqlStatement } from './sql-builder';

type Rows = Record<string, unknown>[];

/** What the library uses of the `pg` client Sequelize's pool lends. */
interface PgClient {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: Rows }>;
  query(text: string, values: unknown[]): Promise<{ rows: Rows }>;
  connection: { parsedStatements: Record<string, string>; submittedNamedStatements?: Record<string, string> };
  _invalid?: boolean;
}

interface ConnectionManager {
  getConnection(options: { type: string }): Promise<PgClient>;
  releaseConnection(client: PgClient): Promise<void> | void;
}

/** Socket failures after which Sequelize itself retires a connection (its postgres query.js). */
const BROKEN = /ECONNRESET|Connection terminated|Query read timeout/;

/**
 * Statements are prepared once per connection and then only bound and executed: PostgreSQL skips
 * parsing and planning, the most of its work on a small read. A connection keeps at most
 * PREPARED_PER_CONNECTION of them (later shapes run unprepared), so clients sending ever new
 * filter shapes cannot grow a server session without bound. REST_SQL_PREPARED=false turns it off
 * (PgBouncer in transaction mode before 1.21 cannot carry prepared statements).
 */
const PREPARED = process.env.REST_SQL_PREPARED !== 'false';
const PREPARED_PER_CONNECTION = 200;
const prepared = new WeakMap<PgClient, number>();
/** SQL text -> statement name (a hash), kept for the shapes in use. */
const names = new Map<string, string>();

function nameOf(client: PgClient, sql: string): string | undefined {
  if (!PREPARED) return undefined;
  let name = names.get(sql);
  if (name === undefined) {
    if (names.size >= 2000) names.clear();
    name = `grr_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    names.set(sql, name);
  }
  const known = client.connection.parsedStatements[name] !== undefined || client.connection.submittedNamedStatements?.[name] !== undefined;
  if (known) return name;
  const count = prepared.get(client) ?? 0;
  if (count >= PREPARED_PER_CONNECTION) return undefined;
  prepared.set(client, count + 1);
  return name;
}

/** PostgreSQL refuses a prepared statement whose result columns changed under it (the table was altered). */
function isStalePlan(error: unknown): boolean {
  return (error as { code?: unknown }).code === '0A000' && /cached plan must not change result type/.test(String((error as { message?: unknown }).message));
}

async function execute(client: PgClient, statement: SqlStatement, inTransaction: boolean): Promise<Rows> {
  const name = nameOf(client, statement.sql);
  // text and values, not a config object: pg copies config objects on every call
  if (!name) return (await client.query(statement.sql, statement.bind)).rows;
  try {
    return (await client.query({ name, text: statement.sql, values: statement.bind })).rows;
  } catch (error) {
    if (!isStalePlan(error)) throw error;
    // forget the stale statement; outside a transaction the statement can simply run again
    await client.query(`DEALLOCATE "${name}"`, []).catch(() => undefined);
    delete client.connection.parsedStatements[name];
    if (inTransaction) throw error;
    return (await client.query(statement.sql, statement.bind)).rows;
  }
}

/**
 * Runs one statement on the `pg` client of the transaction, else on one Sequelize's pool lends,
 * and returns its rows. `sequelize.query` would add about 0.25 ms of its own per statement (bind
 * formatting, result parsing, an id per query: a quarter of the library's overhead on a list, by
 * the profiles in bench/RESULTS.md) for nothing the driver uses: the statements are already SQL
 * with `$n` parameters and the rows are wanted raw. Same pool, same connections, same type
 * parsers; Sequelize's `logging` option still sees every statement.
 */
export async function runStatement(sequelize: Sequelize, statement: SqlStatement, t: SequelizeTransaction | undefined): Promise<Rows> {
  const logging = (sequelize as unknown as { options: { logging?: unknown } }).options.logging;
  if (typeof logging === 'function') (logging as (sql: string) => void)(`Executing (${t ? (t as unknown as { id: string }).id : 'default'}): ${statement.sql}`);
  if (t) return execute((t as unknown as { connection: PgClient }).connection, statement, true);
  const manager = (sequelize as unknown as { connectionManager: ConnectionManager }).connectionManager;
  const client = await manager.getConnection({ type: 'SELECT' });
  try {
    return await execute(client, statement, false);
  } catch (error) {
    if (BROKEN.test(String((error as { message?: unknown }).message ?? '')) || (error as { code?: unknown }).code === 'ECONNRESET') client._invalid = true;
    throw error;
  } finally {
    await manager.releaseConnection(client);
  }
}
