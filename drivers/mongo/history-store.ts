import type { AnyBulkWriteOperation, ClientSession, Db, Document } from 'mongodb';
import type { HistoryCapability, HistoryEntry, Id, Transaction } from '../../lib/driver';

/**
 * Decision 83 on MongoDB: a record's history in `grr_history_<collection>` (created at start with
 * its index on (record_id, version desc)). `append` is ONE bulkWrite in the write's session, of
 * one kind of operation so ONE command: inserts; with retention `n`, each entry replaces (upsert)
 * the one in its record's slot `version mod n` (its `_id` `<record>:<slot>`), the version n
 * before it, so a record never holds more than n entries and no delete is sent. Reads then answer
 * only versions above the newest minus n (what a prune by version would have left, when versions
 * have gaps or entries predate the retention). Versions come with the entries on versioned
 * resources; for the others the record's counter is read first (one aggregation for the batch).
 */
/** An entry as stored: with retention keyed `<record>:<slot>`, else by the ObjectId the insert gives it. */
type Stored = Document & { _id?: string };

export function mongoHistoryStore(db: () => Db, collectionOf: (model: string) => string, session: (tx: Transaction) => ClientSession): HistoryCapability {
  const named = (model: string) => db().collection<Stored>(`grr_history_${collectionOf(model)}`);
  const ready = new Map<string, Promise<void>>();
  const entryOf = (doc: Document): HistoryEntry => ({
    recordId: doc.record_id as Id,
    version: Number(doc.version),
    op: doc.op as HistoryEntry['op'],
    at: doc.at as Date,
    actor: doc.actor as HistoryEntry['actor'],
    requestId: (doc.request_id as string | null) ?? null,
    changes: (doc.changes ?? {}) as HistoryEntry['changes'],
  });
  /** With retention: the record's entries within it, newest first (at most `retain` documents read). */
  const kept = async (model: string, recordId: Id, retain: number): Promise<Document[]> => {
    const docs = await named(model).find({ record_id: String(recordId) }, { sort: { version: -1, _id: -1 }, limit: retain }).toArray();
    const top = docs.length > 0 ? Number(docs[0].version) : 0;
    return docs.filter((doc) => Number(doc.version) > top - retain);
  };
  return {
    ensure(model) {
      let done = ready.get(model);
      if (!done) {
        done = named(model).createIndex({ record_id: 1, version: -1 }, { name: 'record_version' }).then(() => undefined);
        ready.set(model, done);
        done.catch(() => ready.delete(model));
      }
      return done;
    },
    async append(model, entries, retain, tx) {
      if (entries.length === 0) return;
      const options = { session: session(tx) };
      const collection = named(model);
      const counted = entries.filter((e) => e.version === null).map((e) => String(e.recordId));
      const latest = new Map<string, number>();
      if (counted.length > 0) {
        const docs = await collection.aggregate<Document>([{ $match: { record_id: { $in: counted } } }, { $group: { _id: '$record_id', version: { $max: '$version' } } }], options).toArray();
        for (const doc of docs) latest.set(String(doc._id), Number(doc.version));
      }
      const ops = entries.map((e): AnyBulkWriteOperation<Stored> => {
        const recordId = String(e.recordId);
        const version = e.version ?? (latest.get(recordId) ?? 0) + 1;
        latest.set(recordId, version);
        const document = { record_id: recordId, version, op: e.op, at: e.at, actor: e.actor, request_id: e.requestId, changes: e.changes };
        // retention: the slot's entry is `retain` versions older, the one a prune would remove
        return retain === null ? { insertOne: { document } } : { replaceOne: { filter: { _id: `${recordId}:${version % retain}` }, replacement: document, upsert: true } };
      });
      await collection.bulkWrite(ops, { ...options, ordered: true });
    },
    async read(model, recordId, offset, limit, retain) {
      if (retain) {
        const docs = await kept(model, recordId, retain);
        return { total: docs.length, entries: docs.slice(offset, offset + limit).map(entryOf) };
      }
      const filter = { record_id: String(recordId) };
      const [facets] = await named(model)
        .aggregate<Document>([{ $match: filter }, { $sort: { version: -1, _id: -1 } }, { $facet: { total: [{ $count: 'n' }], entries: [{ $skip: offset }, { $limit: limit }] } }])
        .toArray();
      const total = Number((facets?.total as Document[] | undefined)?.[0]?.n ?? 0);
      return { total, entries: ((facets?.entries ?? []) as Document[]).map(entryOf) };
    },
    async entry(model, recordId, version, retain) {
      if (retain) {
        const doc = (await kept(model, recordId, retain)).find((d) => Number(d.version) === version);
        return doc ? entryOf(doc) : null;
      }
      const doc = await named(model).findOne({ record_id: String(recordId), version }, { sort: { _id: -1 } });
      return doc ? entryOf(doc) : null;
    },
  };
}
