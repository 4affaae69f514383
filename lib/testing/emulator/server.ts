import net from 'node:net';
import { runSlices, slices, statementList } from './chunked';
import { commands, EmulatorState } from './commands';
import { sessionKeyOf } from './commands/handshake';
import { CommandError, toCommandError } from './errors';
import { objectTooLarge } from './reply-size';
import { stampClusterTime } from './envelope';
import { resolveTransaction, snapshotReadAt } from './commands/transactions';
import { HeldByTransaction, Scope, type Transaction } from './transactions';
import type { Doc } from './values';
import { encodeReply, parseMessage, splitMessages, type Request } from './wire';
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

/** The error reply for a reply that could not be sent: BSON's size errors are MongoDB's BSONObjectTooLarge. */
function replyFailure(err: unknown): Doc {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof RangeError || /larger than the maximum size|out of range|BSONObj size/i.test(message)) return objectTooLarge(null).toReply();
  return new CommandError('InternalError', `reply could not be encoded: ${message}`).toReply();
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

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

/** Serves the emulator on 127.0.0.1:`port` (0: a free port). */
export async function listen(state: EmulatorState, port = 0): Promise<RunningServer> {
  const sockets = new Set<net.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    const connectionId = state.nextConnectionId++;
    // bytes of the message being received: kept as chunks until it is whole (a 10,000-document
    // insert arrives in hundreds of chunks; concatenating on each was quadratic copying)
    let pending: Buffer[] = [];
    let buffered = 0;
    let needed = 4;
    // messages wait here while a command of this connection waits for a transaction to end
    const queue: Buffer[] = [];
    let waiting = false;
    socket.on('data', (chunk: Buffer) => {
      pending.push(chunk);
      buffered += chunk.length;
      if (buffered < needed) return;
      const bytes = pending.length === 1 ? pending[0] : Buffer.concat(pending, buffered);
      let split: ReturnType<typeof splitMessages>;
      try {
        split = splitMessages(bytes);
      } catch (err) {
        process.stderr.write(`[testing-kit] MongoDB emulator: unreadable message (${(err as Error).message}); connection closed\n`);
        socket.destroy();
        return;
      }
      const { messages, rest } = split;
      pending = rest.length ? [rest] : [];
      buffered = rest.length;
      needed = rest.length >= 4 ? Math.max(4, rest.readInt32LE(0)) : 4;
      for (const msg of messages) queue.push(msg);
      pump();
    });
    const pump = (): void => {
      while (!waiting && queue.length) {
        const msg = queue.shift() as Buffer;
        let request: Request;
        try {
          request = parseMessage(msg);
        } catch (err) {
          // a real server closes the connection too; say so, or the client only sees a timeout later
          process.stderr.write(`[testing-kit] MongoDB emulator: unreadable message (${(err as Error).message}); connection closed\n`);
          socket.destroy();
          return;
        }
        let result: Doc | Promise<Doc | null>;
        try {
          // the handshake names the application (a fail point's appName); then the fail point
          const name = Object.keys(request.command)[0];
          if (name === 'hello' || name === 'isMaster' || name === 'ismaster') state.failPoints.noteHandshake(connectionId, request.command);
          const effect = state.failPoints.trigger(request.command, connectionId);
          result = effect ? runFailing(state, request, connectionId, effect) : run(state, request, connectionId);
        } catch (err) {
          result = toCommandError(err).toReply();
        }
        if (result instanceof Promise) {
          waiting = true;
          void result
            .catch((err: unknown) => toCommandError(err).toReply())
            .then((reply) => {
              waiting = false;
              if (socket.destroyed) return;
              if (reply === null) {
                socket.destroy(); // closeConnection: no reply, as a server whose connection dropped
                return;
              }
              respond(request, reply);
              pump();
            });
          return;
        }
        respond(request, result);
      }
    };
    /**
     * Sends a reply; whatever fails on the way (a reply BSON cannot encode...) is answered as a
     * command error on this request, never thrown into the host process.
     */
    const respond = (request: Request, reply: Doc): void => {
      try {
        send(request, reply);
      } catch (err) {
        if (socket.destroyed || request.moreToCome) return;
        try {
          socket.write(encodeReply(request, replyFailure(err)));
        } catch {
          socket.destroy();
        }
      }
    };
    const send = (request: Request, reply: Doc): void => {
      if (request.moreToCome) return; // w:0 — the client expects no answer
      stampClusterTime(state, request.command, reply);
      // Streaming monitor hello: the server answers after maxAwaitTimeMS when nothing changed;
      // answering at once would make the driver's monitor spin.
      const awaited = request.command.topologyVersion !== undefined && typeof request.command.maxAwaitTimeMS === 'number';
      if (awaited && request.exhaustAllowed) {
        // exhaust: a stream of moreToCome replies, one per maxAwaitTimeMS, until the socket closes
        // (a reply without moreToCome ends the driver's stream as an error: "Server ended moreToCome")
        const every = request.command.maxAwaitTimeMS as number;
        let responseTo = request.requestId;
        const next = (): void => {
          const t = setTimeout(() => {
            timers.delete(t);
            if (socket.destroyed) return;
            let bytes: Buffer;
            try {
              bytes = encodeReply(request, execute(state, request, connectionId), { responseTo });
            } catch {
              socket.destroy(); // a monitor stream that cannot go on: the driver reconnects
              return;
            }
            responseTo = bytes.readInt32LE(4);
            socket.write(bytes);
            next();
          }, every);
          t.unref();
          timers.add(t);
        };
        next();
      } else if (awaited) {
        const bytes = encodeReply(request, reply);
        const t = setTimeout(() => {
          timers.delete(t);
          if (!socket.destroyed) socket.write(bytes);
        }, request.command.maxAwaitTimeMS as number);
        t.unref();
        timers.add(t);
      } else {
        socket.write(encodeReply(request, reply));
      }
    };
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      sockets.delete(socket);
      state.failPoints.forgetConnection(connectionId);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('emulator: no TCP address');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export { toCommandError };
