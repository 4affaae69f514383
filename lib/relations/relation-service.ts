import type { Id, PivotCapability, PivotRow, Row, Transaction } from '../driver';
import { BadRequestError, NotFoundError, UnauthenticatedError, ValidationError } from '../errors';
import { Reply } from '../http/routes';
import type { RequestParams } from '../query';
import type { Filter } from '../query/ast';
import { allOf } from '../query/walk';
import { relationEnvelope, type ListEnvelope } from '../service/envelopes';
import type { RequestContext } from '../service/request-context';
import type { BulkWriteResult, WriteResult, WriteScope } from '../service/resource-service';
import { plainObject } from '../service/read-body';
import { byIdsQuery } from '../service/read-by-ids';
import { readPivotInput, readPivotObject, type PivotEntry } from './pivot-input';
import type { ResolvedRelation } from './relation-config';
import { partialSuccess, RelatedIdsNotFoundError, RelatedNotFoundError } from './relation-errors';

/** Which parent a request names: `/{parent}/{parent_id}/...` or the authenticated user (`/me/...`). */
export type ParentRef = { kind: 'explicit'; rawId: string } | { kind: 'implicit' };

/** The never-matching filter (an empty membership): the key is never null. */
const nothing = (key: string): Filter => ({ kind: 'condition', field: key, operator: 'null' });

/**
 * The relation routes' operations for one configured relation (spec "Relation endpoints"). Each
 * runs a constant number of statements whatever the id count: the parent check, one membership
 * read, one bulk write per kind of change, one reload; every mutation in one transaction.
 */
export class RelationService {
  constructor(
    readonly config: ResolvedRelation,
    /** Path of the relation list, for `suggested_fix` (`/products/{id}/tags`). */
    private readonly listPath: (parentId: string) => string,
  ) {}

  private get parent() {
    return this.config.parent;
  }

  private get related() {
    return this.config.related;
  }

  private get pivots(): PivotCapability {
    return this.parent.entry.driver.pivots!;
  }

  private get relatedKey(): string {
    return this.related.entry.info.key;
  }

  /** The parent's id, checked to exist and to be visible to the caller (404 naming it otherwise). */
  async parentId(ref: ParentRef, ctx: RequestContext): Promise<Id> {
    if (ref.kind === 'implicit') {
      // the caller is the parent: no visibility check (a user may see their own related records without a grant on users)
      if (!ctx.user) throw new UnauthenticatedError();
      const own = this.parent.entry.driver.parseId(this.parent.name, String(ctx.user.id));
      if (own === null) throw new NotFoundError(`No ${this.parent.name} found with id ${String(ctx.user.id)}.`);
      return own;
    }
    const raw = ref.rawId;
    const id = this.parent.entry.driver.parseId(this.parent.name, raw);
    const visible = id === null ? [] : await this.parent.visibleIds([id], ctx);
    if (id === null || visible.length === 0) throw new NotFoundError(`No ${this.parent.name} found with id ${raw}.`);
    return id;
  }

  // ---- reads ------------------------------------------------------------------------------------

  /** listRelation: every list parameter on the related records of one parent (the offset envelope when paginated). */
  async list(ref: ParentRef, params: RequestParams, ctx: RequestContext): Promise<ListEnvelope> {
    const parentId = await this.parentId(ref, ctx);
    const plan = await this.related.planList(params, ctx);
    const links = this.config.pivot ? await this.parent.translating(() => this.pivots.read(this.parent.name, this.config.relation.name, parentId, null)) : null;
    const narrow = this.membership(await this.link(parentId), links);
    const result = await this.related.runList({ ...plan, query: { ...plan.query, filter: allOf(plan.query.filter, narrow) } }, ctx, 'relation.index');
    if (links) this.withPivots(result.data, parentId, links);
    return relationEnvelope(result);
  }

  /** showRelation: one related record of the parent; 404 in the relation shape when it is not related. */
  async show(ref: ParentRef, rawId: string, params: RequestParams, ctx: RequestContext): Promise<Row> {
    const parentId = await this.parentId(ref, ctx);
    const id = this.relatedId(rawId, parentId);
    const links = this.config.pivot ? await this.parent.translating(() => this.pivots.read(this.parent.name, this.config.relation.name, parentId, [id])) : null;
    const plan = await this.related.planShow(rawId, params, ctx);
    const narrow = this.membership(await this.link(parentId), links);
    try {
      const row = await this.related.runShow({ ...plan, query: { ...plan.query, filter: allOf(plan.query.filter, narrow) } }, ctx);
      if (links) this.withPivots([row], parentId, links);
      return row;
    } catch (error) {
      if (error instanceof NotFoundError) throw this.notFound(rawId, parentId);
      throw error;
    }
  }

