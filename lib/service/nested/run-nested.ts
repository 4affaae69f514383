import type { Id, PivotRow, Row, Transaction } from '../../driver';
import { ApiError, ForbiddenError, ValidationError } from '../../errors';
import type { Filter } from '../../query/ast';
import { allOf } from '../../query/walk';
import { ownerFilter } from '../policy/ownership';
import type { RequestContext } from '../request-context';
import type { ResourceService } from '../resource-service';
import { addError, type FieldErrors } from '../writes/validate-input';
import type { PreparedLink, PreparedOps } from './check-nested';

/** 404 for nested ids that are not this parent's related records (decision 58), naming them. */
export class NestedNotFoundError extends ApiError {
  constructor(readonly relation: string, readonly model: string, readonly ids: Array<string | number>) {
    super('not_found', `No ${model} with id ${ids.join(', ')} in relation '${relation}' of this record.`);
  }

  override body(): Record<string, unknown> {
    return { relation: this.relation, not_found_ids: this.ids };
  }
}

/** What the transaction wrote per related resource, for the after hooks and the change feed. */
export interface NestedWritten {
  related: ResourceService;
  created: Id[];
  updated: Id[];
  deleted: Row[];
}

const belongsTo = (fk: string, parentId: Id): Filter => ({ kind: 'condition', field: fk, operator: '=', value: parentId });

/**
 * Runs every prepared part inside the parent's write transaction, after the parent rows are
 * written (`parentIds[item]`): per relation one check of the ids named, one bulk statement per
 * kind of change (insert, update, delete; pivot attach, detach, update), whatever the count.
 */
export async function runNested(parent: ResourceService, parts: PreparedOps[], parentIds: Id[], fresh: boolean, ctx: RequestContext, tx: Transaction): Promise<NestedWritten[]> {
  const written: NestedWritten[] = [];
  const byRelation = new Map<string, PreparedOps[]>();
  for (const p of parts) byRelation.set(p.ops.relation.name, [...(byRelation.get(p.ops.relation.name) ?? []), p]);
  for (const group of byRelation.values()) {
    const relation = group[0].ops.relation;
    if (relation.kind === 'oneToMany') written.push(await runRecords(group, parentIds, ctx, tx));
    else await runLinks(parent, group, parentIds, fresh, ctx, tx);
  }
  return written;
}

async function runRecords(group: PreparedOps[], parentIds: Id[], ctx: RequestContext, tx: Transaction): Promise<NestedWritten> {
  const { related, foreignKey: fk, name } = group[0].ops.relation;
  const driver = related.database;
  const info = related.entry.info;
  const out: NestedWritten = { related, created: [], updated: [], deleted: [] };
  for (const p of group) {
    const parentId = parentIds[p.item];
    const named = [...p.update, ...p.delete];
    if (named.length === 0) continue;
    // update and delete reach only this parent's related records the caller may see (trashed ones are not)
    const ids = named.flatMap((n) => (n.id === null ? [] : [n.id]));
    // decision 69: a record of a resource with grantableRoles is judged in the same read
    const visible = new Set((await related.changeableIds(ids, ctx, tx, belongsTo(fk, parentId))).map(String));
    const missing = named.filter((n) => n.id === null || !visible.has(String(n.id))).map((n) => renderId(related, n.rawId));
    if (missing.length > 0) throw new NestedNotFoundError(name, info.name, missing);
    for (const [action, list] of [['update', p.update], ['delete', p.delete]] as const) {
      if (list.length === 0 || related.pipeline.policy.possession(info, action, ctx) !== 'own') continue;
      const own = list.map((n) => n.id as Id);
      const mine = await related.visibleIds(own, ctx, tx, allOf(belongsTo(fk, parentId), ownerFilter(info, ctx)));
      if (mine.length < own.length) throw new ForbiddenError();
    }
  }
  const creates = group.flatMap((p) => p.create.map((record) => ({ ...record, [fk]: parentIds[p.item] })));
  if (creates.length > 0) out.created = await driver.insert(related.name, creates, tx);
  const updates = group.flatMap((p) => p.update.filter((u) => Object.keys(u.changes).length > 0).map((u) => ({ id: u.id as Id, changes: u.changes })));
  if (updates.length > 0) await driver.update(related.name, updates, tx);
  out.updated = group.flatMap((p) => p.update.map((u) => u.id as Id));
  const deletes = group.flatMap((p) => p.delete.map((d) => d.id as Id));
  if (deletes.length > 0) {
    out.deleted = await related.read(deletes, { select: null, relations: [] }, ctx, tx);
    const lost = await removeRecords(related, deletes, tx);
    if (lost.length > 0) throw new NestedNotFoundError(name, info.name, lost.map((id) => renderId(related, id)));
  }
  return out;
}

