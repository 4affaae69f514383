/** The shapes ResourceService takes and answers (re-exported by resource-service.ts). */
import type { YupLikeSchema } from '../resource/yup-like';
import type { ModelInfo, PivotInfo } from '../resource/model-info';
import type { Id, Row, Transaction } from '../driver';
import { ApiError } from '../errors';
import type { Filter, ListQuery } from '../query/ast';
import { type RolesRule } from './declarations/grantable-roles';
import type { RequestContext } from './request-context';

export interface PlannedList {
  /** As parsed from the request (cursors are bound to it). */
  parsed: ListQuery;
  /** As the driver runs it: scopes, transforms and the beforeList hook applied (the cache key covers it). */
  query: ListQuery;
}

export interface PlannedShow {
  rawId: string;
  id: Id;
  query: ListQuery;
}

/**
 * A write confined to part of a resource (a relation route's parent): records outside `narrow`
 * are absent (`notFound` words the 404), `forced` values win over the body (the foreign key to
 * the parent), and `within` runs extra work in the write's transaction (pivot rows).
 */
export interface WriteScope {
  narrow?: Filter | null;
  forced?: Record<string, unknown>;
  notFound?: (ids: Array<string | number>) => ApiError;
  /** Prefix of error keys in bulk bodies (default the MODEL: `product.1.name`). */
  itemKey?: string;
  within?: (tx: Transaction, ids: Id[]) => Promise<void>;
  /** The request's `If-Match` header, for a PUT, PATCH or DELETE of one record (decision 81). */
  ifMatch?: string;
  /**
   * A store whose caller uses only the created records' keys (an import counts them): without an
   * afterCreate hook, the answer's models carry only their key, and the records are not read back.
   */
  keysOnly?: boolean;
}

/** `record` (the request's own copy) with the server-set values over it. */
export function stamp(record: Record<string, unknown>, stamped: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(stamped)) record[key] = stamped[key];
  return record;
}

/** The hook that sees the rows an action answers with. */
export const AFTER_HOOK = { list: 'afterList', show: 'afterShow', create: 'afterCreate', update: 'afterUpdate' } as const;

/** What checking a request's records needs, looked up once per request. */
export interface WriteRules {
  schema: YupLikeSchema | undefined;
  /** Fields the caller's roles may not write. */
  prohibited: ReadonlySet<string>;
  /** Owner and forced values, set whatever the body says. */
  stamped: Record<string, unknown>;
  /** grantableRoles: the role names the caller may write into the roles field (null: unchecked). */
  roles: RolesRule | null;
}

export interface WriteResult {
  success: true;
  model: Row;
}

export interface BulkWriteResult {
  success: true;
  models: WriteResult[];
}

/** The nested writes of a resource (lib/service/nested/nested-writes.ts), as its create and update paths use them. */
export interface NestedWriter {
  /** The relations opted in, by body key (decision 58). */
  readonly relations: ReadonlyMap<string, NestedKeys>;
  /** Whether these items carry nested relations this resource opted in to. */
  applies(items: unknown[], scope: WriteScope): boolean;
  store(items: unknown[], many: boolean, ctx: RequestContext): Promise<WriteResult | BulkWriteResult>;
  validate(body: unknown, ctx: RequestContext): Promise<{ success: true }>;
  update(rawId: string, body: unknown, ctx: RequestContext, ifMatch?: string): Promise<WriteResult>;
  /** A bulk update cannot carry nested relations: a 400 naming the first one. */
  refuseInBulkUpdate(items: unknown[], key: string): never;
}

/** What the checks need of a resource: its model and whether it keeps unknown fields lenient. */
export interface KeyedEntry {
  info: ModelInfo;
  declaration: { unknownFields?: 'refuse' | 'ignore' };
}

/** What the checks need of a relation opted in to nested writes (decision 58). */
export interface NestedKeys {
  kind: 'oneToMany' | 'manyToMany';
  pivot: PivotInfo | null;
  related: { entry: KeyedEntry };
}