  // ---- records ----------------------------------------------------------------------------------

  /** createRelation: one record or (bulk) several, linked to the parent in the same transaction; 201. */
  async create(ref: ParentRef, body: unknown, bulk: boolean, ctx: RequestContext): Promise<Reply> {
    const parentId = await this.parentId(ref, ctx);
    const { key, value } = this.data(body);
    const items = bulk ? (Array.isArray(value) ? value : null) : value !== null && typeof value === 'object' && !Array.isArray(value) ? [value] : null;
    if (!items) throw new BadRequestError(bulk ? `Bulk create needs an array of records under "${key}".` : `Create needs one record (an object) under "${key}"; send _scenario=bulk_create for an array.`, key);
    const scope: WriteScope = { itemKey: key };
    if (this.config.kind === 'oneToMany') scope.forced = { [this.config.foreignKey]: await this.linkToWrite(parentId) };
    else {
      const pivot = this.config.pivot!;
      const values = items.map((item, i) => (item && typeof item === 'object' && 'pivot' in item ? readPivotObject((item as { pivot: unknown }).pivot, pivot, this.config.writablePivot, `${key}.${i}.pivot`) : {}));
      scope.within = async (tx, ids) => {
        await this.pivots.attach(this.parent.name, this.config.relation.name, ids.map((id, i) => ({ parentId, relatedId: id, values: values[i] })), tx);
      };
    }
    const result = await this.related.storeItems(items.map((item) => (item && typeof item === 'object' ? stripPivot(item as Record<string, unknown>) : item)), bulk, ctx, scope);
    this.touch(ctx);
    if (this.config.pivot) await this.pivotsOf(result, parentId);
    return new Reply(201, result);
  }

  /** updateRelation, single: a related record of the parent (its link to the parent cannot change). */
  async update(ref: ParentRef, rawId: string, body: unknown, ctx: RequestContext): Promise<WriteResult> {
    const parentId = await this.parentId(ref, ctx);
    const record = this.record(body);
    const narrow = await this.narrowFor(parentId, [this.relatedId(rawId, parentId)]);
    const result = await this.related.update(rawId, record, ctx, { narrow, forced: await this.forced(parentId), notFound: () => this.notFound(rawId, parentId) });
    this.touch(ctx);
    await this.pivotsOf(result, parentId);
    return result;
  }

  /** updateRelation, bulk: the related records found are updated together; unknown ids make it a 207 (decision 48). */
  async updateMany(ref: ParentRef, body: unknown, ctx: RequestContext): Promise<BulkWriteResult | Reply> {
    const parentId = await this.parentId(ref, ctx);
    const { key, value } = this.data(body);
    if (!Array.isArray(value) || value.length === 0) throw new BadRequestError(`Bulk update needs a non-empty array of records with an id under "${key}".`, key);
    const rawIds = value.map((item) => (item !== null && typeof item === 'object' ? (item as { id?: unknown }).id : undefined));
    const { found, missing } = await this.split(rawIds, parentId, ctx);
    const items = value.filter((_, i) => found.has(i));
    if (items.length === 0) throw this.bulkNotFound(missing, parentId);
    const narrow = await this.narrowFor(parentId, [...found.values()]);
    const result = await this.related.updateMultiple({ [key]: items }, ctx, { itemKey: key, narrow, forced: await this.forced(parentId), notFound: (ids) => this.bulkNotFound(ids, parentId) });
    this.touch(ctx);
    await this.pivotsOf(result, parentId);
    return missing.length > 0 ? this.partial(parentId, result.models, missing) : result;
  }

