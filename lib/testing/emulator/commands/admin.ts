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
  createSearchIndexes: atlasOnly,
  updateSearchIndex: atlasOnly,
  dropSearchIndex: atlasOnly,
};
