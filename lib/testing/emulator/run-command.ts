import { runSlices, slices, statementList } from './chunked';
import { commands, EmulatorState } from './commands';
import { sessionKeyOf } from './commands/handshake';
import { CommandError, toCommandError } from './errors';
import { resolveTransaction, snapshotReadAt } from './commands/transactions';
import { HeldByTransaction, type Transaction } from './transactions';
import { Scope } from './scope';
import type { Doc } from './values';
import type { Request } from './wire';
import { injectedError, withWriteConcernError, type FailCommandEffect } from './fail-point';

/** Commands that must not be run inside a transaction on the server either. */
const TXN_CONTROL = new Set(['commitTransaction', 'abortTransaction']);

/**
 * One attempt at a command: its reply, or the transaction a non-transactional write must wait for.
 * `injected` (a failCommand fail point's errorCode) fails the command before its session's
 * transaction is touched.
 */
function attempt(state: EmulatorState, request: Request, connectionId: number, injected?: CommandError): Doc | HeldByTransaction {
  const { command: cmd, db } = request;
  const name = Object.keys(cmd)[0] ?? '';
  const handler = Object.prototype.hasOwnProperty.call(commands, name) ? commands[name] : undefined;
  let txn: Transaction | undefined;
  let scope: Scope | undefined;
  try {
    if (!handler) throw new CommandError('CommandNotFound', `no such command: '${name}'`);
    // mongod evaluates failCommand before it checks out the session: the transaction is not
    // begun, continued or aborted (a retry of a transaction's first statement starts it)
    if (injected) throw injected;
    // a standalone mongod has no oplog: no transactions, no retryable writes (the driver sends
    // neither to a standalone it recognises, except a transaction the application asks for)
    if (state.profile.topology === 'standalone' && cmd.txnNumber !== undefined) {
      throw new CommandError('IllegalOperation', 'Transaction numbers are only allowed on a replica set member or mongos');
    }
    const sessionKey = sessionKeyOf(cmd.lsid);
    // session and transaction checks fail the command without touching the session's transaction
    txn = resolveTransaction(state, cmd, name, sessionKey);
    const readAt = snapshotReadAt(state, cmd, name);
    scope = new Scope(state.store, state.txns, txn && txn.state === 'active' ? txn : undefined, readAt);
    const reply = handler({ state, db, cmd, scope, connectionId, sessionKey, txn });
    // a snapshot read says which time it read at (the session's later reads ask for it)
    if (readAt !== undefined) {
      const cursor = reply.cursor as Doc | undefined;
      if (cursor && typeof cursor === 'object') cursor.atClusterTime = state.store.clusterTime(readAt);
      else reply.atClusterTime = state.store.clusterTime(readAt);
    }
    // Any failed statement aborts the transaction, as on the server.
    if (txn && reply.writeErrors) state.txns.abort(txn);
    return reply;
  } catch (err) {
    if (err instanceof HeldByTransaction && scope) {
      // the server makes the write wait for the transaction and retries it: undo and run again
      scope.rollback();
      return err;
    }
    const e = toCommandError(err);
    if (txn && !TXN_CONTROL.has(name)) state.txns.abort(txn);
    return e.toReply();
  }
}

/** A command's reply without waiting: a write held up by a transaction answers WriteConflict. */
export function execute(state: EmulatorState, request: Request, connectionId: number): Doc {
  const result = attempt(state, request, connectionId);
  return result instanceof HeldByTransaction ? result.toReply() : result;
}

/**
 * A command's reply; a non-transactional write to something an open transaction holds waits until
 * that transaction ends and runs again (bounded by the transaction lifetime limit and the
 * command's maxTimeMS), without holding up other connections.
 */
export function run(state: EmulatorState, request: Request, connectionId: number): Doc | Promise<Doc | null> {
  // a retried retryable write answers what its first run answered (retryable-writes.ts)
  const replayed = state.retryableWrites.replay(request.command);
  if (replayed) return replayed;
  if (state.failPoints.transactionalWriteSet && state.profile.topology === 'replset' && state.retryableWrites.keyOf(request.command)) {
    return runTransactionalWrite(state, request, connectionId);
  }
  const resumed = state.retryableWrites.partial(request.command);
  if (resumed) return runFrom(state, request, connectionId, resumed, statementCount(request)).then((reply) => (state.retryableWrites.record(request.command, reply), reply));
  const result = runOnce(state, request, connectionId);
  if (result instanceof Promise) return result.then((reply) => (state.retryableWrites.record(request.command, reply), reply));
  state.retryableWrites.record(request.command, result);
  return result;
}

const NOT_RUN: Doc = { ok: 1, n: 0 };

