import net from 'node:net';
import type { EmulatorState } from './commands';
import { CommandError, toCommandError } from './errors';
import { objectTooLarge } from './reply-size';
import { stampClusterTime } from './envelope';
import { execute, run, runFailing } from './run-command';
import type { Doc } from './values';
import { encodeReply, parseMessage, splitMessages, type Request } from './wire';

export { execute, run, runFailing } from './run-command';

/** The error reply for a reply that could not be sent: BSON's size errors are MongoDB's BSONObjectTooLarge. */
function replyFailure(err: unknown): Doc {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof RangeError || /larger than the maximum size|out of range|BSONObj size/i.test(message)) return objectTooLarge(null).toReply();
  return new CommandError('InternalError', `reply could not be encoded: ${message}`).toReply();
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
