import type { ClientSession, Db } from 'mongodb';
import type { Catalog } from '../../lib/resource/model-info';
import { outputValue } from './serialize';

/** Collection of the lock documents (one per referenced record, written only inside transactions). */
export const LOCK_COLLECTION = '__rest_reference_locks';

/**
 * MongoDB has no foreign keys, and snapshot isolation lets "insert a child of P" and "delete P"
 * both commit (each checked the other's data before it existed): write skew. A foreign key
 * prevents it by locking the referenced row; this does the same with a write to one lock document
 * per referenced record, in the same transaction as the insert, the key update or the delete. Two
 * such transactions write the same document, so one gets a WriteConflict, is retried by the
 * transaction's retry loop, and then sees what the other committed. One bulkWrite per call.
 */
export async function lockRecords(db: Db, session: ClientSession, keys: Iterable<string>): Promise<void> {
  const unique = [...new Set(keys)];
  // outside a transaction (a connection declared `transactions: false`) a lock document isolates nothing
  if (unique.length === 0 || !session.inTransaction()) return;
  await db
    .collection<{ _id: string; n: number }>(LOCK_COLLECTION)
    .bulkWrite(unique.map((key) => ({ updateOne: { filter: { _id: key }, update: { $inc: { n: 1 } }, upsert: true } })), { session, ordered: false });
}

/** The lock keys of the records that `records` of `model` reference through their belongsTo keys. */
export function referencedKeys(catalog: Catalog, model: string, records: Array<Record<string, unknown>>): string[] {
  const info = catalog.model(model);
  const keys: string[] = [];
  for (const rel of [...Object.values(info.relations), ...Object.values(info.hiddenRelations)]) {
    if (rel.kind !== 'belongsTo' || !catalog.has(rel.target)) continue;
    for (const record of records) {
      const value = record[rel.foreignKey];
      if (value !== null && value !== undefined) keys.push(lockKey(rel.target, value));
    }
  }
  return keys;
}

export function lockKey(model: string, id: unknown): string {
  return `${model}:${String(outputValue(id)).toLowerCase()}`;
}

/**
 * After the locks, inside the transaction: every referenced record must still exist (a foreign
 * key's check). A reference whose record went away is a foreign_key_violation naming the field.
 * One query per referenced model, whatever the number of records.
 */
export async function assertReferencesExist(
  db: Db,
  session: ClientSession,
  catalog: Catalog,
  collectionOf: (model: string) => string,
  model: string,
  records: Array<Record<string, unknown>>,
  toId: (value: unknown) => unknown,
): Promise<string | null> {
  const info = catalog.model(model);
  for (const rel of [...Object.values(info.relations), ...Object.values(info.hiddenRelations)]) {
    if (rel.kind !== 'belongsTo' || !catalog.has(rel.target)) continue;
    const wanted = [...new Set(records.map((r) => r[rel.foreignKey]).filter((v) => v !== null && v !== undefined).map((v) => String(outputValue(v)).toLowerCase()))];
    if (wanted.length === 0) continue;
    const found = await db.collection(collectionOf(rel.target)).find({ _id: { $in: wanted.map(toId) } } as never, { session, projection: { _id: 1 } }).toArray();
    if (found.length < wanted.length) return rel.foreignKey;
  }
  return null;
}
