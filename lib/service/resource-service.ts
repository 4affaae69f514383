import type { YupLikeSchema } from '../resource/yup-like';
import type { Id, ReadOptions, Row, Transaction } from '../driver';
import { isDriverFailure } from '../driver';
import type { RestConfig } from '../config';
import { ApiError, BadRequestError, DatabaseError, ForbiddenError, MissingIdsError, NotFoundError, ValidationError } from '../errors';
import type { Loggers } from '../log/logger';
import { parseListQuery, parseReadOptions, withTrashed, type RequestParams } from '../query';
import type { Filter, ListQuery } from '../query/ast';
import { allOf } from '../query/walk';
import type { Registry, ResourceEntry } from '../resource/registry';
import { modelsTouchedByDelete } from '../resource/references';
import type { AccessAction } from './access-policy';
import { rolesRule, type RolesRule } from '../auth/grantable-roles';
import { narrowColumns, stripHidden } from './catalog-view';
import { checkLoadedSize } from './loaded-size';
import { ownerFilter, ownerValue } from './ownership';
import { checkReferences, checkWanted, normalizeReferences, type WantedReferences } from './check-references';
import { chunkRanges, pipelinedInsert } from './pipelined-insert';
import { checkValues } from './check-values';
import { listEnvelope, type ListEnvelope } from './envelopes';
import { aggregateEnvelope, planAggregate, runAggregateOn, type AggregateEnvelope, type PlannedAggregate } from './aggregate';
import { runHook } from './hooks';
import { NestedWrites } from './nested/nested-writes';
import type { QueryPipeline } from './query-pipeline';
import { byIdsQuery, inIdOrder } from './read-by-ids';
import { plainObject, readIdList, readStoreBody } from './read-body';
import type { RequestContext } from './request-context';
import { addError, pickFillable, validateItem, type FieldErrors } from './validate-input';

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
}

/** `record` (the request's own copy) with the server-set values over it. */
function stamp(record: Record<string, unknown>, stamped: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(stamped)) record[key] = stamped[key];
  return record;
}

/** The hook that sees the rows an action answers with. */
const AFTER_HOOK = { list: 'afterList', show: 'afterShow', create: 'afterCreate', update: 'afterUpdate' } as const;

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

/**
 * The operations of one resource, driver-agnostic. Parses input once, passes every query through
 * the query pipeline (scopes, transforms), validates everything before opening a transaction, runs
 * each write in one transaction with a constant number of driver calls, runs the resource's hooks
 * and turns native database errors into typed ones. Every operation takes the request context.
 */
export class ResourceService {
  constructor(
    readonly entry: ResourceEntry,
    readonly registry: Registry,
    readonly config: RestConfig,
    private readonly log: Loggers,
    readonly pipeline: QueryPipeline,
  ) {}

  /** Nested writes of the relations this resource opts in (decision 58), set once every service exists. */
  private nested: NestedWrites | null = null;

  /** Resolves `nestedWrites` (start-up errors name the key); `serviceOf` finds the related resources' services. */
  enableNestedWrites(serviceOf: (model: string) => ResourceService | undefined): void {
    this.nested = new NestedWrites(this, serviceOf);
  }

  get name(): string {
    return this.entry.info.name;
  }

  private get driver() {
    return this.entry.driver;
  }

  /** True when the application hooks into the rows an action answers with (`afterList`, `afterCreate`...). */
  hooksAfter(action: keyof typeof AFTER_HOOK): boolean {
    return Boolean(this.hooks[AFTER_HOOK[action]]);
  }

  private get hooks() {
    return this.entry.declaration.hooks ?? {};
  }

  /** The models as the caller sees them (fields they may not read are unknown). */
  viewOf(ctx: RequestContext) {
    return this.pipeline.viewOf(ctx);
  }

  /**
   * The parsed list query of a request, before the pipeline (cursors are bound to it). Parsed
   * against the caller's view: a field they may not read is unknown in every position.
   */
  parseList(params: RequestParams, ctx: RequestContext, options: { forFirst?: boolean } = {}): ListQuery {
    const view = this.pipeline.viewOf(ctx);
    return parseListQuery(params, view.model(this.name), view, this.config, options);
  }

  /** The query as the driver will run it: scopes and transforms applied, then the beforeList hook. */
  async prepareList(parsed: ListQuery, ctx: RequestContext): Promise<ListQuery> {
    return runHook(this.hooks.beforeList, this.pipeline.apply(parsed, ctx), ctx);
  }

  /** A list read, planned: the parsed query (cursors are bound to it) and the query the driver will run. */
  async planList(params: RequestParams, ctx: RequestContext, options: { forFirst?: boolean } = {}): Promise<PlannedList> {
    const parsed = this.parseList(params, ctx, options);
    return { parsed, query: await this.prepareList(parsed, ctx) };
  }

