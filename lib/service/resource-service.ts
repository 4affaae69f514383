import { ResourceUpserts } from './writes/resource-upserts';
import type { Id, Row, Transaction } from '../driver';
import type { Filter } from '../query/ast';
import { BadRequestError, MissingIdsError, NotFoundError, ValidationError } from '../errors';
import { modelsTouchedByDelete } from '../resource/references';
import { runHook } from './hooks';
import { resourceBodyCheck, type BodyCheck } from './writes/resource-body-keys';
import type { NestedWriter } from './resource-service-types';
import { byIdsQuery, inIdOrder } from './reads/read-by-ids';
import { readIdList } from './writes/read-body';
import type { RequestContext } from './request-context';
import { addError, type FieldErrors } from './writes/validate-input';
import type { WriteScope, WriteResult } from './resource-service-types';
import { expectedOf, readIfMatch, staleRecord } from './writes/versions';

export type { BulkWriteResult, PlannedList, PlannedShow, WriteResult, WriteRules, WriteScope } from './resource-service-types';

/**
 * The operations of one resource, driver-agnostic. Parses input once, passes every query through
 * the query pipeline (scopes, transforms), validates everything before opening a transaction, runs
 * each write in one transaction with a constant number of driver calls, runs the resource's hooks
 * and turns native database errors into typed ones. Every operation takes the request context.
 */
export class ResourceService extends ResourceUpserts {
  /** Hands the resource its nested writes (`nestedWrites`, lib/service/nested), made by the API at start-up. */
  enableNestedWrites(nested: NestedWriter): void {
    this.nested = nested;
  }

  /** The check of a resource route's body keys (decisions 50, 77), by the route's action; null: its body is not read. */
  bodyCheck(action: string): BodyCheck | null {
    return resourceBodyCheck(this.entry, action, () => this.nested?.relations ?? null);
  }

  /** Decision 82: the key and `field` of the records matching `filter` (the caller's scope in it), one query through the door. */
  async listKeys(field: string, filter: Filter, _ctx: RequestContext): Promise<Array<{ key: Id; value: unknown }>> {
    const key = this.entry.info.key;
    const { rows } = await this.db(() => this.database.list({ model: this.name, filter, select: [key, field], relations: [], order: [], page: null, limit: null }));
    return rows.map((row) => ({ key: row[key] as Id, value: row[field] }));
  }

  /** Decision 82: whether the caller may update records of this resource (an import's upsert mode needs it). */
  mayUpdate(ctx: RequestContext): boolean {
    return this.pipeline.policy.possession(this.entry.info, 'update', ctx) !== null;
  }

