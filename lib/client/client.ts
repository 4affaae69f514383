import { changes, type ChangeMessage, type ChangesOptions } from './changes';
import { readHistory, revertRecord, type HistoryOptions, type HistoryPage, type RevertOptions } from './history';
import type { AggregateFunctions, AggregateItem, AggregateOptions, GroupField } from './aggregate';
import { FilterBuilder, toOper, type FilterFor, type FilterNode } from './filter';
import { RelationClient } from './relation-client';
import type { CheckRelations, FieldsOf, OrderBy, RelatedTypes, RelationName, ResourceTypes, Selected } from './resource-types';

export type { ApiSchema, ResourceTypes } from './resource-types';

/** What a read takes: `select` narrows the record (keeping `id`), `relations` loads (and types) related records. */
export interface ReadOptions<T extends ResourceTypes, S extends readonly string[] = [], L extends readonly string[] = []> {
  select?: S;
  /** `name`, `name:col1,col2`, `a.b`, `a.b:col1,col2` or `all`; each checked against the generated relations. */
  relations?: CheckRelations<T, L>;
  soft_delete?: 'with' | 'only';
}

export interface ListOptions<T extends ResourceTypes, S extends readonly string[] = [], L extends readonly string[] = []> extends ReadOptions<T, S, L> {
  filter?: (f: FilterFor<T>) => FilterNode;
  attr?: Partial<Pick<T['record'], FieldsOf<T>>>;
  /** Own fields and to-one relation fields (`{'category.name': 'asc'}`); the primary key is always the last tie-breaker. */
  orderby?: OrderBy<T>;
  pagination?: { page: number; pageSize?: number } | { infinity: true; pageSize?: number; cursor?: string };
}

export interface OffsetPage<R> {
  current_page: number;
  data: R[];
  total: number;
  per_page: number;
  last_page: number;
  from: number | null;
  to: number | null;
}

/** A cursor page (`pagination: {infinity: true}`): pass `next_cursor` back as `cursor`. */
export interface CursorPage<R> {
  data: R[];
  per_page: number;
  next_cursor: string | null;
  has_more: boolean;
}

/** The answer of a bulk store or batch update (decision 17): all or nothing, one entry per record in order. */
export interface BulkAnswer<R> {
  success: true;
  models: Array<{ success: true; model: R }>;
}

/** An error answer of the API, thrown by the client. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: { message?: string; type?: string; [key: string]: unknown },
  ) {
    super(body.message ?? `HTTP ${status}`);
  }
}

/** What the client needs at run time per resource, beyond its name: written by the generator as `resources`. */
export interface ResourceRoutes {
  /** MODEL, the key wrapping arrays of records in batch bodies. */
  model: string;
  /** The batch update route the app registered (default `PATCH /batch`). */
  batch?: 'PATCH /batch' | 'POST /update-multiple';
}

export interface ClientOptions {
  /** Where the API is mounted: `http://localhost:3000/api/v1`. */
  baseUrl: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /** The generated file's `resources` (needed by `updateMany`). */
  resources?: Record<string, ResourceRoutes>;
}

type Id = string | number;
type Sel<T extends ResourceTypes> = readonly FieldsOf<T>[];

/** The id type of a resource's records: what its generated record type says (`number` on PostgreSQL integer keys, `string` for ObjectIds). */
export type IdOf<T extends ResourceTypes> = T['record'] extends { id: infer I extends Id } ? I : Id;

const encode = (values: Record<string, unknown>): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) out[key] = typeof value === 'string' ? value : JSON.stringify(value);
  return out;
};

/** The operations of one resource, typed by its generated types. */
export class ResourceClient<T extends ResourceTypes> {
  constructor(
    private readonly options: ClientOptions,
    readonly name: string,
  ) {}

