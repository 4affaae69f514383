import type { RequestContext } from '../service/request-context';

/** Requests whose update is a revert (decision 83): their entries say `reverted`. */
const reverting = new WeakSet<RequestContext>();

export function markReverting(ctx: RequestContext): void {
  reverting.add(ctx);
}

export function isReverting(ctx: RequestContext | undefined): boolean {
  return ctx !== undefined && reverting.has(ctx);
}