  async runList(plan: PlannedList, ctx: RequestContext, action = 'index'): Promise<ListEnvelope> {
    const result = await this.timed(action, plan.query, () => this.driver.list(plan.query));
    result.rows = await runHook(this.hooks.afterList, this.shape(result.rows, plan.query, ctx), ctx);
    return listEnvelope(plan.parsed, result);
  }

  async list(params: RequestParams, ctx: RequestContext, action = 'index'): Promise<ListEnvelope> {
    return this.runList(await this.planList(params, ctx), ctx, action);
  }

  /** Every row of a prepared query, as the caller may see it (hierarchy reads assemble them). */
  async runRows(query: ListQuery, ctx: RequestContext, action: string): Promise<Row[]> {
    const result = await this.timed(action, query, () => this.driver.list(query));
    return runHook(this.hooks.afterList, this.shape(result.rows, query, ctx), ctx);
  }

  /** The records of this resource the caller may see, for a query rooted here (ownership, soft delete, hooks' scope). */
  rootScope(query: ListQuery, ctx: RequestContext): Filter | null {
    return this.pipeline.scopeOf(ctx)(this.name, query);
  }

  async runFirst(plan: PlannedList, ctx: RequestContext): Promise<{ data: Row | null }> {
    const result = await this.timed('first', plan.query, () => this.driver.list(plan.query));
    const rows = await runHook(this.hooks.afterList, this.shape(result.rows, plan.query, ctx), ctx);
    return { data: rows[0] ?? null };
  }

  async first(params: RequestParams, ctx: RequestContext): Promise<{ data: Row | null }> {
    return this.runFirst(await this.planList(params, ctx, { forFirst: true }), ctx);
  }

  /** How many records a query matches (one count; the query's page and loads are ignored). */
  async count(query: ListQuery): Promise<number> {
    const key = this.entry.info.key;
    const probe: ListQuery = { ...query, select: [key], relations: [], page: { kind: 'offset', page: 1, size: 1 }, limit: null };
    const { total } = await this.timed('count', probe, () => this.driver.list(probe));
    return total ?? 0;
  }

  /** GET /aggregate (decisions 55-57), planned: parsed against the caller's view, its filter through the list's pipeline. */
  planAggregate(params: RequestParams, ctx: RequestContext): Promise<PlannedAggregate> {
    const view = this.pipeline.viewOf(ctx);
    return planAggregate(params, view.model(this.name), view, this.config, (carrier) => this.prepareList(carrier, ctx));
  }

  /** Runs a planned aggregate; the query log shows the aggregate query (its driver form is not a list's). */
  async runAggregate(plan: PlannedAggregate): Promise<AggregateEnvelope> {
    const started = performance.now();
    try {
      return aggregateEnvelope(plan.query, await runAggregateOn(this.driver, plan));
    } catch (err) {
      throw this.translated(err);
    } finally {
      this.logQuery('aggregate', { aggregate: plan.query }, Math.round((performance.now() - started) * 10) / 10);
    }
  }

  /** A show, planned: the id (404 when it cannot be one) and the scoped by-id query. */
  async planShow(rawId: string, params: RequestParams, ctx: RequestContext): Promise<PlannedShow> {
    const id = this.parseIdOr404(rawId);
    if (this.hooks.beforeShow) await this.hooks.beforeShow(id, ctx);
    const view = this.pipeline.viewOf(ctx);
    const options = parseReadOptions(params, view.model(this.name), view, this.config);
    const loadLimit = options.relations.length > 0 ? { loadLimit: this.config.maxLoadedRecords } : {};
    return { rawId, id, query: this.pipeline.apply({ ...byIdsQuery(this.entry.info, [id], options), ...withTrashed(params, this.entry.info), ...loadLimit }, ctx) };
  }

  async runShow(plan: PlannedShow, ctx: RequestContext): Promise<Row> {
    const { rows } = await this.timed('show', plan.query, () => this.driver.list(plan.query));
    const row = inIdOrder(this.shape(rows, plan.query, ctx), [plan.id], this.entry.info.key)[0];
    if (!row) throw this.notFound(plan.rawId);
    return runHook(this.hooks.afterShow, row, ctx);
  }

  async show(rawId: string, params: RequestParams, ctx: RequestContext): Promise<Row> {
    return this.runShow(await this.planShow(rawId, params, ctx), ctx);
  }

  async store(body: unknown, ctx: RequestContext, scope: WriteScope = {}): Promise<WriteResult | BulkWriteResult> {
    const { items, many } = readStoreBody(body, this.name);
    if (this.nested?.applies(items, scope)) return this.nested.store(items, many, ctx);
    return this.storeItems(items, many, ctx, scope);
  }

