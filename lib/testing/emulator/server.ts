import net from 'node:net';
import { commands, EmulatorState } from './commands';
import { sessionKeyOf } from './commands/handshake';
import { CommandError, toCommandError } from './errors';
import { Scope, type Transaction } from './transactions';
import type { Doc } from './values';
import { encodeReply, parseMessage, splitMessages, type Request } from './wire';

/** Commands that must not be run inside a transaction on the server either. */
const TXN_CONTROL = new Set(['commitTransaction', 'abortTransaction']);

/**
 * Resolve the transaction a command belongs to (lsid + txnNumber + autocommit:false), starting it
 * on `startTransaction`. Plain retryable writes also carry txnNumber but no autocommit field.
 */
function resolveTransaction(state: EmulatorState, cmd: Doc, name: string, sessionKey: string | undefined): Transaction | undefined {
  if (cmd.autocommit !== false || !sessionKey) return undefined;
  const txnNumber = Number(cmd.txnNumber);
  if (cmd.startTransaction === true) return state.txns.start(sessionKey, txnNumber);
  const txn = state.txns.find(sessionKey, txnNumber);
  if (!txn || (txn.state === 'aborted' && name !== 'abortTransaction')) {
    throw new CommandError('NoSuchTransaction', `Transaction with { txnNumber: ${txnNumber} } has been aborted.`, {}, ['TransientTransactionError']);
  }
  if (txn.state === 'committed' && !TXN_CONTROL.has(name)) {
    throw new CommandError('TransactionCommitted', `Transaction with { txnNumber: ${txnNumber} } has been committed.`);
  }
  return txn;
}

export function execute(state: EmulatorState, request: Request, connectionId: number): Doc {
  const { command: cmd, db } = request;
  const name = Object.keys(cmd)[0] ?? '';
  const handler = Object.prototype.hasOwnProperty.call(commands, name) ? commands[name] : undefined;
  let txn: Transaction | undefined;
  try {
    if (!handler) throw new CommandError('CommandNotFound', `no such command: '${name}'`);
    const sessionKey = sessionKeyOf(cmd.lsid);
    txn = resolveTransaction(state, cmd, name, sessionKey);
    if (txn && name === 'count') {
      throw new CommandError('Location50851', "Cannot run 'count' in a multi-document transaction. Please see http://dochub.mongodb.org/core/transaction-count for a recommended alternative.");
    }
    const scope = new Scope(state.store, state.txns, txn && txn.state === 'active' ? txn : undefined);
    const reply = handler({ state, db, cmd, scope, connectionId, sessionKey, txn });
    // Any failed statement aborts the transaction, as on the server.
    if (txn && reply.writeErrors) state.txns.abort(txn);
    return reply;
  } catch (err) {
    const e = toCommandError(err);
    if (txn && !TXN_CONTROL.has(name)) state.txns.abort(txn);
    return e.toReply();
  }
}

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

export async function listen(state: EmulatorState): Promise<RunningServer> {
  const sockets = new Set<net.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    const connectionId = state.nextConnectionId++;
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      const { messages, rest } = splitMessages(pending);
      pending = rest;
      for (const msg of messages) {
        let request: Request;
        try {
          request = parseMessage(msg);
        } catch (err) {
          // a real server closes the connection too; say so, or the client only sees a timeout later
          process.stderr.write(`[testing-kit] MongoDB emulator: unreadable message (${(err as Error).message}); connection closed\n`);
          socket.destroy();
          return;
        }
        const reply = execute(state, request, connectionId);
        if (request.moreToCome) continue; // w:0 — the client expects no answer
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
              const bytes = encodeReply(request, execute(state, request, connectionId), { responseTo });
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
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
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