  list<const S extends Sel<T> = [], const L extends readonly string[] = []>(options: ListOptions<T, S, L> & { pagination: { page: number; pageSize?: number } }): Promise<OffsetPage<Selected<T, S, L>>>;
  list<const S extends Sel<T> = [], const L extends readonly string[] = []>(options: ListOptions<T, S, L> & { pagination: { infinity: true; pageSize?: number; cursor?: string } }): Promise<CursorPage<Selected<T, S, L>>>;
  list<const S extends Sel<T> = [], const L extends readonly string[] = []>(options?: ListOptions<T, S, L>): Promise<{ data: Array<Selected<T, S, L>> }>;
  list(options: object = {}): Promise<unknown> {
    return this.call('GET', `/${this.name}`, undefined, this.params(options as ListOptions<T, Sel<T>, string[]>));
  }

  first<const S extends Sel<T> = [], const L extends readonly string[] = []>(options: Omit<ListOptions<T, S, L>, 'pagination'> = {}): Promise<{ data: Selected<T, S, L> | null }> {
    return this.call('GET', `/${this.name}/first`, undefined, this.params(options as ListOptions<T, Sel<T>, string[]>));
  }

  show<const S extends Sel<T> = [], const L extends readonly string[] = []>(id: IdOf<T>, options: ReadOptions<T, S, L> = {}): Promise<Selected<T, S, L>> {
    return this.call('GET', `/${this.name}/${encodeURIComponent(String(id))}`, undefined, encode({ ...options }));
  }

  /**
   * GET /{resource}/changes (decisions 60-62): the committed writes as an async iterator of
   * EventSource-like messages: `for await (const e of api.products.changes({select: ['name']}))`.
   */
  changes(options: ChangesOptions<T['record'], FieldsOf<T>> = {}): AsyncGenerator<ChangeMessage<T['record']>> {
    return changes<T['record']>(this.options, this.name, options as ChangesOptions<T['record']>);
  }

  /**
   * GET /{resource}/aggregate (decisions 55-57): the groups of the matching records, each with the
   * functions asked: `api.products.aggregate({group_by: ['status'], aggregate: {count: '*', sum: ['price']}})`.
   */
  aggregate<G extends GroupField<T> = never, A extends AggregateFunctions<T['record']> = Record<never, never>>(options: AggregateOptions<T, G, A> = {}): Promise<OffsetPage<AggregateItem<T, G, A>>> {
    const { filter, having, ...rest } = options;
    return this.call('GET', `/${this.name}/aggregate`, undefined, encode({ ...rest, ...(filter ? { oper: toOper(filter(new FilterBuilder() as FilterFor<T>)) } : {}), ...(having ? { having: typeof having === 'function' ? toOper(having(new FilterBuilder())) : having } : {}) }));
  }

  create(body: T['create']): Promise<{ success: true; model: T['record'] }> {
    return this.call('POST', `/${this.name}`, body);
  }

  /** Bulk store (decision 17): all or nothing in one transaction; an empty array is a 400. */
  createMany(items: ReadonlyArray<T['create']>): Promise<BulkAnswer<T['record']>> {
    return this.call('POST', `/${this.name}`, items);
  }

  /** POST /{resource}/validate: the create rules without saving; a 422 (thrown) names the fields. */
  validate(body: T['create']): Promise<{ success: true }> {
    return this.call('POST', `/${this.name}/validate`, body);
  }

  update(id: IdOf<T>, body: T['update']): Promise<{ success: true; model: T['record'] }> {
    return this.call('PATCH', `/${this.name}/${encodeURIComponent(String(id))}`, body);
  }

  /** Batch update (decision 19): each item names its id; all or nothing, an unknown id is a 404 listing it. */
  updateMany(items: ReadonlyArray<T['update'] & { id: IdOf<T> }>): Promise<BulkAnswer<T['record']>> {
    const routes = this.options.resources?.[this.name];
    if (!routes) throw new Error(`updateMany needs the "${this.name}" resource's MODEL key: pass the generated file's \`resources\` to createClient({ baseUrl, resources }).`);
    const [method, path] = (routes.batch ?? 'PATCH /batch').split(' ');
    return this.call(method, `/${this.name}${path}`, { [routes.model]: items });
  }