  /**
   * deleteRelation, single: deletes the related record (soft when it is soft-deletable) when
   * deleteRelated is true; otherwise only unlinks it (clears the foreign key / detaches).
   */
  async destroy(ref: ParentRef, rawId: string, ctx: RequestContext): Promise<WriteResult> {
    const parentId = await this.parentId(ref, ctx);
    const id = this.relatedId(rawId, parentId);
    const narrow = await this.narrowFor(parentId, [id]);
    const notFound = () => this.notFound(rawId, parentId);
    this.touch(ctx);
    if (this.config.deleteRelated) {
      // pivot rows go with the record (the driver's delete rules); a soft delete detaches explicitly
      const within = this.config.pivot && this.related.entry.info.softDelete ? (tx: Transaction) => this.detachIds(parentId, [id], tx).then(() => undefined) : undefined;
      return this.related.destroy(rawId, ctx, { narrow, notFound, within });
    }
    if (this.config.kind === 'oneToMany') {
      return this.related.update(rawId, {}, ctx, { narrow, notFound, forced: { [this.config.foreignKey]: null } });
    }
    const [row] = await this.related.read([id], { select: null, relations: [] }, ctx, undefined, narrow);
    if (!row) throw notFound();
    await this.pivotTransaction(parentId, (tx) => this.detachIds(parentId, [id], tx));
    return { success: true, model: row };
  }

  /** deleteRelation, bulk: ids as a flat array, `{ids}`, `{<related>_ids}` or under the dataKey (decision 49). */
  async destroyMany(ref: ParentRef, body: unknown, ctx: RequestContext): Promise<Reply | { success: true; models: Array<{ id: Id }> }> {
    const parentId = await this.parentId(ref, ctx);
    const rawIds = this.idList(body);
    const { found, missing } = await this.split(rawIds, parentId, ctx);
    const ids = [...found.values()];
    if (ids.length === 0) throw this.bulkNotFound(missing, parentId);
    const narrow = await this.narrowFor(parentId, ids);
    const notFound = (lost: Array<string | number>) => this.bulkNotFound(lost, parentId);
    this.touch(ctx);
    if (this.config.deleteRelated) {
      const within = this.config.pivot && this.related.entry.info.softDelete ? (tx: Transaction) => this.detachIds(parentId, ids, tx).then(() => undefined) : undefined;
      await this.related.deleteById({ ids }, ctx, { narrow, notFound, within });
    } else if (this.config.kind === 'oneToMany') {
      await this.related.updateMultiple({ ids: ids.map((id) => ({ id })) }, ctx, { itemKey: 'ids', narrow, notFound, forced: { [this.config.foreignKey]: null } });
    } else {
      await this.pivotTransaction(parentId, (tx) => this.detachIds(parentId, ids, tx));
    }
    const models = ids.map((id) => ({ id }));
    return missing.length > 0 ? this.partial(parentId, models, missing) : { success: true, models };
  }

  // ---- associations (many-to-many) --------------------------------------------------------------