  /** Creates records (one, or several all-or-nothing) in one transaction with one bulk insert. */
  async storeItems(items: unknown[], many: boolean, ctx: RequestContext, scope: WriteScope = {}): Promise<WriteResult | BulkWriteResult> {
    const key = scope.itemKey ?? this.name;
    if (items.length === 0) throw new BadRequestError(`The "${key}" array must contain at least one record.`, key);
    const prefix = (i: number) => (many ? `${key}.${i}.` : '');
    const ranges = chunkRanges(items.length);
    if (ranges.length > 1 && this.pipelines(scope)) return this.storePipelined(items, ranges, prefix, ctx, scope.forced);
    const prepared = await this.prepare(items, 'create', prefix, ctx, scope.forced);
    const records = await runHook(this.hooks.beforeCreate, prepared, ctx);
    this.logQuery('store', { count: records.length });
    const inserted = await this.db(() =>
      this.driver.transaction(async (tx) => {
        // the new rows straight from the insert when the driver can and nothing runs in between
        if (this.driver.insertRows && !scope.within) {
          const read = this.readBack([], ctx);
          return this.shape(await this.driver.insertRows(this.name, records, read)(tx), read, ctx);
        }
        const ids = await this.driver.insert(this.name, records, tx);
        await scope.within?.(tx, ids);
        return this.reload(ids, tx, ctx);
      }),
    );
    ctx.touched.add(this.name);
    const rows = await runHook(this.hooks.afterCreate, inserted, ctx);
    if (!many) return { success: true, model: rows[0] };
    return { success: true, models: rows.map((model) => ({ success: true as const, model })) };
  }

  /**
   * A large bulk create validates its next chunk while the database inserts the previous one
   * (pipelined-insert.ts): when the driver returns inserted rows, a schema validates (the work
   * worth overlapping), and no hook or relation route needs every record before the first insert.
   */
  private pipelines(scope: WriteScope): boolean {
    return Boolean(this.driver.insertRows && this.entry.declaration.validation?.create && !this.hooks.beforeCreate && !scope.within);
  }

  private async storePipelined(items: unknown[], ranges: Array<[number, number]>, prefix: (index: number) => string, ctx: RequestContext, forced: Record<string, unknown> = {}): Promise<BulkWriteResult> {
    const rules = this.writeRules('create', ctx, forced);
    const errors: FieldErrors = {};
    const read = this.readBack([], ctx);
    const key = this.entry.info.key;
    const pathOf = (i: number, field: string) => `${prefix(i)}${field}`;
    // the references of every chunk, gathered as each is prepared and checked once at the end
    const wanted: WantedReferences = new Map();
    const insertRows = this.driver.insertRows?.bind(this.driver);
    if (!insertRows) throw new Error('storePipelined needs a driver that returns inserted rows');
    this.logQuery('store', { count: items.length });
    const inserted = await this.db(() =>
      pipelinedInsert({
        ranges,
        errors,
        prepare: async (from, to) => {
          const records = await this.prepareRange(items, from, to, prefix, rules, errors);
          normalizeReferences(this.entry, this.registry, records, pathOf, errors, wanted, from);
          return records;
        },
        insert: (records) => insertRows(this.name, records, read),
        finish: (rows, tx) => checkWanted(this.registry, wanted, pathOf, errors, tx, rows ? { model: this.name, ids: new Set(rows.map((row) => row[key] as Id)) } : undefined),
        transaction: (work) => this.driver.transaction(work),
      }),
    );
    ctx.touched.add(this.name);
    const rows = await runHook(this.hooks.afterCreate, this.shape(inserted, read, ctx), ctx);
    return { success: true, models: rows.map((model) => ({ success: true as const, model })) };
  }

  async validate(body: unknown, ctx: RequestContext): Promise<{ success: true }> {
    if (this.nested?.applies([body], {})) return this.nested.validate(body, ctx);
    await this.prepare([plainObject(body ?? {}, 'The request body')], 'create', () => '', ctx);
    return { success: true };
  }

