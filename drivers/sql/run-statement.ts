import { Query } from 'pg';
import type { Sequelize } from 'sequelize';
import type { SqlStatement } from './sql-builder';
import { fallBackOn, namesAllowed, poolerRetry } from './pooler-errors';
import { localSettings } from './sql-options';
import { replicaFor, type Replica } from './read-routing';
import { fastTypes, type TypeSource } from './fast-timestamp';

type Rows = Record<string, unknown>[];

/** What the library uses of the `pg` client Sequelize's pool lends. */
export interface PgClient {
  query(query: object): unknown; // a pg Query (not named here: the published types must not need @types/pg)
  _invalid?: boolean;
  /** pg 8.23's pipeline mode: each query is written at once, without waiting for the previous answer. */
  pipeline?: boolean;
}

interface ConnectionManager {
  getConnection(options: { type?: string }): Promise<PgClient>;
  releaseConnection(client: PgClient): Promise<void> | void;
}

/** Socket failures after which Sequelize itself retires a connection (its postgres query.js). */
const BROKEN = /ECONNRESET|Connection terminated|Query read timeout|not queryable/;
/** SQLSTATEs after which the server has closed the connection (shutdown, connection failure). */
const CLOSED = new Set(['ECONNRESET', 'EPIPE', '57P01', '57P02', '57P05', '08006', '08003']);

/** A pool connection held for every statement of one read (`withLease`). */
export interface Lease {
  readonly lease: PgClient;
}

/**
 * A transaction this driver runs on one pool connection (sql-transaction.ts). Its BEGIN is not a
 * round trip of its own: it is written with the transaction's first statement (`begin` holds it
 * until then), and a transaction that runs no statement sends neither BEGIN nor COMMIT.
 */
export interface TxTarget extends Lease {
  readonly id: string;
  /** The BEGIN statement still to send before the first statement; null once sent. */
  begin: string | null;
  /** `next`: COMMIT goes out behind the next statement (Transaction.endsWithNext); `sent`: it went. */
  end: 'open' | 'next' | 'sent';
}

/** Where a statement runs: a transaction's connection, a read's leased one, or any from the pool. */
export type Target = TxTarget | Lease | undefined;

export function managerOf(sequelize: Sequelize): ConnectionManager {
  return (sequelize as unknown as { connectionManager: ConnectionManager }).connectionManager;
}

export function retireIfBroken(client: PgClient, error: unknown): void {
  if (BROKEN.test(String((error as { message?: unknown }).message ?? '')) || CLOSED.has(String((error as { code?: unknown }).code))) client._invalid = true;
}

/**
 * Holds one pool connection for the statements of one read (its page, count and relation levels
 * queue on it): one acquire and one release per read instead of per statement, and the same
 * PostgreSQL backend serves them all. The connection is a replica's when the read may go there
 * (read-routing.ts; a replica that cannot be reached is skipped: the primary answers). With
 * declared timeouts the read is a pipelined READ ONLY transaction that sets them (`SET LOCAL`,
 * written with the first statement), so they hold behind a transaction-mode pooler.
 */
export async function withLease<T>(sequelize: Sequelize, work: (lease: Lease) => Promise<T>, single = false): Promise<T> {
  const choosing = replicaFor(sequelize);
  const replica = choosing ? await choosing : null;
  if (replica) {
    try {
      return await leased(replica.db, sequelize, work, replica, single);
    } catch (error) {
      if (!replica.unreachable(error)) throw error;
    }
  }
  try {
    return await leased(sequelize, sequelize, work, null, single);
  } catch (error) {
    // under `auto`, a pooler's error inside the read's transaction: once more, unnamed
    if ((error as { poolerRetry?: unknown }).poolerRetry !== true) throw error;
    return leased(sequelize, sequelize, work, null, single);
  }
}

