import type { Sequelize } from 'sequelize';

/** What an application declares about one Sequelize connection (decisions 85, 86). */
export interface SqlConnectionOptions {
  /**
   * Named (prepared) statements. `auto` (default): named, until the first error a transaction-mode
   * pooler gives for them (26000, 42P05); from then on the process runs them unnamed, and what
   * failed is retried once. `on`: always named (a direct connection or PgBouncer >= 1.21 with
   * `max_prepared_statements`). `off`: never named.
   */
  preparedStatements?: 'auto' | 'on' | 'off';
  /** Milliseconds a statement may run: `SET LOCAL statement_timeout` in every transaction and read, never a startup parameter. */
  statementTimeout?: number;
  /** Milliseconds a transaction may idle: `SET LOCAL idle_in_transaction_session_timeout`, likewise. */
  idleInTransactionTimeout?: number;
  /** Read replicas (connection URLs): reads outside writes go there (decision 86). */
  replicas?: string[];
}

const declared = new WeakMap<object, SqlConnectionOptions>();

const MODES = new Set(['auto', 'on', 'off']);

function checkMs(name: string, value: unknown): void {
  if (value !== undefined && (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 2_147_483_647)) {
    throw new TypeError(`configureSql: ${name} must be a whole number of milliseconds (0 turns it off).`);
  }
}

/**
 * Declares options for the driver of `sequelize` (the instance your models were defined on).
 * Call it before `api.router()`: `configureSql(sequelize, { preparedStatements: 'auto', replicas: [url] })`.
 */
export function configureSql(sequelize: Sequelize, options: SqlConnectionOptions): void {
  if (!sequelize || typeof sequelize !== 'object') throw new TypeError('configureSql(sequelize, options): sequelize must be a Sequelize instance.');
  if (options.preparedStatements !== undefined && !MODES.has(options.preparedStatements)) throw new TypeError("configureSql: preparedStatements must be 'auto', 'on' or 'off'.");
  checkMs('statementTimeout', options.statementTimeout);
  checkMs('idleInTransactionTimeout', options.idleInTransactionTimeout);
  if (options.replicas !== undefined && (!Array.isArray(options.replicas) || options.replicas.some((u) => typeof u !== 'string' || !u))) throw new TypeError('configureSql: replicas must be a list of connection URLs.');
  declared.set(sequelize, { ...declared.get(sequelize), ...options });
}

/** The options declared for `sequelize` (none: {}). */
export function sqlOptions(sequelize: Sequelize): SqlConnectionOptions {
  return declared.get(sequelize) ?? {};
}

/**
 * The `SET LOCAL` statements of the declared timeouts, to send with a transaction's BEGIN (one
 * simple-query message: no round trip of its own); '' when none is declared. The values are
 * checked integers, never a client's text.
 */
export function localSettings(sequelize: Sequelize, single = false): string {
  const { statementTimeout, idleInTransactionTimeout } = sqlOptions(sequelize);
  let sql = '';
  if (statementTimeout !== undefined) sql += `; SET LOCAL statement_timeout = ${statementTimeout}`;
  // a one-statement read leaves whole in one write (BEGIN, the statement, its COMMIT): it never
  // waits in the transaction for its client, so that timeout would be one more statement for nothing
  if (idleInTransactionTimeout !== undefined && !single) sql += `; SET LOCAL idle_in_transaction_session_timeout = ${idleInTransactionTimeout}`;
  return sql;
}
