import type { RequestContext } from './request-context';

export type { ResourceHooks } from '../declaration';

type MaybePromise<T> = T | Promise<T>;

/** Runs an optional hook; its result replaces the value unless it returned nothing. */
export async function runHook<T>(hook: ((value: T, ctx: RequestContext) => MaybePromise<T | void>) | undefined, value: T, ctx: RequestContext): Promise<T> {
  if (!hook) return value;
  const replaced = await hook(value, ctx);
  return replaced === undefined ? value : replaced;
}