/** `single`: the read is one statement, so its COMMIT goes out behind it (one round trip in all). */
async function leased<T>(db: Sequelize, owner: Sequelize, work: (lease: Lease) => Promise<T>, replica: Replica | null, single: boolean): Promise<T> {
  const manager = managerOf(db);
  const client = await manager.getConnection({ type: 'SELECT' });
  const settings = localSettings(owner, single);
  const lease: Lease | TxTarget = settings ? { lease: client, id: 'read', begin: `BEGIN READ ONLY${settings}`, end: single ? 'next' : 'open' } : { lease: client };
  if (settings) client.pipeline = true;
  const open = (): boolean => 'begin' in lease && lease.begin === null && lease.end !== 'sent';
  try {
    if (replica) await replica.before(lease);
    const result = await work(lease);
    if (open()) await sendText(client, 'COMMIT');
    return result;
  } catch (error) {
    retireIfBroken(client, error);
    if (open() && !client._invalid) await sendText(client, 'ROLLBACK').catch(() => (client._invalid = true));
    throw error;
  } finally {
    client.pipeline = false;
    await manager.releaseConnection(client);
  }
}

/**
 * Runs one statement on the `pg` client of the transaction or lease, else on one Sequelize's pool
 * lends, and returns its rows. `sequelize.query` would add about 0.25 ms of its own per statement
 * (bind formatting, result parsing, an id per query: a quarter of the library's overhead on a
 * list, by the profiles in bench/RESULTS.md) for nothing the driver uses: the statements are
 * already SQL with `$n` parameters and the rows are wanted raw. Same pool, same connections, same
 * type parsers; Sequelize's `logging` option still sees every statement. Statements run unnamed
 * unless compiled as `prepare` (drivers/sql/prepare-policy.ts decides which).
 */
/** Names of prepared statement texts, process-wide; bounded, beyond it statements run unnamed. */
const names = new Map<string, string | null>();
const MAX_PREPARED = 1000;

function nameOf(statement: SqlStatement): string | undefined {
  if (!statement.prepare) return undefined;
  let name = names.get(statement.sql);
  if (name === undefined && names.size < MAX_PREPARED) {
    name = `grr_${names.size}`;
    names.set(statement.sql, name);
  }
  return name ?? undefined;
}

/** PostgreSQL refuses a prepared statement whose tables changed their columns' types since it was parsed. */
const STALE = (error: unknown): boolean => (error as { code?: unknown }).code === '0A000' && /cached plan must not change result type/.test(String((error as Error).message));

/**
 * The query as pg takes it: text and values (pg copies config objects), a config when named. A
 * statement gone stale (a migration changed a column's type under a running app) runs unnamed,
 * now and from then on, instead of failing on every connection that prepared it (inside a
 * transaction the failure aborts it: that one request fails, the next ones run unnamed).
 */
async function send(sequelize: Sequelize, client: PgClient, statement: SqlStatement, inTx: boolean): Promise<{ rows: Rows }> {
  const name = namesAllowed(sequelize) ? nameOf(statement) : undefined;
  if (!name) return submit(client, statement);
  try {
    return await submit(client, statement, name);
  } catch (error) {
    if (fallBackOn(sequelize, error)) {
      // behind a transaction-mode pooler (decision 85): unnamed from now on; a lone statement
      // runs again here, a transaction's failure aborted it, so the whole of it runs again
      if (inTx) throw poolerRetry(error);
      return submit(client, statement);
    }
    if (!STALE(error)) throw error;
    names.set(statement.sql, null);
    return submit(client, statement);
  }
}

/**
 * pg's own Query built from text and values, named after the fact: `client.query({name, ...})`
 * copies its config object property by property (getOwnPropertyDescriptors, 1 % of a show) and
 * wraps the promise once more; a Query with a callback is taken as it is.
 */
function submit(client: PgClient, statement: SqlStatement, name?: string): Promise<{ rows: Rows }> {
  return new Promise((resolve, reject) => {
    const query = new Query<Rows[number]>(statement.sql, statement.bind, (error, result) => (error ? reject(error) : resolve(result)));
    // Query keeps the config's name as a plain field (read when it is submitted); @types/pg omits it
    if (name) (query as unknown as { name?: string }).name = name;
    // the client's parsers, timestamptz without regular expressions (fast-timestamp.ts); pg only
    // sets the client's own when the result has none
    (query as unknown as { _result: { _types?: TypeSource } })._result._types = fastTypes(client as unknown as TypeSource);
    client.query(query);
  });
}

