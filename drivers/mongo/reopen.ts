import type { Connection } from 'mongoose';

/** What mongoose keeps of a connection's own start (not in its typings). */
interface ConnectionInternals {
  _hasOpened?: boolean;
  _closeCalled?: boolean;
  _connectionString?: string;
  _connectionOptions?: Record<string, unknown>;
  $dbName?: string;
}

const reopening = new WeakMap<Connection, Promise<unknown>>();

/**
 * Waits for the connection to be open. mongoose never tries again after a failed first connect (a
 * server refused or not yet up when the application started): the connection stays disconnected and
 * every request would be a 503 forever. Such a connection is opened again here with its own URI and
 * options, one attempt at a time; a connection that was open once is left to the MongoDB driver,
 * which reconnects by itself, and one the application closed is never reopened.
 */
export async function openedConnection(conn: Connection): Promise<void> {
  if (conn.readyState === 1) return;
  const own = conn as unknown as ConnectionInternals;
  if (conn.readyState === 0 && !own._hasOpened && !own._closeCalled && own._connectionString) {
    let pending = reopening.get(conn);
    if (!pending) {
      const options = { ...own._connectionOptions, ...(own.$dbName ? { dbName: own.$dbName } : {}) };
      pending = conn.openUri(own._connectionString, options).finally(() => reopening.delete(conn));
      reopening.set(conn, pending);
    }
    await pending;
    return;
  }
  await conn.asPromise();
}
