import { WritePreparation } from './write-preparation';
import type { Id } from '../../driver';
import { BadRequestError, DatabaseError, MissingIdsError, PreconditionFailedError, ValidationError } from '../../errors';
import { checkWanted, normalizeReferences, type WantedReferences } from './check-references';
import { chunkRanges, pipelinedInsert } from './pipelined-insert';
import { runHook } from '../hooks';
import { inIdOrder } from '../reads/read-by-ids';
import { plainObject, readStoreBody } from './read-body';
import type { RequestContext } from '../request-context';
import { addError, type FieldErrors } from './validate-input';
import type { BulkWriteResult, NestedWriter, WriteResult, WriteScope } from '../resource-service-types';
import { expectedOf, itemVersion, readIfMatch, staleBatch, staleRecord } from './versions';

/** Inside a batch's transaction: a precondition did not hold (answered, with its ids, once it is rolled back). */
class StaleItems extends PreconditionFailedError {
  constructor() {
    super(null, []);
  }
}

/** The create and update paths of a resource (nested writes handed to NestedWrites). */
export class ResourceWrites extends WritePreparation {
  /** Nested writes of the relations this resource opts in (decision 58), set once every service exists. */
  protected nested: NestedWriter | null = null;

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
    if (ranges.length > 1 && this.pipelines(scope)) return this.storePipelined(items, ranges, prefix, ctx, scope);
    const prepared = await this.prepare(items, 'create', prefix, ctx, scope.forced);
    const records = await runHook(this.hooks.beforeCreate, prepared, ctx);
    this.logQuery('store', { count: records.length });
    const keysOnly = this.answersKeys(scope);
    const inserted = await this.db(() =>
      this.database.transaction(async (tx) => {
        // the new rows straight from the insert when the driver can and nothing runs in between
        if (this.database.canInsertRows && !scope.within) {
          const read = this.insertedRead(ctx, keysOnly);
          return this.shape(await this.database.insertRows(this.name, records, read)(tx), read, ctx);
        }
        const ids = await this.database.insert(this.name, records, tx);
        await scope.within?.(tx, ids);
        return keysOnly ? ids.map((id) => ({ [this.entry.info.key]: id })) : this.reload(ids, tx, ctx);
      }, ctx),
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
  protected pipelines(scope: WriteScope): boolean {
    return Boolean(this.database.canInsertRows && this.entry.declaration.validation?.create && !this.hooks.beforeCreate && !scope.within);
  }

  /** `keysOnly` honoured: no hook needs the created records (an afterCreate hook receives them). */
  private answersKeys(scope: WriteScope): boolean {
    return scope.keysOnly === true && !this.hooks.afterCreate;
  }

  /** The columns an insert returns: what the caller may read, or only the key (the change feed and history need no more). */
  private insertedRead(ctx: RequestContext, keysOnly: boolean) {
    const read = this.readBack([], ctx);
    return keysOnly ? { ...read, select: [this.entry.info.key] } : read;
  }

  protected async storePipelined(items: unknown[], ranges: Array<[number, number]>, prefix: (index: number) => string, ctx: RequestContext, scope: WriteScope = {}): Promise<BulkWriteResult> {
    const rules = this.writeRules('create', ctx, scope.forced ?? {});
    const errors: FieldErrors = {};
    const read = this.insertedRead(ctx, this.answersKeys(scope));
    const key = this.entry.info.key;
    const pathOf = (i: number, field: string) => `${prefix(i)}${field}`;
    // the references of every chunk, gathered as each is prepared and checked once at the end
    const wanted: WantedReferences = new Map();
    const insertRows = this.database.canInsertRows ? this.database.insertRows.bind(this.database) : null;
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
        transaction: (work) => this.database.transactionUntranslated(work, ctx),
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
    if (this.nested?.applies([body], scope)) return this.nested.update(rawId, body, ctx, scope.ifMatch);
    const id = this.parseIdOr404(rawId, scope);
    const expected = expectedOf(readIfMatch(this.entry, scope.ifMatch));
    const [prepared] = await this.prepare([plainObject(body ?? {}, 'The request body')], 'update', () => '', ctx, scope.forced);
    const [item] = await runHook(this.hooks.beforeUpdate, [{ id, changes: prepared }], ctx);
    this.logQuery('update', { id, changes: item.changes });
    const [written] = await this.db(() =>
      this.database.transaction(async (tx) => {
        await this.lockHierarchy([item], tx);
        const existing = await this.changeableIds([id], ctx, tx, scope.narrow);
        if (existing.length === 0) throw scope.notFound?.([rawId]) ?? this.notFound(rawId);
        await this.assertOwned([id], 'update', ctx, tx);
        // decision 81: If-Match is compared by the write itself (also when nothing changes)
        if (Object.keys(item.changes).length > 0 || expected !== undefined) {
          const count = await this.database.update(this.name, [{ ...item, expected }], tx);
          if (expected !== undefined && count < 1) throw staleRecord(this.entry, (await this.reload([id], tx, ctx))[0]);
        }
        await scope.within?.(tx, [id]);
        await this.assertNoCycle([item], tx, () => '');
        return this.reload([id], tx, ctx);
      }, ctx),
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
      const id = this.database.parseId(this.name, String(rawId));
      if (id === null) unknownIds.push(rawId);
      else ids.push(id);
    });
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    if (unknownIds.length > 0) throw scope.notFound?.(unknownIds) ?? new MissingIdsError(this.name, unknownIds);
    if (new Set(ids).size !== ids.length) throw new BadRequestError(`Each id may appear only once in "${key}".`, key);
    const changes = await this.prepare(raw, 'update', (i) => `${key}.${i}.`, ctx, scope.forced);
    // decision 81: an item's `version` is its precondition (versioned resources only)
    const versions = this.entry.info.versionField ? raw.map((item) => itemVersion(item)) : null;
    const checked = versions !== null && versions.some((v) => v !== undefined);
    const hooked = await runHook(this.hooks.beforeUpdate, ids.map((id, i) => ({ id, changes: changes[i] })), ctx);
    // an item without a precondition is the hook's item as it is (no copy of 100 items per batch)
    const items: Array<{ id: Id; changes: Record<string, unknown>; expected?: number }> = checked ? hooked.map((item, i) => ({ ...item, expected: versions[i] })) : hooked;
    this.logQuery('updateMultiple', { ids });
    let shortfall = false;
    const written = await this.db(() =>
      this.database.transaction(async (tx) => {
        await this.lockHierarchy(items, tx);
        const changed = items.filter((item) => item.expected !== undefined || hasOwnKey(item.changes));
        const stale = (reached: number) => {
          if (checked && reached < changed.length) throw new StaleItems();
        };
        // a caller who sees every record: the UPDATE itself finds which ids exist (a missing one is
        // a 404 that rolls back what it wrote), one statement fewer than checking them first
        if (this.database.canUpdateRows && changed.length === items.length && !checked && this.seesEveryRecord(ctx, scope)) {
          const read = this.readBack(ids, ctx);
          // outside a hierarchy nothing is checked after it: it writes all rows or none, and may
          // commit with its COMMIT on the same round trip; which ids were missing is read after
          const last = !this.entry.info.hierarchyField;
          if (last) tx.endsWithNext = true;
          const rows = await this.database.updateRows(this.name, changed, tx, read, last);
          if (last && rows.length < ids.length) {
            shortfall = true;
            // answered below with the ids missing once the transaction is over; all there again by
            // then (restored meanwhile): a conflict, as any concurrent change of the same records
            throw new DatabaseError({ type: 'conflict' });
          }
          this.assertAllFound(ids, rows.map((row) => row[this.entry.info.key] as Id), scope);
          await this.assertNoCycle(items, tx, (i) => `${key}.${i}.`);
          return inIdOrder(this.shape(rows, read, ctx), ids, this.entry.info.key);
        }
        await this.assertAllVisible(ids, ctx, tx, scope);
        await this.assertOwned(ids, 'update', ctx, tx);
        // every record changes: the UPDATE returns them (the cycle check only reads)
        if (this.database.canUpdateRows && changed.length === items.length) {
          const read = this.readBack(ids, ctx);
          const rows = await this.database.updateRows(this.name, changed, tx, read);
          stale(rows.length);
          await this.assertNoCycle(items, tx, (i) => `${key}.${i}.`);
          return inIdOrder(this.shape(rows, read, ctx), ids, this.entry.info.key);
        }
        if (changed.length > 0) stale(await this.database.update(this.name, changed, tx));
        await this.assertNoCycle(items, tx, (i) => `${key}.${i}.`);
        return this.reload(ids, tx, ctx);
      }, ctx),
    ).catch(async (error: unknown) => {
      // the all-or-none UPDATE wrote nothing: the 404 names the ids missing now
      if (shortfall) this.assertAllFound(ids, await this.visibleIds(ids, ctx, undefined, scope.narrow), scope);
      // rolled back: the 412 names the ids whose version is not the one their item carried
      if (error instanceof StaleItems) throw staleBatch(await this.staleIds(items, ctx));
      throw error;
    });
    ctx.touched.add(this.name);
    const rows = await runHook(this.hooks.afterUpdate, written, ctx);
    return { success: true, models: rows.map((model) => ({ success: true as const, model })) };
  }

  /** The items whose record's version is not the one they carried (read after the rollback). */
  protected async staleIds(items: Array<{ id: Id; expected?: number }>, ctx: RequestContext): Promise<Id[]> {
    const field = this.entry.info.versionField!;
    const rows = await this.db(() => this.read(items.map((i) => i.id), { select: [this.entry.info.key, field], relations: [] }, ctx));
    const now = new Map(rows.map((row) => [String(row[this.entry.info.key]), row[field]]));
    return items.filter((i) => i.expected !== undefined && now.get(String(i.id)) !== i.expected).map((i) => i.id);
  }
}

/** True when `record` has an own enumerable key (without an array of its keys). */
function hasOwnKey(record: Record<string, unknown>): boolean {
  for (const key in record) if (Object.prototype.hasOwnProperty.call(record, key)) return true;
  return false;
}
