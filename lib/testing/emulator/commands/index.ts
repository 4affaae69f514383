import { CommandError } from '../errors';
import { adminCommands } from './admin';
import { ddlCommands } from './ddl';
import { handshakeCommands } from './handshake';
import { collectionOptionCommands } from './collection-options';
import { checkCommandFields } from './command-fields';
import { checkReadConcern } from './options';
import { readCommands } from './read';
import { touchSession } from './sessions';
import { transactionCommands } from './transactions';
import { withViews } from './views';
import { writeCommands } from './write';
import { checkVersionGates } from '../version-gates';
import type { Handler } from './context';

/** Checks every command shares: the session is recorded, readConcern is one the command accepts, no unknown fields, nothing newer than the played release. */
function common(name: string, handler: Handler): Handler {
  return (ctx) => {
    touchSession(ctx.state, ctx.sessionKey, ctx.cmd.lsid);
    checkReadConcern(name, ctx.cmd.readConcern, ctx.txn !== undefined, ctx.state.store.clusterTime());
    // a standalone has no snapshots to read from (read_concern_mongod.cpp)
    if (ctx.state.profile.topology === 'standalone' && (ctx.cmd.readConcern as { level?: unknown } | undefined)?.level === 'snapshot') {
      throw new CommandError('NotAReplicaSet', 'node needs to be a replica set member to use readConcern: snapshot');
    }
    checkCommandFields(name, ctx.cmd);
    // an older release refuses the stages, operators and syntax it does not have (version-gates.ts)
    checkVersionGates(ctx.state.profile, name, ctx.cmd);
    return handler(ctx);
  };
}

const all: Record<string, Handler> = withViews({
  ...handshakeCommands,
  ...readCommands,
  ...writeCommands,
  ...ddlCommands,
  ...transactionCommands,
  ...adminCommands,
  ...collectionOptionCommands,
});

/** Every command the emulator answers; anything else is CommandNotFound (59). */
export const commands: Record<string, Handler> = Object.fromEntries(Object.entries(all).map(([name, h]) => [name, common(name, h)]));

export { EmulatorState } from './context';
export type { CommandContext, Handler } from './context';
