import { Long, ObjectId } from 'bson';
import type { CommandContext, Handler } from './context';
import { sessionKeyOf } from '../session-key';

export { sessionKeyOf } from '../session-key';
import type { Doc } from '../values';

/** The default profile's wire version (MongoDB 7.0); driver 7 accepts 9..29. Each profile says its own. */
export const MAX_WIRE_VERSION = 21;

/** Fixed electionId/setVersion: a one-member set that never fails over. */
const ELECTION_ID = new ObjectId('7fffffff0000000000000001');

/**
 * hello / isMaster as the played server answers: a replica-set primary (hosts, setName, electionId,
 * lastWrite ...) or a standalone mongod (none of those). Wire version per release (profile.ts).
 */
export function helloReply(ctx: CommandContext, legacy: boolean): Doc {
  const { state } = ctx;
  const { profile } = state;
  const member: Doc =
    profile.topology === 'replset'
      ? {
          hosts: [state.host],
          setName: 'rs0',
          setVersion: 1,
          isWritablePrimary: true,
          secondary: false,
          primary: state.host,
          me: state.host,
          electionId: ELECTION_ID,
          lastWrite: { lastWriteDate: new Date(), majorityWriteDate: new Date() },
        }
      : { isWritablePrimary: true };
  const reply: Doc = {
    topologyVersion: { processId: state.processId, counter: Long.fromNumber(0) },
    ...member,
    maxBsonObjectSize: 16 * 1024 * 1024,
    maxMessageSizeBytes: 48_000_000,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId: ctx.connectionId,
    minWireVersion: 0,
    maxWireVersion: profile.maxWireVersion,
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
  buildInfo: (ctx) => ({
    version: ctx.state.profile.version,
    gitVersion: 'emulator',
    versionArray: [...ctx.state.profile.versionArray],
    bits: 64,
    maxBsonObjectSize: 16 * 1024 * 1024,
    storageEngines: ['emulator'],
    modules: [],
    ok: 1,
  }),
  getParameter: (ctx) => {
    const reply: Doc = { ok: 1 };
    if (ctx.cmd.featureCompatibilityVersion !== undefined) reply.featureCompatibilityVersion = { version: ctx.state.profile.release };
    return reply;
  },
  serverStatus: (ctx) => ({
    host: ctx.state.host,
    version: ctx.state.profile.version,
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
        ctx.state.retryableWrites.forget(key);
      }
    }
    return { ok: 1 };
  },
  killSessions: ok,
  refreshSessions: ok,
  startSession: () => ({ id: { id: new ObjectId() }, timeoutMinutes: 30, ok: 1 }),
  logout: ok,
};