  async update(rawId: string, body: unknown, ctx: RequestContext, scope: WriteScope = {}): Promise<WriteResult> {
    if (this.nested?.applies([body], scope)) return this.nested.update(rawId, body, ctx);
    const id = this.parseIdOr404(rawId, scope);
    const [prepared] = await this.prepare([plainObject(body ?? {}, 'The request body')], 'update', () => '', ctx, scope.forced);
    const [item] = await runHook(this.hooks.beforeUpdate, [{ id, changes: prepared }], ctx);
    this.logQuery('update', { id, changes: item.changes });
    const [written] = await this.db(() =>
      this.driver.transaction(async (tx) => {
        await this.lockHierarchy([item], tx);
        const existing = await this.visibleIds([id], ctx, tx, scope.narrow);
        if (existing.length === 0) throw scope.notFound?.([rawId]) ?? this.notFound(rawId);
        await this.assertOwned([id], 'update', ctx, tx);
        if (Object.keys(item.changes).length > 0) await this.driver.update(this.name, [item], tx);
        await scope.within?.(tx, [id]);
        await this.assertNoCycle([item], tx, () => '');
        return this.reload([id], tx, ctx);
      }),
    );
    ctx.touched.add(this.name);
    const [row] = await runHook(this.hooks.afterUpdate, [written], ctx);
    return { success: true, model: row };
  }

  async updateMultiple(body: unknown, ctx: RequestContext, scope: WriteScope = {}): Promise<BulkWriteResult> {
    const key = scope.itemKey ?? this.name;
    const raw = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[key] : undefined;
    if (!Array.isArray(raw)) throw new BadRequestError(`The "${key}" key is required and must be an array of records with an id.`, key);
    if (raw.length === 0) throw new BadRequestError(`The "${key}" array must contain at least one record.`, key);
    if (this.nested?.applies(raw, scope)) this.nested.refuseInBulkUpdate(raw, key);
    const errors: FieldErrors = {};
    const ids: Id[] = [];
    const unknownIds: Array<string | number> = [];
    raw.forEach((item, index) => {
      const rawId = item !== null && typeof item === 'object' ? (item as { id?: unknown }).id : undefined;
      if (rawId === undefined || rawId === null || rawId === '') {
        addError(errors, `${key}.${index}.id`, 'The id field is required.');
        return;
      }
      if (typeof rawId !== 'string' && typeof rawId !== 'number') {
        // an object such as {"$ne": null} is not an id: never echoed back as one
        addError(errors, `${key}.${index}.id`, 'The id must be a string or a number.');
        return;
      }
      const id = this.driver.parseId(this.name, String(rawId));
      if (id === null) unknownIds.push(rawId);
      else ids.push(id);
    });
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    if (unknownIds.length > 0) throw scope.notFound?.(unknownIds) ?? new MissingIdsError(this.name, unknownIds);
    if (new Set(ids).size !== ids.length) throw new BadRequestError(`Each id may appear only once in "${key}".`, key);
    const changes = await this.prepare(raw, 'update', (i) => `${key}.${i}.`, ctx, scope.forced);
    const items = await runHook(this.hooks.beforeUpdate, ids.map((id, i) => ({ id, changes: changes[i] })), ctx);
    this.logQuery('updateMultiple', { ids });
    const written = await this.db(() =>
      this.driver.transaction(async (tx) => {
        await this.lockHierarchy(items, tx);
        const changed = items.filter((item) => Object.keys(item.changes).length > 0);
        // a caller who sees every record: the UPDATE itself finds which ids exist (a missing one is
        // a 404 that rolls back what it wrote), one statement fewer than checking them first
        if (this.driver.updateRows && changed.length === items.length && this.seesEveryRecord(ctx, scope)) {
          const read = this.readBack(ids, ctx);
          const rows = await this.driver.updateRows(this.name, changed, tx, read);
          this.assertAllFound(ids, rows.map((row) => row[this.entry.info.key] as Id), scope);
          await this.assertNoCycle(items, tx, (i) => `${key}.${i}.`);
          return inIdOrder(this.shape(rows, read, ctx), ids, this.entry.info.key);
        }
        await this.assertAllVisible(ids, ctx, tx, scope);
        await this.assertOwned(ids, 'update', ctx, tx);
        // every record changes: the UPDATE returns them (the cycle check only reads)
        if (this.driver.updateRows && changed.length === items.length) {
          const read = this.readBack(ids, ctx);
          const rows = await this.driver.updateRows(this.name, changed, tx, read);
          await this.assertNoCycle(items, tx, (i) => `${key}.${i}.`);
          return inIdOrder(this.shape(rows, read, ctx), ids, this.entry.info.key);
        }
        if (changed.length > 0) await this.driver.update(this.name, changed, tx);
        await this.assertNoCycle(items, tx, (i) => `${key}.${i}.`);
        return this.reload(ids, tx, ctx);
      }),
    );
    ctx.touched.add(this.name);
    const rows = await runHook(this.hooks.afterUpdate, written, ctx);
    return { success: true, models: rows.map((model) => ({ success: true as const, model })) };
  }

