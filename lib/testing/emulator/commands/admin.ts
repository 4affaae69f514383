import { CommandError } from '../errors';
import type { Handler } from './context';

/** Atlas Search index commands: a 7.0 server outside Atlas refuses them with this error. */
const atlasOnly: Handler = () => {
  throw new CommandError('CommandNotSupported', 'Search index commands are only supported with Atlas.');
};

export const adminCommands: Record<string, Handler> = {
  // the unified test runners' way to end every open transaction between tests
  killAllSessions: (ctx) => {
    ctx.state.txns.abortAll();
    return { ok: 1 };
  },
  // mongod with enableTestCommands: the failCommand fail point (fail-point.ts), admin database only
  configureFailPoint: (ctx) => {
    if (ctx.db !== 'admin') throw new CommandError('Unauthorized', 'configureFailPoint may only be run against the admin database.');
    return ctx.state.failPoints.configure(ctx.cmd);
  },
  createSearchIndexes: atlasOnly,
  updateSearchIndex: atlasOnly,
  dropSearchIndex: atlasOnly,
};
