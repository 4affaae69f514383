import type { Id, ReadOptions, Row, Transaction } from '../../driver';
import { isDriverFailure } from '../../driver';
import type { RestConfig } from '../../config';
import { ApiError, DatabaseError, NotFoundError, ValidationError } from '../../errors';
import type { Loggers } from '../../log/logger';
import type { Filter, ListQuery } from '../../query/ast';
import { allOf } from '../../query/walk';
import type { Registry, ResourceEntry } from '../declarations/registry';
import { narrowColumns, stripHidden } from '../policy/catalog-view';
import { Owned } from './serialize';
import { checkLoadedSize } from './loaded-size';
import { Database } from '../database';
import type { QueryPipeline } from '../policy/query-pipeline';
import { byIdsQuery, inIdOrder } from './read-by-ids';
import type { RequestContext } from '../request-context';
import { AFTER_HOOK } from '../resource-service-types';
import type { WriteScope } from '../resource-service-types';

/** The ground every ResourceService operation stands on: its driver, hooks, read shaping, logging and error translation. */
export class ResourceServiceBase {
  constructor(
    readonly entry: ResourceEntry,
    readonly registry: Registry,
    readonly config: RestConfig,
    protected readonly log: Loggers,
    readonly pipeline: QueryPipeline,
  ) {
    this.database = new Database(entry, (error) => this.translated(error));
  }

  /** The one door to this resource's database (service/database.ts). */
  readonly database: Database;

  get name(): string {
    return this.entry.info.name;
  }

  /** True when the application hooks into the rows an action answers with (`afterList`, `afterCreate`...). */
  hooksAfter(action: keyof typeof AFTER_HOOK): boolean {
    return Boolean(this.hooks[AFTER_HOOK[action]]);
  }

  /** An answer's rows: serialized without a copy when no application hook has seen them (they are this request's own). */
  owned(action: keyof typeof AFTER_HOOK, value: unknown): unknown {
    return this.hooksAfter(action) ? value : new Owned(value);
  }

  protected get hooks() {
    return this.entry.declaration.hooks ?? {};
  }

  /** The models as the caller sees them (fields they may not read are unknown). */
  viewOf(ctx: RequestContext) {
    return this.pipeline.viewOf(ctx);
  }

  /** The records of this resource the caller may see (ownership, soft delete, hooks' scope), for a query rooted here or any read of it. */
  rootScope(query: ListQuery | null, ctx: RequestContext): Filter | null {
    return this.pipeline.scopeOf(ctx)(this.name, query);
  }

  /** Rows by id as the caller may see them (scopes applied), in the order of `ids`. */
  async read(ids: Id[], options: ReadOptions, ctx: RequestContext, tx?: Transaction, narrow: Filter | null = null): Promise<Row[]> {
    if (ids.length === 0) return [];
    const byIds = byIdsQuery(this.entry.info, ids, options);
    const query = this.pipeline.apply({ ...byIds, filter: allOf(byIds.filter, narrow) }, ctx);
    const { rows } = await this.db(() => this.database.list(query, tx));
    return inIdOrder(this.shape(rows, query, ctx), ids, this.entry.info.key);
  }

  /** Which of `ids` exist and are visible to the caller: one query (a scoped read when a scope applies). */
  async visibleIds(ids: Id[], ctx: RequestContext, tx?: Transaction, narrow: Filter | null = null): Promise<Id[]> {
    if (ids.length === 0) return [];
    const key = this.entry.info.key;
    if (!allOf(this.rootScope(null, ctx), narrow)) return this.database.existingIds(this.name, ids, tx);
    const found = new Set((await this.visibleRows(ids, [], ctx, tx, narrow)).map((r) => String(r[key])));
    return ids.filter((id) => found.has(String(id)));
  }

  /** The records of `ids` visible to the caller, with their key and `fields` as stored (no read policy): one query. */
  protected async visibleRows(ids: Id[], fields: string[], ctx: RequestContext, tx?: Transaction, narrow: Filter | null = null): Promise<Row[]> {
    const byIds = byIdsQuery(this.entry.info, ids, { select: [this.entry.info.key, ...fields], relations: [] });
    const { rows } = await this.database.list({ ...byIds, filter: allOf(byIds.filter, allOf(this.rootScope(null, ctx), narrow)) }, tx);
    return rows;
  }

  /** Rows as the caller may see them: fields hidden by their read policy removed at every depth. */
  protected shape(rows: Row[], query: ListQuery, ctx: RequestContext): Row[] {
    checkLoadedSize(rows, query.relations, this.config.maxLoadedRecords);
    return stripHidden(rows, query.model, query.relations, this.pipeline.viewOf(ctx));
  }

  /** The read of records just written, as the caller may see them (no relations). */
  protected readBack(ids: Id[], ctx: RequestContext): ListQuery {
    return narrowColumns(byIdsQuery(this.entry.info, ids, { select: null, relations: [] }), this.pipeline.viewOf(ctx));
  }

  /** What a write returns: the records as a read returns them, inside the write's transaction. */
  protected async reload(ids: Id[], tx: Transaction, ctx: RequestContext): Promise<Row[]> {
    const query = this.readBack(ids, ctx);
    const { rows } = await this.database.list(query, tx);
    return inIdOrder(this.shape(rows, query, ctx), ids, this.entry.info.key);
  }

  protected parseIdOr404(rawId: string, scope: WriteScope = {}): Id {
    const id = this.database.parseId(this.name, rawId);
    if (id === null) throw scope.notFound?.([rawId]) ?? this.notFound(rawId);
    return id;
  }

  protected notFound(rawId: string): NotFoundError {
    return new NotFoundError(`No ${this.name} found with id ${rawId}.`);
  }

  protected logQuery(action: string, query: ListQuery | Record<string, unknown>, durationMs?: number): void {
    if (!this.config.logQueries) return;
    const compiled = 'model' in query && 'order' in query ? this.database.compile(query as ListQuery) : undefined;
    this.log.query.info(`${this.name}.${action}`, { model: this.name, action, query, compiled, duration_ms: durationMs });
  }

  /** A read, logged with its duration on the query channel; its errors translated like db()'s. */
  protected async timed<T>(action: string, query: ListQuery, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } catch (err) {
      throw this.translated(err);
    } finally {
      this.logQuery(action, query, Math.round((performance.now() - started) * 10) / 10);
    }
  }

  /** Driver work of a caller outside this service (relation routes), its errors translated like this service's. */
  translating<T>(work: () => Promise<T>): Promise<T> {
    return this.db(work);
  }

  /** Runs driver work; native errors become typed DatabaseErrors (the original kept as cause). */
  protected db<T>(work: () => Promise<T>): Promise<T> {
    return this.database.guarded(work);
  }

  protected translated(err: unknown): unknown {
    if (err instanceof ApiError) return err;
    const info = isDriverFailure(err) ? err.info : (this.entry.driver.translateError(err) ?? { type: 'database_error' as const });
    // model-layer validators (mongoose): the same 422 shape as the library's own (decision 24)
    if (info.type === 'validation_error' && info.errors && Object.keys(info.errors).length > 0) {
      this.log.db.warn(`${this.name}: model validation failed`, { errors: info.errors });
      return new ValidationError(info.errors);
    }
    return new DatabaseError(info, { cause: err });
  }
}
