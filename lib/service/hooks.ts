import type { Id, Row } from '../driver';
import type { Filter, ListQuery, Scalar } from '../query/ast';
import type { RequestContext } from './request-context';

type MaybePromise<T> = T | Promise<T>;

/**
 * Application logic around a resource's operations, each with the request context. A `before`
 * hook may return a replacement for what it receives (or nothing to keep it); throwing one of the
 * library's errors (ForbiddenError, ValidationError, ...) answers with it. `before` hooks of writes
 * run after validation and before the transaction; `after` hooks after the commit, and may
 * replace what is answered.
 */
export interface ResourceHooks {
  /**
   * Records of this resource the caller may see, everywhere (lists, show, relation loads and
   * filters, existence checks of writes): a filter, or `{field: value}` equalities.
   * Example: `scope: (ctx) => (ctx.user ? { owner_id: ctx.user.id } : { published: true })`.
   */
  scope?(ctx: RequestContext): Filter | Record<string, Scalar> | null;
  beforeList?(query: ListQuery, ctx: RequestContext): MaybePromise<ListQuery | void>;
  afterList?(rows: Row[], ctx: RequestContext): MaybePromise<Row[] | void>;
  beforeShow?(id: Id, ctx: RequestContext): MaybePromise<void>;
  afterShow?(row: Row, ctx: RequestContext): MaybePromise<Row | void>;
  /** E.g. stamp the owner: `(records, ctx) => records.map((r) => ({ ...r, owner_id: ctx.user?.id }))`. */
  beforeCreate?(records: Record<string, unknown>[], ctx: RequestContext): MaybePromise<Record<string, unknown>[] | void>;
  afterCreate?(rows: Row[], ctx: RequestContext): MaybePromise<Row[] | void>;
  beforeUpdate?(items: Array<{ id: Id; changes: Record<string, unknown> }>, ctx: RequestContext): MaybePromise<Array<{ id: Id; changes: Record<string, unknown> }> | void>;
  afterUpdate?(rows: Row[], ctx: RequestContext): MaybePromise<Row[] | void>;
  beforeDelete?(ids: Id[], ctx: RequestContext): MaybePromise<void>;
  afterDelete?(rows: Row[], ctx: RequestContext): MaybePromise<Row[] | void>;
}

/** Runs an optional hook; its result replaces the value unless it returned nothing. */
export async function runHook<T>(hook: ((value: T, ctx: RequestContext) => MaybePromise<T | void>) | undefined, value: T, ctx: RequestContext): Promise<T> {
  if (!hook) return value;
  const replaced = await hook(value, ctx);
  return replaced === undefined ? value : replaced;
}