/** Sequelize's `logging` option sees every statement, as it would its own. */
export function logStatement(sequelize: Sequelize, sql: string, target: Target): void {
  const logging = (sequelize as unknown as { options: { logging?: unknown } }).options.logging;
  if (typeof logging === 'function') (logging as (sql: string) => void)(`Executing (${target && 'id' in target ? target.id : 'default'}): ${sql}`);
}

/**
 * A transaction's statement with what goes out on the same write (the connection is pipelined):
 * its BEGIN when it is the first, its COMMIT when it is the last (PostgreSQL answers a COMMIT
 * after a failed statement with a rollback). Every answer is awaited; the statement's error wins.
 */
async function runInPipeline(sequelize: Sequelize, statement: SqlStatement, t: TxTarget): Promise<Rows> {
  if (t.begin === 'BEGIN' && t.end === 'next') {
    // the transaction's only statement: PostgreSQL runs a lone statement as a transaction of its
    // own (all of it or nothing), at the same default isolation as a plain BEGIN, so BEGIN and
    // COMMIT would only add two statements to parse, run and answer
    t.begin = null;
    t.end = 'sent';
    logStatement(sequelize, statement.sql, t);
    return (await send(sequelize, t.lease, statement, false)).rows;
  }
  const text = (sql: string): Promise<unknown> => {
    logStatement(sequelize, sql, t);
    const answer = sendText(t.lease, sql);
    answer.catch(() => undefined); // awaited below, after the statement's own answer
    return answer;
  };
  const begun = t.begin === null ? null : text(t.begin);
  t.begin = null;
  logStatement(sequelize, statement.sql, t);
  const answer = send(sequelize, t.lease, statement, true);
  answer.catch(() => undefined);
  const committed = t.end === 'next' ? text('COMMIT') : null;
  if (committed) t.end = 'sent';
  try {
    const { rows } = await answer;
    await begun;
    await committed;
    return rows;
  } finally {
    // whatever failed, nothing of this write is left in flight on the connection
    await Promise.allSettled([begun, committed]);
  }
}

/** A statement without parameters (BEGIN, COMMIT, ROLLBACK). */
export function sendText(client: PgClient, sql: string): Promise<{ rows: Rows }> {
  return submit(client, { sql, bind: [] });
}

/**
 * On a pipelined connection, the statements issued in one turn of the event loop leave in one
 * socket write: each write is a system call and, on a local server, a wake-up of its backend
 * (pg writes every query on its own; a profile of a batch update spent 0.5 ms per request in the
 * writes of its BEGIN, UPDATE and COMMIT). Flushed when the turn's synchronous work and
 * promise jobs are done (setImmediate).
 */
const corked = new WeakSet<PgClient>();
function batchWrites(client: PgClient): void {
  const stream = (client as { connection?: { stream?: { cork?: () => void; uncork?: () => void } } }).connection?.stream;
  if (!client.pipeline || corked.has(client) || !stream?.cork || !stream.uncork) return;
  stream.cork();
  corked.add(client);
  setImmediate(() => {
    corked.delete(client);
    stream.uncork?.();
  });
}

export async function runStatement(sequelize: Sequelize, statement: SqlStatement, target: Target): Promise<Rows> {
  // a lone statement: a lease of its own (a replica's when the read may go there)
  if (!target) return withLease(sequelize, (lease) => runStatement(sequelize, statement, lease), true);
  batchWrites(target.lease);
  if ('begin' in target && (target.begin !== null || target.end === 'next')) return runInPipeline(sequelize, statement, target);
  logStatement(sequelize, statement.sql, target);
  return (await send(sequelize, target.lease, statement, 'begin' in target)).rows;
}
