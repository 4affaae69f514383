import type { Model } from 'mongoose';
import { DriverFailure, type Id, type Transaction, type UpdateGuard, type UpdateItem } from '../../lib/driver';
import { toObjectId } from './compile-context';
import type { PivotContext } from './pivot-writes';
import { assertReferencesExist, lockRecords, referencedKeys } from './reference-locks';
import { outputValue } from './serialize';

/** What the write operations need of the driver: the pivot writes' needs and the mongoose models. */
export interface WriteContext extends PivotContext {
  model(name: string): Model<unknown>;
}

export async function insertRecords(ctx: WriteContext, model: string, records: Record<string, unknown>[], tx: Transaction): Promise<Id[]> {
  if (records.length === 0) return [];
  await lockReferences(ctx, model, records, tx);
  const docs = await ctx.model(model).insertMany(records, { session: ctx.session(tx), ordered: true });
  return docs.map((d) => String(outputValue((d as { _id: unknown })._id)));
}

export async function updateRecords(ctx: WriteContext, model: string, items: UpdateItem[], tx: Transaction, guard?: UpdateGuard): Promise<number> {
  if (items.length === 0) return 0;
  const native = ctx.model(model);
  const version = ctx.catalog().model(model).versionField ?? null;
  // decision 81: the preconditions first, each compared in the filter of a write (never a read):
  // a no-op write of each record whose version still is the one expected; any shortfall writes nothing
  const checked = items.filter((item) => item.expected !== undefined);
  if (version && checked.length > 0) {
    const checks = checked.map((item) => ({ updateOne: { filter: { _id: toObjectId(String(item.id)), [version]: item.expected }, update: { $set: { [version]: item.expected } }, timestamps: false } }));
    const held = await native.bulkWrite(checks as never, { session: ctx.session(tx), ordered: true, timestamps: false });
    if (held.matchedCount < checked.length) return held.matchedCount;
  }
  const sets = items.map((item) => withoutUndefined(item.changes));
  // bulkWrite casts but does not validate: the schema validators of the changed paths run in memory
  for (const set of sets) if (Object.keys(set).length) await native.validate({ ...set }, Object.keys(set));
  // decision 67 (an ORM's dirty check): without a guard, a document is written (and its updated_at
  // moved) only when one of the sent values differs from the stored one; the guarded writes
  // (soft delete, restore) always change their field, and count the documents they matched
  const ops = items.flatMap((item, i) => {
    const keys = Object.keys(sets[i]);
    if (!guard && keys.length === 0) return [];
    const differs = guard ? {} : { $or: keys.map((k) => ({ [k]: { $ne: sets[i][k] } })) };
    const still = version && item.expected !== undefined ? { [version]: item.expected } : {};
    // the version moves with every write of the document, in the same operation
    const bump = version ? { $inc: { [version]: 1 } } : {};
    return [{ updateOne: { filter: { _id: toObjectId(String(item.id)), ...(guard ? { [guard.field]: guard.isNull ? null : { $ne: null } } : {}), ...still, ...differs }, update: { $set: sets[i], ...bump } } }];
  });
  // with preconditions that held, every item counts (an unchanged one was still checked)
  const all = version && checked.length > 0 ? items.length : 0;
  if (ops.length === 0) return all;
  await lockReferences(ctx, model, sets, tx);
  const result = await native.bulkWrite(ops as never, { session: ctx.session(tx), ordered: true, timestamps: true });
  return all || result.matchedCount;
}


/** Locks what `records` reference, then checks it still exists: a foreign key's guarantee, in the caller's transaction. */
export async function lockReferences(ctx: WriteContext, model: string, records: Array<Record<string, unknown>>, tx: Transaction): Promise<void> {
  const catalog = ctx.catalog();
  const keys = referencedKeys(catalog, model, records);
  if (keys.length === 0) return;
  await lockRecords(ctx.db(), ctx.session(tx), keys);
  const field = await assertReferencesExist(ctx.db(), ctx.session(tx), catalog, (m) => ctx.collection(m), model, records, toObjectId);
  if (field) throw new DriverFailure({ type: 'foreign_key_violation', field });
}

function withoutUndefined(changes: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(changes)) if (v !== undefined && k !== '_id' && k !== 'id') out[k] = v;
  return out;
}