  async destroy(rawId: string, ctx: RequestContext, scope: WriteScope = {}): Promise<WriteResult> {
    const id = this.parseIdOr404(rawId, scope);
    await this.hooks.beforeDelete?.([id], ctx);
    this.logQuery('destroy', { id });
    const row = await this.db(() =>
      this.driver.transaction(async (tx) => {
        const [found] = await this.read([id], { select: null, relations: [] }, ctx, tx, scope.narrow);
        if (!found) throw scope.notFound?.([rawId]) ?? this.notFound(rawId);
        await this.assertOwned([id], 'delete', ctx, tx);
        await scope.within?.(tx, [id]);
        // soft-deletable: the record stays, with its deletion time, and is answered so (decision 51)
        if (this.entry.info.softDelete) {
          const trashed = await this.trash([id], tx, ctx);
          if (trashed.length === 0) throw this.notFound(rawId); // a concurrent destroy won
          return trashed[0];
        }
        const deleted = await this.driver.delete(this.name, [id], tx);
        // a concurrent delete removed it first: exactly one caller deletes a record
        if (deleted.length === 0) throw this.notFound(rawId);
        return found;
      }),
    );
    return this.answerDeleted(row, ctx);
  }

  async deleteById(body: unknown, ctx: RequestContext, scope: WriteScope = {}): Promise<{ success: true; deleted: number; ids: Id[] }> {
    const rawIds = readIdList(body);
    if (rawIds.length === 0) throw new BadRequestError('The "ids" array must contain at least one id.', 'ids');
    const ids: Id[] = [];
    const invalid: Array<string | number> = [];
    const seen = new Set<Id>();
    const errors: FieldErrors = {};
    rawIds.forEach((rawId, index) => {
      if (typeof rawId !== 'string' && typeof rawId !== 'number') {
        addError(errors, `ids.${index}`, 'The id must be a string or a number.');
        return;
      }
      const id = this.driver.parseId(this.name, String(rawId));
      if (id === null) invalid.push(rawId);
      else if (!seen.has(id)) {
        seen.add(id);
        ids.push(id);
      }
    });
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    if (invalid.length > 0) throw scope.notFound?.(invalid) ?? new MissingIdsError(this.name, invalid);
    await this.hooks.beforeDelete?.(ids, ctx);
    this.logQuery('deleteById', { ids });
    await this.db(() =>
      this.driver.transaction(async (tx) => {
        await this.assertAllVisible(ids, ctx, tx, scope);
        await this.assertOwned(ids, 'delete', ctx, tx);
        await scope.within?.(tx, ids);
        if (this.entry.info.softDelete) {
          // all or nothing: a concurrent destroy that took one of them makes this call a 404
          if ((await this.trash(ids, tx, ctx)).length < ids.length) throw new MissingIdsError(this.name, ids);
          return;
        }
        const deleted = new Set((await this.driver.delete(this.name, ids, tx)).map(String));
        const lost = ids.filter((id) => !deleted.has(String(id)));
        // a concurrent delete took some: this call deletes nothing (all or nothing)
        if (lost.length > 0) throw new MissingIdsError(this.name, lost);
      }),
    );
    this.touchDeleted(ctx);
    await this.hooks.afterDelete?.([], ctx);
    return { success: true, deleted: ids.length, ids };
  }

  /** `POST /{resource}/{id}/restore`: a trashed record back; one that is not trashed is a 404 (decision 46). */
  async restore(rawId: string, ctx: RequestContext): Promise<WriteResult> {
    const field = this.requireSoftDelete();
    const id = this.parseIdOr404(rawId);
    const row = await this.db(() =>
      this.driver.transaction(async (tx) => {
        const [found] = await this.readTrashed([id], 'only', ctx, tx);
        if (!found) throw new NotFoundError(`No trashed ${this.name} found with id ${rawId}.`);
        await this.assertOwned([id], 'update', ctx, tx, 'with');
        const restored = await this.driver.update(this.name, [{ id, changes: { [field]: null } }], tx, { field, isNull: false });
        if (restored === 0) throw new NotFoundError(`No trashed ${this.name} found with id ${rawId}.`); // a concurrent restore won
        return (await this.reload([id], tx, ctx))[0];
      }),
    );
    ctx.touched.add(this.name);
    return { success: true, model: row };
  }

  /** `DELETE /{resource}/{id}/force`: removes a record for good, trashed or not, with its delete rules. */
  async forceDelete(rawId: string, ctx: RequestContext): Promise<WriteResult> {
    this.requireSoftDelete();
    const id = this.parseIdOr404(rawId);
    await this.hooks.beforeDelete?.([id], ctx);
    const row = await this.db(() =>
      this.driver.transaction(async (tx) => {
        const [found] = await this.readTrashed([id], 'with', ctx, tx);
        if (!found) throw this.notFound(rawId);
        await this.assertOwned([id], 'delete', ctx, tx, 'with');
        const deleted = await this.driver.delete(this.name, [id], tx);
        if (deleted.length === 0) throw this.notFound(rawId);
        return found;
      }),
    );
    return this.answerDeleted(row, ctx);
  }

