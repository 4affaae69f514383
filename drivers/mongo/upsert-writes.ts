import { MongoServerError } from 'mongodb';
import type { Id, Transaction, UpsertChunk, UpsertOutcome } from '../../lib/driver';
import { outputValue } from './serialize';
import { toObjectId } from './compile-context';
import { lockReferences, type WriteContext } from './write-operations';

/**
 * Decision 79 on MongoDB: ONE bulkWrite per chunk, every operation an `updateOne` on the match
 * keys (backed by a unique index, checked at start). A record that matched when the request was
 * checked updates the fields it gives, only where one differs (decision 67); a new one is an
 * upsert, so a record a concurrent request created meanwhile is updated instead (inside a
 * transaction the duplicate is a write conflict the transaction loop retries), never a second
 * record. The version field is incremented by every write (`$inc` makes 1 on insert).
 * Outcome: `created` for the upserted (their ids from the reply), `updated` for the others.
 * With `chunk.history`, matched records are pinned to `matchedRows` (no read: MongoDB's bulkWrite
 * answers no document); one whose values moved meanwhile fails the chunk as a write conflict.
 */
export async function upsertRecords(ctx: WriteContext, model: string, chunk: UpsertChunk, tx: Transaction): Promise<UpsertOutcome> {
  const native = ctx.model(model);
  const info = ctx.catalog().model(model);
  const version = info.versionField ?? null;
  const idFields = new Set(Object.values(info.fields).filter((f) => f.type === 'id').map((f) => f.name));
  const cast = (field: string, value: unknown) => (idFields.has(field) && typeof value === 'string' ? toObjectId(value) : value);
  const filterOf = (record: Record<string, unknown>) => Object.fromEntries(chunk.keys.map((k) => [k === 'id' ? '_id' : k, cast(k, record[k])]));
  const valuesOf = (record: Record<string, unknown>) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(record)) if (v !== undefined && k !== 'id' && k !== '_id' && k !== version && !chunk.keys.includes(k)) out[k] = v;
    return out;
  };
  const bump = version ? { $inc: { [version]: 1 } } : {};
  const ops: unknown[] = [];
  // history (decision 83): a matched record is written only while it holds the values the caller
  // read, which are then its values before the write
  const pinned = chunk.history && chunk.matchedRows ? chunk.matchedRows : null;
  // only fields the read answered (a write-only one is not, nor kept in history)
  const pinOf = (row: Record<string, unknown>, keys: string[]) => Object.fromEntries([...keys, ...(version ? [version] : [])].filter((k) => k in row).map((k) => [k, cast(k, row[k] ?? null)]));
  chunk.matched.forEach((record, i) => {
    const set = valuesOf(record);
    const keys = Object.keys(set);
    // written only where a given value differs (the service sends only such records)
    const pins = pinned ? pinOf(pinned[i], keys) : {};
    ops.push({ updateOne: { filter: { _id: toObjectId(String(chunk.matchedIds[i])), ...pins, $or: keys.length ? keys.map((k) => ({ [k]: { $ne: cast(k, set[k]) } })) : [{ _id: null }] }, update: { $set: set, ...bump } } });
  });
  for (const set of chunk.matched.map(valuesOf)) if (Object.keys(set).length) await native.validate({ ...set }, Object.keys(set));
  const firstCreated = ops.length;
  for (const record of chunk.created) {
    const set = valuesOf(record);
    await native.validate({ ...set, ...Object.fromEntries(chunk.keys.map((k) => [k, record[k]])) });
    ops.push({ updateOne: { filter: filterOf(record), update: { $set: set, ...bump }, upsert: true, setDefaultsOnInsert: true } });
  }
  if (ops.length === 0) return { matched: [], created: [], createdIds: [] };
  await lockReferences(ctx, model, [...chunk.matched, ...chunk.created], tx);
  const result = await native.bulkWrite(ops as never, { session: ctx.session(tx), ordered: true, timestamps: true });
  const upserted = (result as unknown as { upsertedIds?: Record<string, unknown> }).upsertedIds ?? {};
  const createdIds: Array<Id | null> = chunk.created.map(() => null);
  for (const [index, id] of Object.entries(upserted)) createdIds[Number(index) - firstCreated] = String(outputValue(id));
  // a pinned record not matched: its values moved since the read, retried as any write conflict
  const found = createdIds.filter((id) => id === null).length;
  if (pinned && result.matchedCount - found < chunk.matched.length) throw movedSinceRead();
  // an upsert that found a record (created concurrently) updated it
  return { matched: chunk.matched.map(() => 'updated'), created: createdIds.map((id) => (id === null ? 'updated' : 'created')), createdIds, ...(pinned ? { pinned: true } : {}) };
}

/** What the server answers a write that met a concurrent one in a transaction: the transaction runs again. */
function movedSinceRead(): MongoServerError {
  return new MongoServerError({ message: 'A matched record changed since the upsert read it (history): the transaction runs again.', code: 112, codeName: 'WriteConflict', errorLabels: ['TransientTransactionError'] });
}
