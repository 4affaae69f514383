import type { ClientSession, Db, Document } from 'mongodb';
import { DatabaseError } from '../../lib/errors/database-error';
import type { Catalog, OnDelete } from '../../lib/resource/model-info';
import { outputValue } from './serialize';

export interface DeleteContext {
  catalog: Catalog;
  db: Db;
  /** Collection of a model served by this driver; throws for others. */
  collection(model: string): string;
  session: ClientSession;
}

interface Reference {
  model: string;
  foreignKey: string;
  onDelete: OnDelete;
}

/** Every declared belongsTo (visible or hidden) pointing at `model`, once per (model, key). */
export function referencesTo(catalog: Catalog, model: string): Reference[] {
  const seen = new Map<string, Reference>();
  for (const info of catalog.all()) {
    for (const rel of [...Object.values(info.relations), ...Object.values(info.hiddenRelations)]) {
      if (rel.kind !== 'belongsTo' || rel.target !== model) continue;
      const id = `${info.name}\u0000${rel.foreignKey}`;
      if (!seen.has(id)) seen.set(id, { model: info.name, foreignKey: rel.foreignKey, onDelete: rel.onDelete ?? 'restrict' });
    }
  }
  return [...seen.values()];
}

/** Pivot (table, column) pairs that hold ids of `model`, once each. */
export function pivotColumnsOf(catalog: Catalog, model: string): Array<{ table: string; column: string }> {
  const seen = new Map<string, { table: string; column: string }>();
  for (const info of catalog.all()) {
    for (const rel of [...Object.values(info.relations), ...Object.values(info.hiddenRelations)]) {
      if (rel.kind !== 'belongsToMany' || !rel.pivot) continue;
      const columns = [info.name === model ? rel.pivot.parentKey : null, rel.target === model ? rel.pivot.relatedKey : null];
      for (const column of columns) if (column) seen.set(`${rel.pivot.table}\u0000${column}`, { table: rel.pivot.table, column });
    }
  }
  return [...seen.values()];
}

/**
 * MongoDB has no foreign keys, so the declared ones are enforced here, in the caller's
 * transaction: restrict -> foreign_key_violation before anything is deleted; cascade -> the
 * referencing records are deleted by the same rules; setNull -> their key is cleared; pivot rows
 * of either side go. A constant number of operations per relation level, whatever the id count.
 */
export async function deleteWithRules(ctx: DeleteContext, model: string, ids: unknown[], visited = new Map<string, Set<string>>()): Promise<void> {
  const seen = visited.get(model) ?? new Set<string>();
  visited.set(model, seen);
  const fresh = ids.filter((id) => !seen.has(String(outputValue(id))));
  if (fresh.length === 0) return;
  for (const id of fresh) seen.add(String(outputValue(id)));
  const session = ctx.session;
  const refs = referencesTo(ctx.catalog, model);
  const referencing = (ref: Reference) => {
    const filter: Record<string, unknown> = { [ref.foreignKey]: { $in: fresh } };
    // records deleted in the same call do not hold their own batch back
    if (ref.model === model) filter._id = { $nin: fresh };
    return ctx.db.collection(ctx.collection(ref.model)).find(filter, { session, projection: { _id: 1 } });
  };

  for (const ref of refs.filter((r) => r.onDelete === 'restrict')) {
    const found = await referencing(ref).limit(1).toArray();
    if (found.length > 0) throw new DatabaseError({ type: 'foreign_key_violation' });
  }
  for (const ref of refs.filter((r) => r.onDelete === 'cascade')) {
    const children = await referencing(ref).toArray();
    await deleteWithRules(ctx, ref.model, children.map((d) => d._id), visited);
  }
  for (const ref of refs.filter((r) => r.onDelete === 'setNull')) {
    await ctx.db.collection(ctx.collection(ref.model)).updateMany({ [ref.foreignKey]: { $in: fresh } }, { $set: { [ref.foreignKey]: null } }, { session });
  }
  for (const { table, column } of pivotColumnsOf(ctx.catalog, model)) {
    await ctx.db.collection(table).deleteMany({ [column]: { $in: fresh } }, { session });
  }
  const own: Document = { _id: { $in: fresh } };
  await ctx.db.collection(ctx.collection(model)).deleteMany(own, { session });
}
