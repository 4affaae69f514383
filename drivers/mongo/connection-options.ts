import type { Connection } from 'mongoose';

// waiting for a connection (and reopening one whose first connect failed) sits beside its options
export { openedConnection } from './reopen';

/** What an application declares about one mongoose connection (decision 65). */
export interface MongoConnectionOptions {
  /**
   * Default true: every write (a store, a bulk update, a delete with its cascades, pivot changes) runs
   * in one multi-document transaction, which needs a replica set or a mongos. false: writes run
   * without a transaction, so a standalone server is accepted; a failure midway can then leave part
   * of a bulk write written, and concurrent writes are not isolated from each other.
   */
  transactions?: boolean;
}

const declared = new WeakMap<object, MongoConnectionOptions>();

/**
 * Declares options for the driver of `connection` (the connection your mongoose models were made
 * on). Call it before `api.router()`: `configureMongo(connection, { transactions: false })`.
 */
export function configureMongo(connection: Connection, options: MongoConnectionOptions): void {
  if (!connection || typeof connection !== 'object') throw new TypeError('configureMongo(connection, options): connection must be a mongoose Connection.');
  if (options.transactions !== undefined && typeof options.transactions !== 'boolean') throw new TypeError('configureMongo: transactions must be true or false.');
  declared.set(connection, { ...declared.get(connection), ...options });
}

/** The options declared for `connection` (none: {}). */
export function connectionOptions(connection: Connection | undefined): MongoConnectionOptions {
  return (connection && declared.get(connection)) ?? {};
}

/** `host:port` of a connection, for messages: never the user name or password. */
export function whereOf(conn: object): string | undefined {
  const host = (conn as { host?: unknown }).host;
  const port = (conn as { port?: unknown }).port;
  return typeof host === 'string' && host ? `${host}${port ? `:${String(port)}` : ''}` : undefined;
}