  /**
   * Sets the deletion time of `ids` that are not trashed yet (one guarded statement for any count)
   * and answers them; fewer rows than ids means a concurrent destroy took some.
   */
  private async trash(ids: Id[], tx: Transaction, ctx: RequestContext): Promise<Row[]> {
    const field = this.requireSoftDelete();
    const now = new Date();
    const count = await this.driver.update(this.name, ids.map((id) => ({ id, changes: { [field]: now } })), tx, { field, isNull: true });
    return count < ids.length ? [] : this.reload(ids, tx, ctx);
  }

  private async readTrashed(ids: Id[], trashed: 'with' | 'only', ctx: RequestContext, tx: Transaction): Promise<Row[]> {
    const query = this.pipeline.apply({ ...byIdsQuery(this.entry.info, ids, { select: null, relations: [] }), trashed }, ctx);
    return inIdOrder(this.shape((await this.driver.list(query, tx)).rows, query, ctx), ids, this.entry.info.key);
  }

  private requireSoftDelete(): string {
    if (!this.entry.info.softDelete) throw new Error(`${this.name} is not soft-deletable`);
    return this.entry.info.softDelete;
  }

  /** Rows by id as the caller may see them (scopes applied), in the order of `ids`. */
  async read(ids: Id[], options: ReadOptions, ctx: RequestContext, tx?: Transaction, narrow: Filter | null = null): Promise<Row[]> {
    if (ids.length === 0) return [];
    const byIds = byIdsQuery(this.entry.info, ids, options);
    const query = this.pipeline.apply({ ...byIds, filter: allOf(byIds.filter, narrow) }, ctx);
    const { rows } = await this.db(() => this.driver.list(query, tx));
    return inIdOrder(this.shape(rows, query, ctx), ids, this.entry.info.key);
  }

  /** Which of `ids` exist and are visible to the caller: one query (a scoped read when a scope applies). */
  async visibleIds(ids: Id[], ctx: RequestContext, tx?: Transaction, narrow: Filter | null = null): Promise<Id[]> {
    if (ids.length === 0) return [];
    const key = this.entry.info.key;
    const scope = allOf(this.pipeline.scopeOf(ctx)(this.name), narrow);
    if (!scope) return this.driver.existingIds(this.name, ids, tx);
    const byIds = byIdsQuery(this.entry.info, ids, { select: [key], relations: [] });
    const { rows } = await this.driver.list({ ...byIds, filter: allOf(byIds.filter, scope) }, tx);
    const found = new Set(rows.map((r) => String(r[key])));
    return ids.filter((id) => found.has(String(id)));
  }

  /** Fillable attributes, validated and cast, belongsTo references checked; 422 with every error. */
  async prepare(items: unknown[], mode: 'create' | 'update', prefix: (index: number) => string, ctx: RequestContext, forced: Record<string, unknown> = {}): Promise<Record<string, unknown>[]> {
    const errors: FieldErrors = {};
    const records = await this.prepareRange(items, 0, items.length, prefix, this.writeRules(mode, ctx, forced), errors);
    await this.db(() => checkReferences(this.entry, this.registry, records, (i, field) => `${prefix(i)}${field}`, errors));
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return records;
  }

  /** What checking one request's records needs, looked up once per request. */
  writeRules(mode: 'create' | 'update', ctx: RequestContext, forced: Record<string, unknown>): WriteRules {
    const { info, declaration } = this.entry;
    return {
      // yup's own schema behind the published structural type (YupLikeSchema)
      schema: (mode === 'create' ? declaration.validation?.create : declaration.validation?.update),
      prohibited: this.pipeline.policy.prohibitedFields(info, ctx),
      stamped: { ...this.ownerStamp(mode, ctx), ...forced },
      roles: rolesRule(declaration.grantableRoles, declaration.rolesField, ctx),
    };
  }

