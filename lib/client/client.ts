import { changes, type ChangeMessage, type ChangesOptions } from './changes';
import type { AggregateFunctions, AggregateItem, AggregateOptions, GroupField } from './aggregate';
import { FilterBuilder, toOper, type FilterNode } from './filter';

/** What the generator writes per resource: the record, its create and update bodies. */
export interface ResourceTypes {
  record: object;
  create: object;
  update: object;
}

export type ApiSchema = Record<string, ResourceTypes>;

export interface ListOptions<R> {
  filter?: (f: FilterBuilder<R>) => FilterNode;
  attr?: Partial<R>;
  select?: Array<keyof R & string>;
  relations?: string[];
  orderby?: Array<Partial<Record<keyof R & string, 'asc' | 'desc'>>>;
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

/** An error answer of the API, thrown by the client. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: { message?: string; type?: string; [key: string]: unknown },
  ) {
    super(body.message ?? `HTTP ${status}`);
  }
}

export interface ClientOptions {
  /** Where the API is mounted: `http://localhost:3000/api/v1`. */
  baseUrl: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

type Id = string | number;

/** The id type of a resource's records: what its generated record type says (`number` on PostgreSQL integer keys, `string` for ObjectIds). */
export type IdOf<T extends ResourceTypes> = T['record'] extends { id: infer I extends Id } ? I : Id;

/** The operations of one resource, typed by its generated types. */
export class ResourceClient<T extends ResourceTypes> {
  constructor(
    private readonly options: ClientOptions,
    readonly name: string,
  ) {}

  list(options: ListOptions<T['record']> & { pagination: { page: number; pageSize?: number } }): Promise<OffsetPage<T['record']>>;
  list(options?: ListOptions<T['record']>): Promise<{ data: Array<T['record']> }>;
  list(options: ListOptions<T['record']> = {}): Promise<unknown> {
    return this.call('GET', `/${this.name}`, undefined, this.params(options));
  }

  /**
   * GET /{resource}/changes (decisions 60-62): the committed writes as an async iterator of
   * EventSource-like messages: `for await (const e of api.products.changes({select: ['name']}))`.
   */
  changes(options: ChangesOptions<T['record']> = {}): AsyncGenerator<ChangeMessage<T['record']>> {
    return changes<T['record']>(this.options, this.name, options);
  }

  first(options: ListOptions<T['record']> = {}): Promise<{ data: T['record'] | null }> {
    return this.call('GET', `/${this.name}/first`, undefined, this.params(options));
  }

  /**
   * GET /{resource}/aggregate (decisions 55-57): the groups of the matching records, each with the
   * functions asked: `api.products.aggregate({group_by: ['status'], aggregate: {count: '*', sum: ['price']}})`.
   */
  aggregate<G extends GroupField<T['record']> = never, A extends AggregateFunctions<T['record']> = Record<never, never>>(
    options: AggregateOptions<T['record'], G, A> = {},
  ): Promise<OffsetPage<AggregateItem<T['record'], G, A>>> {
    const { filter, ...rest } = options;
    return this.call('GET', `/${this.name}/aggregate`, undefined, this.encode({ ...rest, ...(filter ? { oper: toOper(filter(new FilterBuilder<T['record']>())) } : {}) }));
  }

  show(id: IdOf<T>, options: Pick<ListOptions<T['record']>, 'select' | 'relations'> = {}): Promise<T['record']> {
    return this.call('GET', `/${this.name}/${encodeURIComponent(String(id))}`, undefined, this.params(options));
  }

  create(body: T['create']): Promise<{ success: true; model: T['record'] }> {
    return this.call('POST', `/${this.name}`, body);
  }

  update(id: IdOf<T>, body: T['update']): Promise<{ success: true; model: T['record'] }> {
    return this.call('PATCH', `/${this.name}/${encodeURIComponent(String(id))}`, body);
  }

  destroy(id: IdOf<T>): Promise<{ success: true; model: T['record'] }> {
    return this.call('DELETE', `/${this.name}/${encodeURIComponent(String(id))}`);
  }