  // upsert(body, options): reserved for the upsert route (built in another branch); it will answer
  // `{success, model}` like create and be typed by the generated `create` body.

  destroy(id: IdOf<T>): Promise<{ success: true; model: T['record'] }> {
    return this.call('DELETE', `/${this.name}/${encodeURIComponent(String(id))}`);
  }

  /** DELETE /{resource}/batch (decision 20): all or nothing, an unknown id is a 404 listing it. */
  destroyMany(ids: ReadonlyArray<IdOf<T>>): Promise<{ success: true; deleted: number }> {
    return this.call('DELETE', `/${this.name}/batch`, { ids });
  }

  /**
   * The relation routes of one parent record: `api.products.relation(id, 'tags').attach(tagId, {position: 1})`.
   * Named by one of the resource's relations, its records are typed as the related record.
   */
  relation<K extends RelationName<T>>(parentId: IdOf<T>, segment: K): RelationClient<RelatedTypes<T, K>['record']>;
  relation<R extends object = Record<string, unknown>>(parentId: IdOf<T>, segment: string): RelationClient<R>;
  relation(parentId: IdOf<T>, segment: string): RelationClient<Record<string, unknown>> {
    return new RelationClient((method, path, body, query) => this.request(method, `/${encodeURIComponent(String(parentId))}/${segment}${path}`, body, query), segment);
  }

  /** GET /{resource}/{id}/history (decision 83): the record's entries newest first, `changes` as the caller may read them. */
  history(id: IdOf<T>, options: HistoryOptions = {}): Promise<HistoryPage<T['record']>> {
    return readHistory<T['record']>((...args) => this.call(...args), this.name, id, options);
  }

  /** POST /{resource}/{id}/history/{version}/revert: an update writing back what that version changed (`ifMatch`: the version read). */
  revert(id: IdOf<T>, version: number, options: RevertOptions = {}): Promise<{ success: true; model: T['record'] }> {
    return revertRecord<T['record']>((...args) => this.call(...args), this.name, id, version, options);
  }

  /** Any other route under this resource (relation routes, restore, ...). */
  request<R = unknown>(method: string, path: string, body?: unknown, query?: Record<string, unknown>): Promise<R> {
    return this.call(method, `/${this.name}${path}`, body, query ? encode(query) : undefined);
  }

  private params(options: ListOptions<T, Sel<T>, string[]>): Record<string, string> {
    const { filter, ...rest } = options;
    return encode({ ...rest, ...(filter ? { oper: toOper(filter(new FilterBuilder() as FilterFor<T>)) } : {}) });
  }

  private async call<R>(method: string, path: string, body?: unknown, query?: Record<string, string>, headers?: Record<string, string>): Promise<R> {
    const url = new URL(this.options.baseUrl.replace(/\/$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
    const res = await (this.options.fetch ?? fetch)(url, {
      method,
      headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...this.options.headers, ...headers },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    const parsed = text ? (JSON.parse(text) as unknown) : null;
    if (!res.ok && res.status !== 207) throw new ApiRequestError(res.status, (parsed ?? {}) as ApiRequestError['body']);
    return parsed as R;
  }
}

/** A client of an API whose types were generated (`npx generic-resource-rest client --url <openapi.json> --out <file.ts>`). */
export function createClient<S extends { [K in keyof S]: ResourceTypes }>(options: ClientOptions): { [K in keyof S & string]: ResourceClient<S[K]> } {
  return new Proxy({} as { [K in keyof S & string]: ResourceClient<S[K]> }, {
    get: (cache, name: string) => ((cache as Record<string, unknown>)[name] ??= new ResourceClient(options, name)),
  });
}