  async destroy(rawId: string, ctx: RequestContext, scope: WriteScope = {}): Promise<WriteResult> {
    const id = this.parseIdOr404(rawId, scope);
    const expected = expectedOf(readIfMatch(this.entry, scope.ifMatch));
    await this.hooks.beforeDelete?.([id], ctx);
    this.logQuery('destroy', { id });
    const row = await this.db(() =>
      this.database.transaction(async (tx) => {
        const [found] = await this.read([id], { select: null, relations: [] }, ctx, tx, scope.narrow);
        if (!found) throw scope.notFound?.([rawId]) ?? this.notFound(rawId);
        await this.assertOwned([id], 'delete', ctx, tx);
        await this.assertChangeable([id], ctx, tx, [found]);
        // decision 81: If-Match compared by a write of the record (no change, its version in the condition)
        if (expected !== undefined && (await this.database.update(this.name, [{ id, changes: {}, expected }], tx)) < 1) throw staleRecord(this.entry, found);
        await scope.within?.(tx, [id]);
        // soft-deletable: the record stays, with its deletion time, and is answered so (decision 51)
        if (this.entry.info.softDelete) {
          const trashed = await this.trash([id], tx, ctx);
          if (trashed.length === 0) throw this.notFound(rawId); // a concurrent destroy won
          return trashed[0];
        }
        const deleted = await this.database.delete(this.name, [id], tx);
        // a concurrent delete removed it first: exactly one caller deletes a record
        if (deleted.length === 0) throw this.notFound(rawId);
        return found;
      }, ctx),
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
      const id = this.database.parseId(this.name, String(rawId));
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
      this.database.transaction(async (tx) => {
        await this.assertAllVisible(ids, ctx, tx, scope);
        await this.assertOwned(ids, 'delete', ctx, tx);
        await scope.within?.(tx, ids);
        if (this.entry.info.softDelete) {
          // all or nothing: a concurrent destroy that took one of them makes this call a 404
          if ((await this.trash(ids, tx, ctx)).length < ids.length) throw new MissingIdsError(this.name, ids);
          return;
        }
        const deleted = new Set((await this.database.delete(this.name, ids, tx)).map(String));
        const lost = ids.filter((id) => !deleted.has(String(id)));
        // a concurrent delete took some: this call deletes nothing (all or nothing)
        if (lost.length > 0) throw new MissingIdsError(this.name, lost);
      }, ctx),
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
      this.database.transaction(async (tx) => {
        const [found] = await this.readTrashed([id], 'only', ctx, tx);
        if (!found) throw new NotFoundError(`No trashed ${this.name} found with id ${rawId}.`);
        await this.assertOwned([id], 'update', ctx, tx, 'with');
        await this.assertChangeable([id], ctx, tx, [found], 'with');
        const restored = await this.database.update(this.name, [{ id, changes: { [field]: null } }], tx, { field, isNull: false });
        if (restored === 0) throw new NotFoundError(`No trashed ${this.name} found with id ${rawId}.`); // a concurrent restore won
        return (await this.reload([id], tx, ctx))[0];
      }, ctx),
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
      this.database.transaction(async (tx) => {
        const [found] = await this.readTrashed([id], 'with', ctx, tx);
        if (!found) throw this.notFound(rawId);
        await this.assertOwned([id], 'delete', ctx, tx, 'with');
        await this.assertChangeable([id], ctx, tx, [found], 'with');
        const deleted = await this.database.delete(this.name, [id], tx);
        if (deleted.length === 0) throw this.notFound(rawId);
        return found;
      }, ctx),
    );
    return this.answerDeleted(row, ctx);
  }

  /**
   * Sets the deletion time of `ids` that are not trashed yet (one guarded statement for any count)
   * and answers them; fewer rows than ids means a concurrent destroy took some.
   */
  protected async trash(ids: Id[], tx: Transaction, ctx: RequestContext): Promise<Row[]> {
    const field = this.requireSoftDelete();
    const now = new Date();
    const count = await this.database.update(this.name, ids.map((id) => ({ id, changes: { [field]: now } })), tx, { field, isNull: true });
    return count < ids.length ? [] : this.reload(ids, tx, ctx);
  }

  protected async readTrashed(ids: Id[], trashed: 'with' | 'only', ctx: RequestContext, tx: Transaction): Promise<Row[]> {
    const query = this.pipeline.apply({ ...byIdsQuery(this.entry.info, ids, { select: null, relations: [] }), trashed }, ctx);
    return inIdOrder(this.shape((await this.database.list(query, tx)).rows, query, ctx), ids, this.entry.info.key);
  }

  protected requireSoftDelete(): string {
    if (!this.entry.info.softDelete) throw new Error(`${this.name} is not soft-deletable`);
    return this.entry.info.softDelete;
  }

  /** A single delete's answer: caches of every model it touched invalidated, the afterDelete hook run. */
  protected async answerDeleted(row: Row, ctx: RequestContext): Promise<WriteResult> {
    this.touchDeleted(ctx);
    const [answered] = await runHook(this.hooks.afterDelete, [row], ctx);
    return { success: true, model: answered };
  }

  protected touchDeleted(ctx: RequestContext): void {
    for (const model of modelsTouchedByDelete(this.registry, this.name)) ctx.touched.add(model);
  }
}