  /**
   * The attach route: attach (default: `{<relatedKey>: id, <pivot column>: value}`), bulk_attach,
   * sync and toggle. Idempotent: ids already attached are left as they are (decision 32).
   */
  async attach(ref: ParentRef, body: unknown, scenario: 'attach' | 'bulk_attach' | 'sync' | 'toggle', ctx: RequestContext): Promise<unknown> {
    const parentCheck = this.parentId(ref, ctx);
    parentCheck.catch(() => undefined); // awaited below; a body error must not leave it unhandled
    const pivot = this.config.pivot!;
    let entries: PivotEntry[];
    if (scenario === 'attach') {
      const obj = plainObject(this.wrapped(body) ?? {}, 'The request body');
      const rawId = obj[pivot.relatedKey] ?? obj.id;
      if (typeof rawId !== 'string' && typeof rawId !== 'number') throw new ValidationError({ [pivot.relatedKey]: [`The ${pivot.relatedKey} field is required and must be an id.`] });
      entries = [{ rawId, values: readPivotObject(obj, pivot, this.config.writablePivot, 'The request body'), path: pivot.relatedKey }];
    } else {
      const { key, value } = this.idSet(body);
      entries = readPivotInput(value, pivot, this.config.writablePivot, key);
    }
    // the parent check and the related ids' check are independent: one round trip of latency for both
    const [parentId, { found, missing }] = await Promise.all([parentCheck, this.existing(entries.map((e) => e.rawId), ctx)]);
    if (scenario === 'attach' && missing.length > 0) throw this.notFound(entries[0].rawId, parentId);
    const wanted = entries.flatMap((e, i) => (found.has(i) ? [{ id: found.get(i)!, values: e.values }] : []));
    const name = this.config.relation.name;
    // one writer of this parent's links at a time (the driver's lock), so what is read here is the
    // set this request changes; the report comes from what the database says it changed
    const outcome = await this.pivotTransaction(parentId, async (tx) => {
      // set-based when the driver can (one statement on PostgreSQL): same answer, no per-id work here
      if (this.pivots.link) return this.pivots.link(this.parent.name, name, parentId, wanted, scenario === 'bulk_attach' ? 'attach' : scenario, tx);
      const current = await this.pivots.read(this.parent.name, name, parentId, scenario === 'sync' ? null : wanted.map((w) => w.id), tx);
      const linked = new Map(current.map((row) => [String(row.relatedId), row]));
      const wantedIds = new Set(wanted.map((w) => String(w.id)));
      const toAttach = wanted.filter((w) => !linked.has(String(w.id)));
      let detached: Id[] = [];
      let updated: Id[] = [];
      if (scenario === 'sync') {
        const stale = current.filter((row) => !wantedIds.has(String(row.relatedId))).map((row) => row.relatedId);
        detached = await this.detachIds(parentId, stale, tx);
        const changes = wanted.filter((w) => linked.has(String(w.id)) && differs(w.values, linked.get(String(w.id))!.values));
        await this.pivots.update(this.parent.name, name, changes.map((w) => ({ parentId, relatedId: w.id, values: w.values })), tx);
        updated = changes.map((w) => w.id);
      }
      if (scenario === 'toggle') {
        detached = await this.detachIds(parentId, wanted.filter((w) => linked.has(String(w.id))).map((w) => w.id), tx);
      }
      const inserted = new Set((await this.pivots.attach(this.parent.name, name, toAttach.map((w) => ({ parentId, relatedId: w.id, values: w.values })), tx)).map((id) => String(id).toLowerCase()));
      return { attached: toAttach.filter((w) => inserted.has(String(w.id).toLowerCase())).map((w) => w.id), detached, updated };
    });
    this.touch(ctx);
    const answer: Record<string, unknown> = { attached: outcome.attached };
    if (scenario === 'sync' || scenario === 'toggle') answer.detached = outcome.detached;
    if (scenario === 'sync') answer.updated = outcome.updated;
    return missing.length > 0 ? this.partial(parentId, [], missing, answer) : answer;
  }

  /** detachRelation: `{detached: count}`; an id that is not attached counts 0 (decision 32). */
  async detach(ref: ParentRef, rawIds: unknown[], ctx: RequestContext): Promise<{ detached: number }> {
    const parentId = await this.parentId(ref, ctx);
    const ids = rawIds.flatMap((raw) => {
      const id = typeof raw === 'string' || typeof raw === 'number' ? this.related.entry.driver.parseId(this.related.name, String(raw)) : null;
      return id === null ? [] : [id];
    });
    const detached = await this.pivotTransaction(parentId, (tx) => this.detachIds(parentId, ids, tx));
    this.touch(ctx);
    return { detached: detached.length };
  }

  /** updatePivotRelation, single: the related record with its updated `pivot`; not attached is a 404. */
  async updatePivot(ref: ParentRef, rawId: string, body: unknown, ctx: RequestContext): Promise<Row> {
    const parentId = await this.parentId(ref, ctx);
    const id = this.relatedId(rawId, parentId);
    const values = readPivotObject(this.wrapped(body) ?? {}, this.config.pivot!, this.config.writablePivot, 'The request body');
    const [row] = await this.pivotUpdate(parentId, [{ id, values }], ctx);
    if (!row) throw this.notFound(rawId, parentId);
    return row;
  }

  /** updatePivotRelation, bulk: `{<dataKey>: [{<relatedKey>: id, col: v}]}`; ids not attached make it a 207. */
  async updatePivotMany(ref: ParentRef, body: unknown, ctx: RequestContext): Promise<unknown> {
    const parentId = await this.parentId(ref, ctx);
    const { key, value } = this.data(body);
    const entries = readPivotInput(value, this.config.pivot!, this.config.writablePivot, key);
    const parsed = entries.map((e) => ({ entry: e, id: this.related.entry.driver.parseId(this.related.name, String(e.rawId)) }));
    const rows = await this.pivotUpdate(parentId, parsed.filter((p) => p.id !== null).map((p) => ({ id: p.id!, values: p.entry.values })), ctx);
    const done = new Set(rows.map((r) => String(r[this.relatedKey])));
    const missing = parsed.filter((p) => p.id === null || !done.has(String(p.id))).map((p) => p.entry.rawId);
    if (rows.length === 0) throw this.bulkNotFound(missing, parentId);
    return missing.length > 0 ? this.partial(parentId, rows, missing) : { success: true, models: rows };
  }

