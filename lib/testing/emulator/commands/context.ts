import { ObjectId } from 'bson';
import { CursorRegistry } from '../cursors';
import { CommandError } from '../errors';
import { Store } from '../store';
import { TransactionManager, type Transaction } from '../transactions';
import { Scope } from '../scope';
import type { Doc } from '../values';
import { indexProbe } from '../by-id';
import { isView, viewDocuments } from '../views';
import type { LookupSource } from '../lookup';
import { serverProfile, type ServerProfile } from '../profile';
import { FailPoints } from '../fail-point';
import { RetryableWrites } from '../retryable-writes';

/** Everything one emulator instance owns; all state is in memory and per instance. */
export class EmulatorState {
  readonly store = new Store();
  readonly txns = new TransactionManager(this.store);
  readonly cursors = new CursorRegistry();
  /** configureFailPoint's failCommand (fail-point.ts). */
  readonly failPoints = new FailPoints();
  /** The last successful retryable write of each session, replayed on a retry. */
  readonly retryableWrites = new RetryableWrites();
  readonly processId = new ObjectId();
  readonly startedAt = new Date();
  host = '127.0.0.1:0';
  nextConnectionId = 1;

  /** The server this instance plays (topology and release, profile.ts). */
  constructor(readonly profile: ServerProfile = serverProfile()) {}
}

export interface CommandContext {
  state: EmulatorState;
  db: string;
  cmd: Doc;
  scope: Scope;
  connectionId: number;
  sessionKey?: string;
  txn?: Transaction;
}

export type Handler = (ctx: CommandContext) => Doc;

/** The collection name a command targets (`{find: "users"}`), validated. */
export function collectionName(ctx: CommandContext, field: string): string {
  const name = ctx.cmd[field];
  if (typeof name !== 'string' || name.length === 0) {
    throw new CommandError('InvalidNamespace', `collection name has invalid type ${typeof name}`);
  }
  return name;
}

export function optionalNumber(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number') throw new CommandError('TypeMismatch', `Field '${field}' should be a number`);
  return value;
}

/** Resolver for $lookup/$graphLookup/$unionWith: collections of the same database, as this scope sees them. */
export function resolverFor(ctx: CommandContext): LookupSource {
  const resolve: LookupSource = (name) => {
    const coll = ctx.state.store.get(ctx.db, name);
    // a view's documents are its pipeline over its source (views.ts)
    return coll && isView(coll) ? viewDocuments(ctx.state.store, ctx.scope, ctx.db, coll, resolve) : ctx.scope.list(coll);
  };
  // $lookup reads an indexed foreign path through the index (by-id.ts); a view has none
  resolve.probe = (name, path) => {
    const coll = ctx.state.store.get(ctx.db, name);
    return coll && isView(coll) ? undefined : indexProbe(ctx.scope, coll, path);
  };
  return resolve;
}
