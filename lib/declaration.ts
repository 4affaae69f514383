/**
 * What an application writes: the declaration of a resource, its hooks and the request context
 * they receive. The top of the library's vocabulary: types only, importing nothing but the
 * catalog's, the query's and the driver contract's types.
 */
import type { Driver, Id, Row } from './driver';
import type { Filter, ListQuery, Scalar } from './query/ast';
import type { ModelDeclaration } from './resource/relation-declaration';
import type { YupLikeSchema } from './resource/yup-like';

export type { ModelDeclaration, RelationDeclaration } from './resource/relation-declaration';
export type { YupLikeSchema } from './resource/yup-like';

/** Everything an application says about one resource. */
export interface ResourceDeclaration<M = unknown> extends ModelDeclaration<M> {
  /** Collection segment of the routes, e.g. `products`. */
  name: string;
  /** Attributes that can be written. */
  fillable: string[];
  /** Fields writable only by users holding the role. */
  fieldsByRole?: Record<string, string[]>;
  /**
   * Which role names each role may write into the roles field (`rolesField`), e.g.
   * `{admin: ['viewer', 'editor', 'admin']}`: another name is a 422 naming the field; a superuser
   * writes any (decision 68). Checked on create, update and every bulk write.
   */
  grantableRoles?: Record<string, string[]>;
  /** The field `grantableRoles` guards (default `roles`). */
  rolesField?: string;
  /**
   * With `grantableRoles`: the boolean field that makes a record a superuser (default
   * `is_superuser` when the model has it). Only a superuser updates or deletes such a record, and
   * only a caller who could grant every role a record holds changes it at all (decision 69).
   */
  superuserField?: string;
  /**
   * Soft delete: destroy sets this field (true: `deleted_at`) instead of removing the record;
   * trashed records are hidden everywhere unless a request asks for them. Derived from a
   * Sequelize paranoid model.
   */
  softDelete?: boolean | string;
  /**
   * The field holding the id of the user who owns a record (`user_id`; `id` on a users resource).
   * "Own" grants narrow to the caller's records through it; a create under an own grant sets it.
   */
  owner?: string;
  /** Self-referencing parent key; enables hierarchy features. */
  HIERARCHY_FIELD_ID?: string;
  /** yup schemas: `create` for store and /validate, `update` for update and updateMultiple. */
  validation?: {
    create?: YupLikeSchema;
    update?: YupLikeSchema;
  };
  /** Application logic around each operation, with the request context (README "Hooks"). */
  hooks?: ResourceHooks;
  /** Read cache settings of this resource over the API's (`false`: never cached). */
  cache?: ResourceCacheSettings;
  /** Driver to use; detected from the model when absent. */
  driver?: Driver;
  /**
   * Relations written together with the record in one request (decisions 58-59): hasMany and
   * belongsToMany relations by name, e.g. `['reviews', 'tags']`. The object form narrows the
   * pivot columns a nested link may write (default: every pivot column the relation declares).
   */
  nestedWrites?: Array<string | NestedWriteDeclaration>;
  /**
   * Decision 77: a write body's key that is no field of the model, no relation the route takes and
   * no envelope key is a 422 `unknown_field` (`'refuse'`, the default); `'ignore'` drops such keys silently.
   */
  unknownFields?: 'refuse' | 'ignore';
  /**
   * Match keys of `POST /{resource}/upsert` (decision 79): each set of fields must be backed by a
   * unique index or constraint (checked at start), e.g. `[['sku'], ['vendor_id', 'ref']]`.
   */
  upsertKeys?: string[][];
  /**
   * Decision 82: `POST /{resource}/import` takes a CSV or XLSX file whose headers name the
   * columns as the export does (plus to-one paths such as `user.email`), written in chunks.
   */
  imports?: boolean;
  /**
   * An integer field the library sets to 1 on create and increments with every write of the
   * record (decision 81): shows and single-record write answers carry `ETag: "<version>"`, and
   * `If-Match` on PUT, PATCH or DELETE is compared inside the write. Never written from a body.
   */
  versionField?: string;
  /** With a version field: a PUT, PATCH or DELETE of one record without `If-Match` is a 428. */
  requireIfMatch?: boolean;
  /**
   * Decision 83: every committed write appends one entry per record it touched to a table or
   * collection the library creates (`grr_history_<table>`), in the write's transaction;
   * `GET /{resource}/{id}/history` reads them and `POST .../history/{version}/revert` writes one
   * back. `retain.versions` keeps only each record's newest entries.
   */
  history?: boolean | { retain?: { versions: number } };
}

/** One relation opted in to nested writes, with the pivot columns its links may write. */
export interface NestedWriteDeclaration {
  relation: string;
  pivotColumns?: string[];
}

/** Per-resource read-cache overrides on the declaration (`cache: false` turns it off for the resource). */
export type ResourceCacheSettings = false | {
  ttl?: number;
  ttlByMethod?: Partial<Record<'list_all' | 'get_one', number>>;
  varyHeaders?: string[];
  cacheableMethods?: Array<'list_all' | 'get_one'>;
};

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

/** The authenticated caller, as the application's `authenticate` function returns it. */
export interface AuthUser {
  id: Id;
  roles: string[];
  is_superuser?: boolean;
  [key: string]: unknown;
}

/** A relation route's parent: the records listed or written belong to it. */
export interface ParentScope {
  model: string;
  id: Id;
  relation: string;
}

/**
 * What every service operation receives about the request it serves. Built by the router for
 * each request; the application's own routes can build one with `createContext`.
 */
export interface RequestContext {
  /** null: anonymous. */
  user: AuthUser | null;
  /** The user's roles (empty when anonymous). */
  roles: string[];
  /** Set on relation routes, explicit (`/products/1/tags`) or implicit (`/me/reviews`). */
  parent: ParentScope | null;
  /** Aborted when the client goes away or the request deadline passes. */
  signal: AbortSignal;
  /** The generated route's name (`products.index`), when the request came through one. */
  route: string | null;
  /** Models this request wrote, filled by the service; cache versions are bumped after commit. */
  touched: Set<string>;
  /** Free room for hooks and application middleware. */
  locals: Record<string, unknown>;
  /** The request's id (`X-Request-Id`, taken from the request when well-formed, else made), for history entries (decision 83). */
  requestId?: string;
}