  // ---- helpers ----------------------------------------------------------------------------------

  /** Updates the pivot rows of attached ids (one statement) and answers those records with their pivots. */
  private async pivotUpdate(parentId: Id, items: Array<{ id: Id; values: Record<string, unknown> }>, ctx: RequestContext): Promise<Row[]> {
    const name = this.config.relation.name;
    const links = await this.pivotTransaction(parentId, async (tx) => {
      const attached = new Set((await this.pivots.read(this.parent.name, name, parentId, items.map((i) => i.id), tx)).map((r) => String(r.relatedId)));
      const rows = items.filter((i) => attached.has(String(i.id)));
      await this.pivots.update(this.parent.name, name, rows.map((i) => ({ parentId, relatedId: i.id, values: i.values })), tx);
      return this.pivots.read(this.parent.name, name, parentId, rows.map((i) => i.id), tx);
    });
    this.touch(ctx);
    const records = await this.related.read(links.map((l) => l.relatedId), { select: null, relations: [] }, ctx);
    return this.withPivots(records, parentId, links);
  }

  /** One transaction on the parent's driver, database errors answered like the resource routes' (decision 34). */
  private transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.parent.translating(() => this.parent.entry.driver.transaction(work));
  }

  /** A transaction that changes one parent's pivot rows: the driver's lock on them is its first statement. */
  private pivotTransaction<T>(parentId: Id, work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.transaction(async (tx) => {
      await this.pivots.lock?.(this.parent.name, this.config.relation.name, parentId, tx);
      return work(tx);
    });
  }

  private async detachIds(parentId: Id, ids: Id[], tx: Transaction): Promise<Id[]> {
    if (ids.length === 0) return [];
    return this.pivots.detach(this.parent.name, this.config.relation.name, parentId, ids, tx);
  }

  /**
   * The value one-to-many records hold in their foreign key for this parent: its id, or the value
   * of the relation's localKey (one read of that field; the parent was checked to be visible).
   */
  async link(parentId: Id): Promise<unknown> {
    const localKey = this.config.localKey;
    if (localKey === null || this.config.kind !== 'oneToMany') return parentId;
    const info = this.parent.entry.info;
    const { rows } = await this.parent.translating(() => this.parent.entry.driver.list(byIdsQuery(info, [parentId], { select: [info.key, localKey], relations: [] })));
    return rows[0]?.[localKey] ?? null;
  }

  /** The link value a created or updated record is given; a parent whose localKey is null has no records to link. */
  private async linkToWrite(parentId: Id): Promise<unknown> {
    const value = await this.link(parentId);
    if (value === null || value === undefined) throw new BadRequestError(`This ${this.parent.name} has no ${this.config.localKey}: records of "${this.config.segment}" link to it through that field.`, this.config.localKey ?? undefined);
    return value;
  }

  /** The filter of "related to this parent": the foreign key holding the parent's link value, or the pivot's ids. */
  private membership(link: unknown, links: PivotRow[] | null): Filter {
    if (!links) return link === null || link === undefined ? nothing(this.relatedKey) : { kind: 'condition', field: this.config.foreignKey, operator: '=', value: link as Id };
    if (links.length === 0) return nothing(this.relatedKey);
    return { kind: 'condition', field: this.relatedKey, operator: 'in', value: links.map((l) => l.relatedId) };
  }

  /** The membership filter for writes on `ids` (many-to-many: one pivot read of just those ids). */
  private async narrowFor(parentId: Id, ids: Id[]): Promise<Filter> {
    if (!this.config.pivot) return this.membership(await this.link(parentId), null);
    return this.membership(parentId, await this.parent.translating(() => this.pivots.read(this.parent.name, this.config.relation.name, parentId, ids)));
  }

  /** Splits bulk ids into those related to the parent (index -> id) and the rest, in one query. */
  private async split(rawIds: unknown[], parentId: Id, ctx: RequestContext): Promise<{ found: Map<number, Id>; missing: Array<string | number> }> {
    if (rawIds.length === 0) throw new BadRequestError('At least one id is required.', 'ids');
    if (rawIds.length > 10_000) throw new BadRequestError('At most 10000 ids per request.', 'ids');
    const parsed = rawIds.map((raw) => (typeof raw === 'string' || typeof raw === 'number' ? this.related.entry.driver.parseId(this.related.name, String(raw)) : null));
    if (rawIds.some((raw) => typeof raw !== 'string' && typeof raw !== 'number')) throw new BadRequestError('Each id must be a string or a number.', 'ids');
    const candidates = parsed.filter((id): id is Id => id !== null);
    if (new Set(candidates.map(String)).size !== candidates.length) throw new BadRequestError('Each id may appear only once.', 'ids');
    const narrow = await this.narrowFor(parentId, candidates);
    const visible = new Set((await this.related.visibleIds(candidates, ctx, undefined, narrow)).map(String));
    const found = new Map<number, Id>();
    const missing: Array<string | number> = [];
    parsed.forEach((id, i) => {
      if (id !== null && visible.has(String(id))) found.set(i, id);
      else missing.push(rawIds[i] as string | number);
    });
    return { found, missing };
  }

  /** Which related ids exist and are visible to the caller (attach targets), in one query. */
  private async existing(rawIds: Array<string | number>, ctx: RequestContext): Promise<{ found: Map<number, Id>; missing: Array<string | number> }> {
    const parsed = rawIds.map((raw) => this.related.entry.driver.parseId(this.related.name, String(raw)));
    const visible = new Set((await this.related.visibleIds(parsed.filter((id): id is Id => id !== null), ctx)).map(String));
    const found = new Map<number, Id>();
    const missing: Array<string | number> = [];
    parsed.forEach((id, i) => (id !== null && visible.has(String(id)) ? found.set(i, id) : missing.push(rawIds[i])));
    return { found, missing };
  }

  /** The dataKey present in a body object (the first declared one), or null. */
  private dataKeyIn(body: unknown): string | null {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
    return this.config.dataKeys.find((key) => Object.prototype.hasOwnProperty.call(body, key)) ?? null;
  }

  /**
   * The mutation data (decision 67): under the first dataKey present; without one, the body itself
   * only when the configuration declares no dataKey, else a 400 naming the dataKey.
   */
  private data(body: unknown): { key: string; value: unknown } {
    const found = this.dataKeyIn(body);
    if (found !== null) return { key: found, value: (body as Record<string, unknown>)[found] };
    if (this.config.dataKeyDeclared) throw this.missingDataKey();
    return { key: this.config.dataKeys[0], value: body };
  }

  /**
   * The record of a single update (decision 67): under the dataKey when the body holds it, else the
   * body itself (the spec's "attributes object"), as a single attach or pivot update reads it.
   */
  private record(body: unknown): unknown {
    const found = this.dataKeyIn(body);
    return found === null ? body : (body as Record<string, unknown>)[found];
  }

  /** A single attach's or pivot update's object: the spec's bare object, or the same under the dataKey. */
  private wrapped(body: unknown): unknown {
    const found = this.dataKeyIn(body);
    const inner = found === null ? undefined : (body as Record<string, unknown>)[found];
    return inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? inner : body;
  }

  /**
   * The ids of bulk_attach, sync and toggle (decisions 49, 67): under the dataKey, a flat array,
   * `{ids}` or `{<related>_ids}`. Anything else (`{}`, a misspelled key) is a 400 naming the dataKey,
   * never an empty set: a sync of an empty set detaches everything, so it must be asked for.
   */
  private idSet(body: unknown): { key: string; value: unknown } {
    const key = this.config.dataKeys[0];
    if (Array.isArray(body)) return { key, value: body };
    const found = this.dataKeyIn(body);
    if (found !== null) return { key: found, value: (body as Record<string, unknown>)[found] };
    if (body !== null && typeof body === 'object') {
      for (const alias of ['ids', `${this.related.name}_ids`]) {
        const value = (body as Record<string, unknown>)[alias];
        if (Object.prototype.hasOwnProperty.call(body, alias) && Array.isArray(value)) return { key: alias, value };
      }
    }
    throw this.missingDataKey(true);
  }

  private missingDataKey(ids = false): BadRequestError {
    const key = this.config.dataKeys[0];
    const also = this.config.dataKeys.length > 1 ? ` (or ${this.config.dataKeys.slice(1).map((k) => `"${k}"`).join(', ')})` : '';
    const forms = ids ? `; the ids may also come as a flat array, {"ids": [...]} or {"${this.related.name}_ids": [...]}` : '';
    return new BadRequestError(`The request body must hold the ${this.config.segment} under "${key}"${also}, as {"${key}": ...}${forms}.`, key);
  }

  /** Decision 49: a flat array, `{ids}`, `{<related MODEL>_ids}` or the dataKey. */
  idList(body: unknown): unknown[] {
    if (Array.isArray(body)) return body;
    if (body !== null && typeof body === 'object') {
      const obj = body as Record<string, unknown>;
      for (const key of ['ids', `${this.related.name}_ids`, ...this.config.dataKeys]) if (Array.isArray(obj[key])) return obj[key] as unknown[];
    }
    throw new BadRequestError(`Send the ids as an array, {"ids": [...]}, {"${this.related.name}_ids": [...]} or {"${this.config.dataKeys[0]}": [...]}.`, 'ids');
  }

  private relatedId(rawId: string, parentId: Id): Id {
    const id = this.related.entry.driver.parseId(this.related.name, rawId);
    if (id === null) throw this.notFound(rawId, parentId);
    return id;
  }

  private async forced(parentId: Id): Promise<Record<string, unknown> | undefined> {
    return this.config.kind === 'oneToMany' ? { [this.config.foreignKey]: await this.linkToWrite(parentId) } : undefined;
  }

  /** Many-to-many records carry `pivot` with both keys and the pivot columns (decision 14). */
  private withPivots(rows: Row[], parentId: Id, links: PivotRow[]): Row[] {
    const pivot = this.config.pivot!;
    const byId = new Map(links.map((l) => [String(l.relatedId), l]));
    for (const row of rows) {
      const link = byId.get(String(row[this.relatedKey]));
      if (link) row.pivot = { [pivot.parentKey]: parentId, [pivot.relatedKey]: row[this.relatedKey], ...link.values };
    }
    return rows;
  }

  private async pivotsOf(result: WriteResult | BulkWriteResult, parentId: Id): Promise<void> {
    if (!this.config.pivot) return;
    const rows = 'model' in result ? [result.model] : result.models.map((m) => m.model);
    const links = await this.parent.translating(() => this.pivots.read(this.parent.name, this.config.relation.name, parentId, rows.map((r) => r[this.relatedKey] as Id)));
    this.withPivots(rows, parentId, links);
  }

  private touch(ctx: RequestContext): void {
    ctx.touched.add(this.parent.name);
    ctx.touched.add(this.related.name);
  }

  private notFound(rawId: string | number, parentId: Id): RelatedNotFoundError {
    return new RelatedNotFoundError(this.related.name, this.config.segment, this.renderId(rawId), this.listPath(String(parentId)));
  }

  private bulkNotFound(ids: Array<string | number>, parentId: Id): RelatedIdsNotFoundError {
    return new RelatedIdsNotFoundError(this.related.name, this.config.segment, this.renderIds(ids), this.listPath(String(parentId)));
  }

  /** Decision 67: an id in an error body is rendered like the records' ids (an integer on integer keys); one that is no id stays as sent. */
  private renderId(raw: string | number): string | number {
    const id = this.related.entry.driver.parseId(this.related.name, String(raw));
    return typeof id === 'number' || typeof id === 'string' ? id : raw;
  }

  private renderIds(ids: Array<string | number>): Array<string | number> {
    return ids.map((id) => this.renderId(id));
  }

  private partial(parentId: Id, models: unknown[], missing: Array<string | number>, extra?: Record<string, unknown>): Reply {
    return partialSuccess(this.related.name, this.config.segment, this.listPath(String(parentId)), models, this.renderIds(missing), extra);
  }
}

function stripPivot(item: Record<string, unknown>): Record<string, unknown> {
  const { pivot: _pivot, ...rest } = item;
  return rest;
}

function differs(wanted: Record<string, unknown>, current: Record<string, unknown>): boolean {
  return Object.entries(wanted).some(([k, v]) => current[k] !== v);
}
