import type { ClientSession, Db, Document } from 'mongodb';
import { DriverFailure } from '../../lib/driver';
import type { Catalog } from '../../lib/resource/model-info';
import { pivotColumnsOf, referencesTo, relationHolding, type Reference } from '../../lib/resource/references';
import { lockKey, lockRecords } from './reference-locks';
import { outputValue } from './serialize';

export interface DeleteContext {
  catalog: Catalog;
  db: Db;
  /** Collection of a model served by this driver; throws for others. */
  collection(model: string): string;
  session: ClientSession;
}

/**
 * MongoDB has no foreign keys, so the declared ones are enforced here, in the caller's
 * transaction: restrict -> foreign_key_violation before anything is deleted; cascade -> the
 * referencing records are deleted by the same rules; setNull -> their key is cleared; pivot rows
 * of either side go. A constant number of operations per relation level, whatever the id count.
 */
export async function deleteWithRules(ctx: DeleteContext, model: string, ids: unknown[], visited = new Map<string, Set<string>>()): Promise<unknown[]> {
  const seen = visited.get(model) ?? new Set<string>();
  visited.set(model, seen);
  const requested = ids.filter((id) => !seen.has(String(outputValue(id))));
  if (requested.length === 0) return [];
  // only what exists in this transaction's snapshot: a concurrent delete that won reports nothing here
  const present = await ctx.db.collection(ctx.collection(model)).find({ _id: { $in: requested } } as Document, { session: ctx.session, projection: { _id: 1 } }).toArray();
  const fresh = present.map((d) => d._id as unknown);
  if (fresh.length === 0) return [];
  // conflicts with a concurrent insert or move that references these records (reference-locks.ts)
  await lockRecords(ctx.db, ctx.session, fresh.map((id) => lockKey(model, id)));
  for (const id of fresh) seen.add(String(outputValue(id)));
  const session = ctx.session;
  const refs = referencesTo(ctx.catalog, model);
  const holding = (ref: Reference): Document => {
    const filter: Record<string, unknown> = { [ref.foreignKey]: { $in: fresh } };
    // records deleted in the same call do not hold their own batch back
    if (ref.model === model) filter._id = { $nin: fresh };
    return filter;
  };
  const referencing = (ref: Reference) => ctx.db.collection(ctx.collection(ref.model)).find(holding(ref), { session, projection: { _id: 1 } });

  for (const ref of refs.filter((r) => r.onDelete === 'restrict')) {
    // one count per rule (trashed records included: they still hold it), named as the model declares it (decision 78)
    const count = await ctx.db.collection(ctx.collection(ref.model)).countDocuments(holding(ref), { session });
    if (count > 0) throw new DriverFailure({ type: 'foreign_key_violation', relation: relationHolding(ctx.catalog, model, ref), count });
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
  const { deletedCount } = await ctx.db.collection(ctx.collection(model)).deleteMany(own, { session });
  // fewer removed than found: a concurrent delete won those; report only as many as this call removed
  return deletedCount < fresh.length ? fresh.slice(0, deletedCount) : fresh;
}
