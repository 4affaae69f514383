import type { IdempotencyCapability } from '../driver';
import type { RequestContext } from './request-context';

/**
 * The key a request holds: the first write transaction of the key's database that commits also
 * marks the key committed, in that transaction (decision 80: stored with its writes).
 */
export interface HeldMark {
  store: IdempotencyCapability;
  caller: string;
  key: string;
  /** Set once a transaction carrying the mark committed: later transactions of the request skip it. */
  marked: boolean;
}

/** Per request context (the router's; services pass it to every transaction): no AsyncLocalStorage, whose hooks would tax every promise. */
const held = new WeakMap<RequestContext, HeldMark>();

export function holdFor(ctx: RequestContext, mark: HeldMark): void {
  held.set(ctx, mark);
}

export function heldMark(ctx: RequestContext | undefined): HeldMark | undefined {
  return ctx ? held.get(ctx) : undefined;
}
