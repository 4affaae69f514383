import { CommandError } from '../errors';
import type { Handler } from './context';

const requireTxn: (name: string) => Handler = (name) => (ctx) => {
  if (!ctx.txn) throw new CommandError('NoSuchTransaction', `${name} requires a transaction (lsid, txnNumber, autocommit: false)`, {}, ['TransientTransactionError']);
  if (ctx.db !== 'admin') throw new CommandError('Unauthorized', `${name} may only be run against the admin database.`);
  if (name === 'commitTransaction') ctx.state.txns.commit(ctx.txn);
  else ctx.state.txns.abort(ctx.txn);
  return { ok: 1 };
};

export const transactionCommands: Record<string, Handler> = {
  commitTransaction: requireTxn('commitTransaction'),
  abortTransaction: requireTxn('abortTransaction'),
};
