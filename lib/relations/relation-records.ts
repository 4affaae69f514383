import type { Id, Row, Transaction } from '../driver';
import { BadRequestError, NotFoundError } from '../errors';
import type { RequestParams } from '../query';
import { allOf } from '../query/walk';
import { relationEnvelope, type ListEnvelope } from '../service/reads/envelopes';
import type { RequestContext } from '../service/request-context';
import type { BulkWriteResult, WriteResult, WriteScope } from '../service/resource-service';
import { readPivotObject } from '../service/writes/pivot-input';
import type { ParentRef } from './relation-base';
import type { PartialSuccess } from './relation-errors';
import { RelationLookups } from './relation-lookups';

/**
 * The related records of one parent: list, show, create, update and delete, for both kinds. The
 * kinds differ in one place each: membership (the foreign key or the pivot's ids), how a created
 * record is linked (its foreign key set, or pivot rows in the same transaction) and what unlinking
 * means (the foreign key cleared, or the pivot rows removed).
 */
export class RelationRecords extends RelationLookups {
  /** listRelation: every list parameter on the related records of one parent (the offset envelope when paginated). */
  async list(ref: ParentRef, params: RequestParams, ctx: RequestContext): Promise<ListEnvelope> {
    const parentId = await this.parentId(ref, ctx);
    const plan = await this.related.planList(params, ctx);
    const links = this.config.pivot ? await this.pivotsRead(parentId, null) : null;
    const narrow = this.membership(await this.link(parentId), links);
    const result = await this.related.runList({ ...plan, query: { ...plan.query, filter: allOf(plan.query.filter, narrow) } }, ctx, 'relation.index');
    if (links) this.withPivots(result.data, parentId, links);
    return relationEnvelope(result);
  }

  /** showRelation: one related record of the parent; 404 in the relation shape when it is not related. */
  async show(ref: ParentRef, rawId: string, params: RequestParams, ctx: RequestContext): Promise<Row> {
    const parentId = await this.parentId(ref, ctx);
    const id = this.relatedId(rawId, parentId);
    const links = this.config.pivot ? await this.pivotsRead(parentId, [id]) : null;
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

  /** createRelation: one record or (bulk) several, linked to the parent in the same transaction (the route answers 201). */
  async create(ref: ParentRef, body: unknown, bulk: boolean, ctx: RequestContext): Promise<WriteResult | BulkWriteResult> {
    const parentId = await this.parentId(ref, ctx);
    const { key, value } = this.body.data(body);
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
    await this.pivotsOf(result, parentId);
    return result;
  }

  /** updateRelation, single: a related record of the parent (its link to the parent cannot change). */
  async update(ref: ParentRef, rawId: string, body: unknown, ctx: RequestContext): Promise<WriteResult> {
    const parentId = await this.parentId(ref, ctx);
    const narrow = await this.narrowFor(parentId, [this.relatedId(rawId, parentId)]);
    const result = await this.related.update(rawId, this.body.record(body), ctx, { narrow, forced: await this.forced(parentId), notFound: () => this.notFound(rawId, parentId) });
    this.touch(ctx);
    await this.pivotsOf(result, parentId);
    return result;
  }

  /** updateRelation, bulk: the related records found are updated together; unknown ids make it partial (207, decision 48). */
  async updateMany(ref: ParentRef, body: unknown, ctx: RequestContext): Promise<BulkWriteResult | PartialSuccess> {
    const parentId = await this.parentId(ref, ctx);
    const { key, value } = this.body.data(body);
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

  /** deleteRelation, single: deletes the related record when deleteRelated is true; otherwise only unlinks it. */
  async destroy(ref: ParentRef, rawId: string, ctx: RequestContext): Promise<WriteResult> {
    const parentId = await this.parentId(ref, ctx);
    const id = this.relatedId(rawId, parentId);
    const narrow = await this.narrowFor(parentId, [id]);
    const notFound = () => this.notFound(rawId, parentId);
    this.touch(ctx);
    if (this.config.deleteRelated) return this.related.destroy(rawId, ctx, { narrow, notFound, within: this.detachOnSoftDelete(parentId, [id]) });
    if (this.config.kind === 'oneToMany') return this.related.update(rawId, {}, ctx, { narrow, notFound, forced: { [this.config.foreignKey]: null } });
    const [row] = await this.related.read([id], { select: null, relations: [] }, ctx, undefined, narrow);
    if (!row) throw notFound();
    await this.pivotTransaction(parentId, ctx, (tx) => this.detachIds(parentId, [id], tx));
    return { success: true, model: row };
  }

  /** deleteRelation, bulk: ids as a flat array, `{ids}`, `{<related>_ids}` or under the dataKey (decision 49). */
  async destroyMany(ref: ParentRef, body: unknown, ctx: RequestContext): Promise<PartialSuccess | { success: true; models: Array<{ id: Id }> }> {
    const parentId = await this.parentId(ref, ctx);
    const { found, missing } = await this.split(this.body.idList(body), parentId, ctx);
    const ids = [...found.values()];
    if (ids.length === 0) throw this.bulkNotFound(missing, parentId);
    const narrow = await this.narrowFor(parentId, ids);
    const notFound = (lost: Array<string | number>) => this.bulkNotFound(lost, parentId);
    this.touch(ctx);
    if (this.config.deleteRelated) await this.related.deleteById({ ids }, ctx, { narrow, notFound, within: this.detachOnSoftDelete(parentId, ids) });
    else if (this.config.kind === 'oneToMany') await this.related.updateMultiple({ ids: ids.map((id) => ({ id })) }, ctx, { itemKey: 'ids', narrow, notFound, forced: { [this.config.foreignKey]: null } });
    else await this.pivotTransaction(parentId, ctx, (tx) => this.detachIds(parentId, ids, tx));
    const models = ids.map((id) => ({ id }));
    return missing.length > 0 ? this.partial(parentId, models, missing) : { success: true, models };
  }

  /** Pivot rows go with a deleted record (the driver's delete rules); a soft delete detaches explicitly. */
  private detachOnSoftDelete(parentId: Id, ids: Id[]): ((tx: Transaction) => Promise<void>) | undefined {
    if (!this.config.pivot || !this.related.entry.info.softDelete) return undefined;
    return (tx) => this.detachIds(parentId, ids, tx).then(() => undefined);
  }

  private async forced(parentId: Id): Promise<Record<string, unknown> | undefined> {
    return this.config.kind === 'oneToMany' ? { [this.config.foreignKey]: await this.linkToWrite(parentId) } : undefined;
  }
}

function stripPivot(item: Record<string, unknown>): Record<string, unknown> {
  const { pivot: _pivot, ...rest } = item;
  return rest;
}
