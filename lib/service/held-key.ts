import { AsyncLocalStorage } from 'node:async_hooks';
import type { IdempotencyCapability } from '../driver';

/**
 * The key the running request holds: the first write transaction of the key's database that
 * commits also marks the key committed, in that transaction (decision 80: stored with its writes).
 */
export interface HeldMark {
  store: IdempotencyCapability;
  caller: string;
  key: string;
  /** Set once a transaction carrying the mark committed: later transactions of the request skip it. */
  marked: boolean;
}

const holding = new AsyncLocalStorage<HeldMark>();

/** Runs a request's work with its held key in scope (only requests that carry a key pay for it). */
export function runHolding<T>(mark: HeldMark, work: () => T): T {
  return holding.run(mark, work);
}

export function heldMark(): HeldMark | undefined {
  return holding.getStore();
}
