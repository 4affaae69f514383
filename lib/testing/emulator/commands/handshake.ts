import { Long, ObjectId } from 'bson';
import type { CommandContext, Handler } from './context';
import type { Doc } from '../values';

export const MAX_WIRE_VERSION = 21; // MongoDB 7.0; driver 7 accepts 9..29

/** Fixed electionId/setVersion: a one-member set that never fails over. */
const ELECTION_ID = new ObjectId('7fffffff0000000000000001');

export function helloReply(ctx: CommandContext, legacy: boolean): Doc {
  const { state } = ctx;
  const reply: Doc = {
    topologyVersion: { processId: state.processId, counter: Long.fromNumber(0) },
    hosts: [state.host],
    setName: 'rs0',
    setVersion: 1,
    isWritablePrimary: true,
    secondary: false,
    primary: state.host,
    me: state.host,
    electionId: ELECTION_ID,
    lastWrite: { lastWriteDate: new Date(), majorityWriteDate: new Date() },
    maxBsonObjectSize: 16 * 1024 * 1024,
    maxMessageSizeBytes: 48_000_000,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId: ctx.connectionId,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ok: 1,
  };
  if (legacy) {
    // Legacy isMaster names the primary flag `ismaster`.
    delete reply.isWritablePrimary;
    reply.ismaster = true;
  }
  if (ctx.cmd.helloOk === true) reply.helloOk = true;
  return reply;
}

const ok: Handler = () => ({ ok: 1 });

export const handshakeCommands: Record<string, Handler> = {
  hello: (ctx) => helloReply(ctx, false),
  isMaster: (ctx) => helloReply(ctx, true),
  ismaster: (ctx) => helloReply(ctx, true),
  ping: ok,
  buildInfo: () => ({
    version: '7.0.0',
    gitVersion: 'emulator',
    versionArray: [7, 0, 0, 0],
    bits: 64,
    maxBsonObjectSize: 16 * 1024 * 1024,
    storageEngines: ['emulator'],
    modules: [],
    ok: 1,
  }),
  getParameter: (ctx) => {
    const reply: Doc = { ok: 1 };
    if (ctx.cmd.featureCompatibilityVersion !== undefined) reply.featureCompatibilityVersion = { version: '7.0' };
    return reply;
  },
  serverStatus: (ctx) => ({
    host: ctx.state.host,
    version: '7.0.0',
    process: 'mongod-emulator',
    pid: Long.fromNumber(process.pid),
    uptime: (Date.now() - ctx.state.startedAt.getTime()) / 1000,
    localTime: new Date(),
    connections: { current: 0, available: 1000 },
    ok: 1,
  }),
  hostInfo: () => ({ system: { currentTime: new Date(), hostname: 'localhost' }, ok: 1 }),
  whatsmyuri: () => ({ you: '127.0.0.1:0', ok: 1 }),
  connectionStatus: () => ({ authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 }),
  getCmdLineOpts: () => ({ argv: ['mongod-emulator'], parsed: {}, ok: 1 }),
  getLog: () => ({ totalLinesWritten: 0, log: [], ok: 1 }),
  endSessions: (ctx) => {
    // Ending a session aborts its open transaction and closes its cursors.
    const ids = Array.isArray(ctx.cmd.endSessions) ? ctx.cmd.endSessions : [];
    for (const lsid of ids) {
      const key = sessionKeyOf(lsid);
      if (key) {
        ctx.state.cursors.killSession(key);
        ctx.state.txns.endSession(key);
      }
    }
    return { ok: 1 };
  },
  killSessions: ok,
  refreshSessions: ok,
  startSession: () => ({ id: { id: new ObjectId() }, timeoutMinutes: 30, ok: 1 }),
  logout: ok,
};

/** Stable string for a session id `{id: UUID}`. */
export function sessionKeyOf(lsid: unknown): string | undefined {
  if (!lsid || typeof lsid !== 'object') return undefined;
  const id = (lsid as Doc).id;
  if (id && typeof id === 'object' && 'buffer' in id) {
    const buf = (id as { buffer: Uint8Array }).buffer;
    return Buffer.from(buf).toString('hex');
  }
  return undefined;
}