function statementCount(request: Request): number {
  const list = statementList(request.command);
  return list ? list.length : 1;
}

/** The command with statements [from, to) only (insert/update/delete; findAndModify is one statement). */
function statementsOf(request: Request, from: number, to: number): Request {
  const list = statementList(request.command);
  if (!list) return request;
  return { ...request, command: { ...request.command, [list.field]: list.length === to - from ? list.statements : list.statements.slice(from, to) } };
}

/**
 * Runs statements [from, to) after the `done` reply of statements [0, from), merged as one reply
 * (statement indexes shifted, counts added).
 */
async function runFrom(state: EmulatorState, request: Request, connectionId: number, done: { executed: number; reply: Doc } | undefined, to: number): Promise<Doc> {
  const from = done?.executed ?? 0;
  const list = statementList(request.command);
  if (!list) return from >= to ? (done?.reply ?? NOT_RUN) : runOnce(state, request, connectionId);
  const before = statementsOf(request, 0, from);
  const rest = statementsOf(request, from, to);
  const parts = from > 0 ? [before, rest] : [rest];
  if (from >= to) return done?.reply ?? { ...NOT_RUN };
  return runSlices(parts, (part) => (part === before ? (done?.reply ?? { ...NOT_RUN }) : runOnce(state, part, connectionId)));
}

/**
 * A retryable write under onPrimaryTransactionalWrite (fail-point.ts): the statements before the
 * one it fires on run and are kept for the retry; with failBeforeCommitExceptionCode that statement
 * and the later ones do not run, without it all run and are kept; then the connection is closed
 * (null) or, with closeConnection false, the error or the reply is answered.
 */
async function runTransactionalWrite(state: EmulatorState, request: Request, connectionId: number): Promise<Doc | null> {
  const total = statementCount(request);
  const done = state.retryableWrites.partial(request.command);
  const from = done?.executed ?? 0;
  const fired = state.failPoints.transactionalWrite(total - from);
  const stop = fired && fired.code !== undefined ? from + fired.firedAt : total;
  const reply = await runFrom(state, request, connectionId, done, stop);
  if (reply.ok !== 1 || reply.writeErrors !== undefined || stop === total) state.retryableWrites.record(request.command, reply);
  else state.retryableWrites.recordPartial(request.command, stop, reply);
  if (!fired || reply.ok !== 1) return reply;
  if (fired.close) return null;
  if (fired.code === undefined) return reply;
  return injectedError({ errorCode: fired.code }, request.command, state.processId, 'Failing write for test due to failpoint').toReply();
}

function runOnce(state: EmulatorState, request: Request, connectionId: number): Doc | Promise<Doc> {
  // a large batched write runs in slices, other connections served in between (chunked.ts)
  const parts = slices(request);
  if (parts) return runSlices(parts, (part) => runWhole(state, part, connectionId));
  return runWhole(state, request, connectionId);
}

/** A command under a triggered failCommand fail point (fail-point.ts); null: close the connection without a reply. */
export async function runFailing(state: EmulatorState, request: Request, connectionId: number, effect: FailCommandEffect): Promise<Doc | null> {
  if (effect.blockTimeMS !== undefined && effect.blockTimeMS > 0) await new Promise((resolve) => setTimeout(resolve, effect.blockTimeMS));
  if (effect.closeConnection) return null;
  if (effect.errorCode !== undefined) {
    const reply = attempt(state, request, connectionId, injectedError(effect, request.command, state.processId));
    return reply instanceof HeldByTransaction ? reply.toReply() : reply;
  }
  const reply = await run(state, request, connectionId);
  if (reply === null) return null;
  return effect.writeConcernError ? withWriteConcernError(reply, effect, request.command) : reply;
}

function runWhole(state: EmulatorState, request: Request, connectionId: number): Doc | Promise<Doc> {
  const first = attempt(state, request, connectionId);
  if (!(first instanceof HeldByTransaction)) return first;
  const maxTimeMS = request.command.maxTimeMS;
  const deadline = typeof maxTimeMS === 'number' && maxTimeMS > 0 ? Date.now() + maxTimeMS : Infinity;
  return (async () => {
    let held: HeldByTransaction = first;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0 || !(await waitFor(held.holder, left))) return new CommandError('MaxTimeMSExpired', 'operation exceeded time limit').toReply();
      const next = attempt(state, request, connectionId);
      if (!(next instanceof HeldByTransaction)) return next;
      held = next;
    }
  })();
}


/** True when `txn` ended within `ms`. */
function waitFor(txn: Transaction, ms: number): Promise<boolean> {
  if (!Number.isFinite(ms)) return txn.ended().then(() => true);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    void txn.ended().then(() => {
      clearTimeout(t);
      resolve(true);
    });
  });
}