/** Deletes (soft when the resource is soft-deletable: decision 51) in one statement; answers the ids a concurrent write took first. */
async function removeRecords(related: ResourceService, ids: Id[], tx: Transaction): Promise<Id[]> {
  const driver = related.database;
  const field = related.entry.info.softDelete;
  if (field) {
    const now = new Date();
    const count = await driver.update(related.name, ids.map((id) => ({ id, changes: { [field]: now } })), tx, { field, isNull: true });
    return count < ids.length ? ids : [];
  }
  const deleted = new Set((await driver.delete(related.name, ids, tx)).map(String));
  return ids.filter((id) => !deleted.has(String(id)));
}

/** Many-to-many links of each parent: the ids checked in one read, then the pivot's bulk operations. */
async function runLinks(parent: ResourceService, group: PreparedOps[], parentIds: Id[], fresh: boolean, ctx: RequestContext, tx: Transaction): Promise<void> {
  const { related, relation } = group[0].ops.relation;
  const pivots = parent.database.pivots;
  // a link names a related record the caller may see: a trashed one is never linked (decision 59)
  const linking = group.flatMap((p) => [...p.attach, ...(p.sync ?? [])]);
  const wanted = [...new Set(linking.flatMap((l) => (l.id === null ? [] : [l.id])))];
  const visible = new Set((await related.visibleIds(wanted, ctx, tx)).map(String));
  const errors: FieldErrors = {};
  for (const l of linking) if (l.id === null || !visible.has(String(l.id))) addError(errors, l.path, `The ${related.entry.info.name} named by ${l.path} does not exist.`);
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  const toAttach: PivotRow[] = [];
  const toUpdate: PivotRow[] = [];
  for (const p of group) {
    const parentId = parentIds[p.item];
    let existing = new Map<string, PivotRow>();
    if (!fresh) {
      // one writer of this parent's links at a time (the driver's lock): a sync reads the set it replaces
      await pivots.lock?.(parent.name, relation.name, parentId, tx);
      const rows = await pivots.read(parent.name, relation.name, parentId, p.sync !== null ? null : [...p.attach, ...p.detach].flatMap((l) => (l.id === null ? [] : [l.id])), tx);
      existing = new Map(rows.map((row) => [String(row.relatedId), row]));
    }
    const detach = p.detach.flatMap((d) => (d.id === null ? [] : [d.id]));
    if (p.sync !== null) {
      const keep = new Set(p.sync.map((l) => String(l.id)));
      for (const [id, row] of existing) if (!keep.has(id)) detach.push(row.relatedId);
    }
    if (detach.length > 0) await pivots.detach(parent.name, relation.name, parentId, detach, tx);
    for (const l of [...(p.sync ?? []), ...p.attach] as PreparedLink[]) {
      const current = existing.get(String(l.id));
      if (!current) toAttach.push({ parentId, relatedId: l.id as Id, values: l.values });
      else if (Object.entries(l.values).some(([k, v]) => current.values[k] !== v)) toUpdate.push({ parentId, relatedId: l.id as Id, values: l.values });
    }
  }
  if (toUpdate.length > 0) await pivots.update(parent.name, relation.name, toUpdate, tx);
  if (toAttach.length > 0) await pivots.attach(parent.name, relation.name, toAttach, tx);
}

/** Decision 67: an id in an error body is rendered like the records' ids; one that is no id stays as sent. */
function renderId(related: ResourceService, raw: unknown): string | number {
  const id = typeof raw === 'string' || typeof raw === 'number' ? related.database.parseId(related.name, String(raw)) : null;
  return id ?? (typeof raw === 'number' ? raw : String(raw));
}