  /**
   * Items `from` to `to` (exclusive) checked and cast: fillable fields, values against the model,
   * the schema; errors keyed by each item's own index. References are checked by the caller.
   */
  async prepareRange(items: unknown[], from: number, to: number, prefix: (index: number) => string, rules: WriteRules, errors: FieldErrors): Promise<Record<string, unknown>[]> {
    const { info } = this.entry;
    const records: Record<string, unknown>[] = [];
    for (let index = from; index < to; index += 1) {
      const item = items[index];
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        addError(errors, prefix(index).replace(/\.$/, '') || 'body', 'Each record must be a JSON object.');
        records.push({});
        continue;
      }
      // only own fillable keys are copied out of the body (never __proto__ and the like)
      const raw = item as Record<string, unknown>;
      const at = prefix(index);
      // fieldsByRole: each field the caller's roles may not write is an error of its own (decision 39)
      if (rules.prohibited.size > 0) for (const field of Object.keys(raw)) if (rules.prohibited.has(field)) addError(errors, `${at}${field}`, `The ${field} field is prohibited.`);
      // grantableRoles: a role name the caller may not grant is an error of the roles field (decision 68)
      if (rules.roles && Object.prototype.hasOwnProperty.call(raw, rules.roles.field) && !rules.prohibited.has(rules.roles.field)) {
        const refused = rules.roles.check(raw[rules.roles.field]);
        if (refused) addError(errors, `${at}${rules.roles.field}`, refused);
      }
      const attributes = stamp(pickFillable(raw, info.fillable), rules.stamped);
      // the types as sent, before a schema's casts could turn `[1]` into 1
      checkValues(info, attributes, at, errors);
      // what the server sets (owner, a relation's parent key) stays set even when not fillable
      const record = stamp(await validateItem(rules.schema, attributes, info.fillable, at, errors), rules.stamped);
      checkValues(info, record, at, errors);
      records.push(record);
    }
    return records;
  }

  /**
   * With only an "own" grant for a write, the owner field is the caller whatever the body says
   * (a create is theirs; an update cannot give a record away).
   */
  private ownerStamp(mode: 'create' | 'update', ctx: RequestContext): Record<string, unknown> {
    const { owner, key } = this.entry.info;
    if (!owner || owner === key || !ctx.user) return {};
    if (this.pipeline.policy.possession(this.entry.info, mode, ctx) !== 'own') return {};
    return { [owner]: ownerValue(this.entry.info, ctx) };
  }

  /**
   * Decision 40: with only an "own" grant for `action`, a record the caller may read but does not
   * own is a 403 (one query, only for such callers; records they may not read were already 404s).
   */
  private async assertOwned(ids: Id[], action: AccessAction, ctx: RequestContext, tx: Transaction, trashed?: 'with'): Promise<void> {
    const info = this.entry.info;
    if (this.pipeline.policy.possession(info, action, ctx) !== 'own') return;
    const mine: ListQuery = { ...byIdsQuery(info, ids, { select: [info.key], relations: [] }), trashed };
    const filter = allOf(mine.filter, ownerFilter(info, ctx));
    const { rows } = await this.driver.list({ ...mine, filter }, tx);
    if (rows.length < ids.length) throw new ForbiddenError();
  }

  /**
   * First in a write that moves records in a hierarchy (sets the parent field): the driver's lock
   * orders concurrent moves of this model, so the cycle check of each sees the moves committed
   * before it. Without it, A.parent = B and B.parent = A in parallel both pass their checks.
   */
  private async lockHierarchy(items: Array<{ changes: Record<string, unknown> }>, tx: Transaction): Promise<void> {
    const field = this.entry.info.hierarchyField;
    if (!field || !this.driver.lockHierarchy) return;
    if (items.some((item) => item.changes[field] !== undefined && item.changes[field] !== null)) await this.driver.lockHierarchy(this.name, tx);
  }

  /**
   * Decision 44: after a write moved records in a hierarchy, no record may be its own ancestor
   * (itself or a descendant as parent, also across the items of one bulk request). One walk up
   * from the moved records inside the write's transaction, so concurrent moves cannot cross.
   */
  private async assertNoCycle(items: Array<{ id: Id; changes: Record<string, unknown> }>, tx: Transaction, prefix: (index: number) => string): Promise<void> {
    const { hierarchyField: field, key } = this.entry.info;
    if (!field) return;
    const moved = items.map((item, index) => ({ item, index })).filter(({ item }) => item.changes[field] !== undefined && item.changes[field] !== null);
    if (moved.length === 0) return;
    const start: Filter = { kind: 'condition', field: key, operator: 'in', value: moved.map(({ item }) => item.id) };
    const query: ListQuery = { model: this.name, filter: null, select: [key, field], relations: [], order: [{ relations: [], field: key, direction: 'asc' }], page: null, limit: null, tree: { parentField: field, start, down: false, up: true, maxDepth: null, scope: null } };
    const { rows } = await this.driver.list(query, tx);
    const parentOf = new Map(rows.map((r) => [String(r[key]), r[field] === null || r[field] === undefined ? null : String(r[field])]));
    const errors: FieldErrors = {};
    for (const { item, index } of moved) {
      const self = String(item.id);
      const seen = new Set<string>();
      for (let at = parentOf.get(self) ?? null; at !== null && !seen.has(at); at = parentOf.get(at) ?? null) {
        if (at === self) {
          addError(errors, `${prefix(index)}${field}`, `The ${field} cannot be the ${this.name} itself or one of its descendants.`);
          break;
        }
        seen.add(at);
      }
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  }

  /** Rows as the caller may see them: fields hidden by their read policy removed at every depth. */
  private shape(rows: Row[], query: ListQuery, ctx: RequestContext): Row[] {
    checkLoadedSize(rows, query.relations, this.config.maxLoadedRecords);
    return stripHidden(rows, query.model, query.relations, this.pipeline.viewOf(ctx));
  }

  /** A single delete's answer: caches of every model it touched invalidated, the afterDelete hook run. */
  private async answerDeleted(row: Row, ctx: RequestContext): Promise<WriteResult> {
    this.touchDeleted(ctx);
    const [answered] = await runHook(this.hooks.afterDelete, [row], ctx);
    return { success: true, model: answered };
  }

  private touchDeleted(ctx: RequestContext): void {
    for (const model of modelsTouchedByDelete(this.registry, this.name)) ctx.touched.add(model);
  }

  private async assertAllVisible(ids: Id[], ctx: RequestContext, tx: Transaction, scope: WriteScope = {}): Promise<void> {
    this.assertAllFound(ids, await this.visibleIds(ids, ctx, tx, scope.narrow), scope);
  }

  /** 404 listing the ids not among `found` (those visible, or those a write reached). */
  private assertAllFound(ids: Id[], found: Id[], scope: WriteScope): void {
    if (found.length === ids.length) return;
    const seen = new Set(found.map(String));
    const missing = ids.filter((id) => !seen.has(String(id)));
    if (missing.length > 0) throw scope.notFound?.(missing) ?? new MissingIdsError(this.name, missing);
  }

  /**
   * True when the caller may write every existing record of this model: no scope narrows what
   * they see (read policies, soft delete, a relation route's parent) and no owner-only grant.
   */
  private seesEveryRecord(ctx: RequestContext, scope: WriteScope): boolean {
    if (allOf(this.pipeline.scopeOf(ctx)(this.name), scope.narrow ?? null)) return false;
    return this.pipeline.policy.possession(this.entry.info, 'update', ctx) !== 'own';
  }

  /** The read of records just written, as the caller may see them (no relations). */
  private readBack(ids: Id[], ctx: RequestContext): ListQuery {
    return narrowColumns(byIdsQuery(this.entry.info, ids, { select: null, relations: [] }), this.pipeline.viewOf(ctx));
  }

  /** What a write returns: the records as a read returns them, inside the write's transaction. */
  private async reload(ids: Id[], tx: Transaction, ctx: RequestContext): Promise<Row[]> {
    const query = this.readBack(ids, ctx);
    const { rows } = await this.driver.list(query, tx);
    return inIdOrder(this.shape(rows, query, ctx), ids, this.entry.info.key);
  }

  private parseIdOr404(rawId: string, scope: WriteScope = {}): Id {
    const id = this.driver.parseId(this.name, rawId);
    if (id === null) throw scope.notFound?.([rawId]) ?? this.notFound(rawId);
    return id;
  }

  private notFound(rawId: string): NotFoundError {
    return new NotFoundError(`No ${this.name} found with id ${rawId}.`);
  }

  private logQuery(action: string, query: ListQuery | Record<string, unknown>, durationMs?: number): void {
    if (!this.config.logQueries) return;
    const compiled = 'model' in query && 'order' in query && this.driver.compile ? this.driver.compile(query as ListQuery) : undefined;
    this.log.query.info(`${this.name}.${action}`, { model: this.name, action, query, compiled, duration_ms: durationMs });
  }

  /** A read, logged with its duration on the query channel; its errors translated like db()'s. */
  private async timed<T>(action: string, query: ListQuery, work: () => Promise<T>): Promise<T> {
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
  private async db<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw this.translated(err);
    }
  }

  private translated(err: unknown): unknown {
    if (err instanceof ApiError) return err;
    const info = isDriverFailure(err) ? err.info : (this.driver.translateError(err) ?? { type: 'database_error' as const });
    // model-layer validators (mongoose): the same 422 shape as the library's own (decision 24)
    if (info.type === 'validation_error' && info.errors && Object.keys(info.errors).length > 0) {
      this.log.db.warn(`${this.name}: model validation failed`, { errors: info.errors });
      return new ValidationError(info.errors);
    }
    return new DatabaseError(info, { cause: err });
  }
}
