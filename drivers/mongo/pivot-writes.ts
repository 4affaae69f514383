import type { AnyBulkWriteOperation, ClientSession, Db, Document } from 'mongodb';
import { DriverFailure, type PivotCapability, type PivotRow, type Transaction } from '../../lib/driver';
import { relationOf } from '../../lib/resource/model-lookup';
import type { Catalog, PivotInfo } from '../../lib/resource/model-info';
import { toObjectId } from './compile-context';
import { pivotDiff } from '../../lib/driver/pivot-diff';
import { lockKey, lockRecords } from './reference-locks';
import { outputValue } from './serialize';

/** What the pivot writes need of the driver. */
export interface PivotContext {
  catalog(): Catalog;
  db(): Db;
  collection(model: string): string;
  session(tx: Transaction): ClientSession;
  options(tx: Transaction | undefined): { session?: ClientSession };
}

/** Many-to-many pivot documents: one command per call (detach: one find and one delete; link: one read and one bulkWrite). */
export function createPivots(ctx: PivotContext): PivotCapability {
  const pivotOf = (model: string, relation: string): PivotInfo => {
    const pivot = relationOf(ctx.catalog().model(model), relation).pivot;
    if (!pivot) throw new Error(`${model}.${relation} has no pivot`);
    return pivot;
  };
  const read: PivotCapability['read'] = async (model, relation, parentId, relatedIds, tx) => {
    const pivot = pivotOf(model, relation);
    const filter: Document = { [pivot.parentKey]: toObjectId(String(parentId)) };
    if (relatedIds) filter[pivot.relatedKey] = { $in: relatedIds.map((id) => toObjectId(String(id))) };
    const docs = await ctx.db().collection(pivot.table).find(filter, { ...ctx.options(tx), sort: { [pivot.relatedKey]: 1 } }).toArray();
    return docs.map((doc) => pivotRow(pivot, doc));
  };
  /** Both sides of new links are referenced: locked (a concurrent delete of either conflicts, as with foreign keys), then checked to exist. */
  const referencesExist = async (model: string, relation: string, rows: PivotRow[], tx: Transaction): Promise<void> => {
    const pivot = pivotOf(model, relation);
    const target = relationOf(ctx.catalog().model(model), relation).target;
    await lockRecords(ctx.db(), ctx.session(tx), [...new Set(rows.map((r) => lockKey(model, r.parentId))), ...rows.map((r) => lockKey(target, r.relatedId))]);
    for (const [side, ids] of [[model, rows.map((r) => r.parentId)], [target, rows.map((r) => r.relatedId)]] as const) {
      const wanted = [...new Set(ids.map((id) => String(id).toLowerCase()))];
      const found = await ctx.db().collection(ctx.collection(side)).countDocuments({ _id: { $in: wanted.map(toObjectId) } } as Document, { session: ctx.session(tx) });
      if (found < wanted.length) throw new DriverFailure({ type: 'foreign_key_violation', field: side === model ? pivot.parentKey : pivot.relatedKey });
    }
  };
  return {
  read,
  attach: async (model, relation, rows, tx) => {
    if (rows.length === 0) return [];
    const pivot = pivotOf(model, relation);
    await referencesExist(model, relation, rows, tx);
    // a pair already linked is left as it is (the contract): one upsert per distinct pair, in ONE
    // bulkWrite; the upserted ones are what this call inserted (the records' locks keep it race-free)
    const pairs = [...new Map(rows.map((r) => [`${String(r.parentId).toLowerCase()}:${String(r.relatedId).toLowerCase()}`, r])).values()];
    const result = await ctx.db().collection(pivot.table).bulkWrite(
      pairs.map((r) => {
        const { [pivot.parentKey]: parent, [pivot.relatedKey]: related, ...values } = pivotDoc(pivot, r);
        // an operator needs a field: without pivot columns it sets the related key, as the insert does
        const insert = Object.keys(values).length > 0 ? values : { [pivot.relatedKey]: related };
        return { updateOne: { filter: { [pivot.parentKey]: parent, [pivot.relatedKey]: related }, update: { $setOnInsert: insert }, upsert: true } };
      }),
      { session: ctx.session(tx), ordered: true },
    );
    return Object.keys(result.upsertedIds).map((i) => String(outputValue(toObjectId(String(pairs[Number(i)].relatedId)))));
  },
  link: async (model, relation, parentId, wanted, mode, tx) => {
    // one read of the links, then every change in ONE ordered bulkWrite (deleteMany, updateOne per
    // changed pivot, insertOne per new link), after the attach's reference locks and checks
    const pivot = pivotOf(model, relation);
    const current = await read(model, relation, parentId, mode === 'sync' ? null : wanted.map((w) => w.id), tx);
    const { attach, detach, update } = pivotDiff(mode, wanted, current);
    const rows = attach.map((w) => ({ parentId, relatedId: w.id, values: w.values }));
    if (rows.length > 0) await referencesExist(model, relation, rows, tx);
    const parent = toObjectId(String(parentId));
    const ops: AnyBulkWriteOperation[] = [];
    if (detach.length > 0) ops.push({ deleteMany: { filter: { [pivot.parentKey]: parent, [pivot.relatedKey]: { $in: detach.map((id) => toObjectId(String(id))) } } } });
    for (const w of update) if (Object.keys(w.values).length > 0) ops.push({ updateOne: { filter: { [pivot.parentKey]: parent, [pivot.relatedKey]: toObjectId(String(w.id)) }, update: { $set: w.values } } });
    for (const r of rows) ops.push({ insertOne: { document: pivotDoc(pivot, r) } });
    if (ops.length > 0) await ctx.db().collection(pivot.table).bulkWrite(ops, { session: ctx.session(tx), ordered: true });
    return { attached: attach.map((w) => w.id), detached: detach, updated: update.map((w) => w.id) };
  },
  lock: async (model, relation, parentId, tx) => {
    // one lock document per (pivot collection, parent): two transactions changing the same links conflict
    const pivot = pivotOf(model, relation);
    await lockRecords(ctx.db(), ctx.session(tx), [`__pivot:${pivot.table}:${String(outputValue(toObjectId(String(parentId)))).toLowerCase()}`]);
  },
  detach: async (model, relation, parentId, relatedIds, tx) => {
    if (relatedIds && relatedIds.length === 0) return [];
    const pivot = pivotOf(model, relation);
    const filter: Document = { [pivot.parentKey]: toObjectId(String(parentId)) };
    if (relatedIds) filter[pivot.relatedKey] = { $in: relatedIds.map((id) => toObjectId(String(id))) };
    const collection = ctx.db().collection(pivot.table);
    const found = await collection.find(filter, { session: ctx.session(tx), projection: { [pivot.relatedKey]: 1 } }).toArray();
    if (found.length === 0) return [];
    await collection.deleteMany({ _id: { $in: found.map((d) => d._id) } }, { session: ctx.session(tx) });
    return found.map((d) => String(outputValue(d[pivot.relatedKey])));
  },
  update: async (model, relation, rows, tx) => {
    if (rows.length === 0) return;
    const pivot = pivotOf(model, relation);
    const ops = rows
      .filter((r) => Object.keys(r.values).length > 0)
      .map((r) => ({
        updateOne: { filter: { [pivot.parentKey]: toObjectId(String(r.parentId)), [pivot.relatedKey]: toObjectId(String(r.relatedId)) }, update: { $set: r.values } },
      }));
    if (ops.length > 0) await ctx.db().collection(pivot.table).bulkWrite(ops, { session: ctx.session(tx), ordered: true });
  },
};
}

function pivotDoc(pivot: PivotInfo, r: PivotRow): Document {
  return { [pivot.parentKey]: toObjectId(String(r.parentId)), [pivot.relatedKey]: toObjectId(String(r.relatedId)), ...Object.fromEntries(pivot.columns.map((c) => [c, r.values[c] ?? null])) };
}

function pivotRow(pivot: PivotInfo, doc: Document): PivotRow {
  const values: Record<string, unknown> = {};
  for (const column of pivot.columns) values[column] = outputValue(doc[column]);
  return { parentId: String(outputValue(doc[pivot.parentKey])), relatedId: String(outputValue(doc[pivot.relatedKey])), values };
}