  /** The relation routes of one parent record: `api.products.relation(id, 'tags').attach(tagId, {position: 1})`. */
  relation<R extends Record<string, unknown> = Record<string, unknown>>(parentId: IdOf<T>, segment: string): RelationClient<R> {
    return new RelationClient<R>((method, path, body, query) => this.request(method, `/${encodeURIComponent(String(parentId))}/${segment}${path}`, body, query), segment);
  }

  /** Any other route under this resource (relation routes, restore, ...). */
  request<R = unknown>(method: string, path: string, body?: unknown, query?: Record<string, unknown>): Promise<R> {
    return this.call(method, `/${this.name}${path}`, body, query ? this.encode(query) : undefined);
  }

  private params(options: ListOptions<T['record']>): Record<string, string> {
    const { filter, ...rest } = options;
    return this.encode({ ...rest, ...(filter ? { oper: toOper(filter(new FilterBuilder<T['record']>())) } : {}) });
  }

  private encode(values: Record<string, unknown>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) continue;
      out[key] = typeof value === 'string' ? value : JSON.stringify(value);
    }
    return out;
  }

  private async call<R>(method: string, path: string, body?: unknown, query?: Record<string, string>): Promise<R> {
    const url = new URL(this.options.baseUrl.replace(/\/$/, '') + path);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
    const doFetch = this.options.fetch ?? fetch;
    const res = await doFetch(url, {
      method,
      headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...this.options.headers },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    const parsed = text ? (JSON.parse(text) as unknown) : null;
    if (!res.ok && res.status !== 207) throw new ApiRequestError(res.status, (parsed ?? {}) as ApiRequestError['body']);
    return parsed as R;
  }
}

type Send = <R>(method: string, path: string, body?: unknown, query?: Record<string, unknown>) => Promise<R>;

/** Pivot input of bulk attach, sync and toggle: ids, objects with the related key, or id -> pivot values. */
export type PivotInput = Id[] | Array<Record<string, unknown>> | Record<string, Record<string, unknown>>;

/** The relation routes under one parent (spec "Relation endpoints"); bulk answers may be 207 partial successes. */
export class RelationClient<R extends Record<string, unknown>> {
  constructor(
    private readonly send: Send,
    private readonly dataKey: string,
  ) {}

  list(query: Record<string, unknown> = {}): Promise<{ data: Array<R & { pivot?: Record<string, unknown> }> }> {
    return this.send('GET', '', undefined, query);
  }

  show(relatedId: Id): Promise<R & { pivot?: Record<string, unknown> }> {
    return this.send('GET', `/${encodeURIComponent(String(relatedId))}`);
  }

  create(record: Record<string, unknown>): Promise<{ success: true; model: R }> {
    return this.send('POST', '', { [this.dataKey]: record });
  }

  /** Attach one related record, with pivot columns. */
  attach(relatedId: Id, pivot: Record<string, unknown> = {}, relatedKey = 'id'): Promise<{ attached: Id[] }> {
    return this.send('POST', '/attach', { ...pivot, [relatedKey]: relatedId });
  }

  /** bulk_attach (default), sync or toggle. */
  attachMany(input: PivotInput, scenario: 'bulk_attach' | 'sync' | 'toggle' = 'bulk_attach'): Promise<{ attached: Id[]; detached?: Id[]; updated?: Id[] }> {
    return this.send('POST', '/attach', { [this.dataKey]: input }, { _scenario: scenario });
  }

  detach(relatedIds: Id[]): Promise<{ detached: number }> {
    return this.send('DELETE', '/detach', relatedIds, { _scenario: 'bulk_detach' });
  }

  updatePivot(relatedId: Id, pivot: Record<string, unknown>): Promise<R & { pivot: Record<string, unknown> }> {
    return this.send('PUT', `/${encodeURIComponent(String(relatedId))}/pivot`, pivot);
  }
}

/** A client of an API whose types were generated (`npx generic-resource-rest client --url <openapi.json> --out <file.ts>`). */
export function createClient<S extends { [K in keyof S]: ResourceTypes }>(options: ClientOptions): { [K in keyof S & string]: ResourceClient<S[K]> } {
  return new Proxy({} as { [K in keyof S & string]: ResourceClient<S[K]> }, {
    get: (cache, name: string) => ((cache as Record<string, unknown>)[name] ??= new ResourceClient(options, name)),
  });
}
