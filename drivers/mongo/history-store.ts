import type { AnyBulkWriteOperation, ClientSession, Db, Document } from 'mongodb';
import type { HistoryCapability, HistoryEntry, Id, Transaction } from '../../lib/driver';

/**
 * Decision 83 on MongoDB: a record's history in `grr_history_<collection>` (created at start with
 * its index on (record_id, version desc)). `append` is ONE bulkWrite in the write's session: the
 * inserts and, with retention, each record's prune. Versions come with the entries on versioned
 * resources; for the others the record's counter is read first (one aggregation for the batch).
 */
export function mongoHistoryStore(db: () => Db, collectionOf: (model: string) => string, session: (tx: Transaction) => ClientSession): HistoryCapability {
  const named = (model: string) => db().collection(`grr_history_${collectionOf(model)}`);
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
      // the inserts, then the prunes: a bulkWrite sends one command per run of the same kind
      const inserts: AnyBulkWriteOperation[] = [];
      const prunes: AnyBulkWriteOperation[] = [];
      for (const e of entries) {
        const recordId = String(e.recordId);
        const version = e.version ?? (latest.get(recordId) ?? 0) + 1;
        latest.set(recordId, version);
        inserts.push({ insertOne: { document: { record_id: recordId, version, op: e.op, at: e.at, actor: e.actor, request_id: e.requestId, changes: e.changes } } });
        if (retain !== null) prunes.push({ deleteMany: { filter: { record_id: recordId, version: { $lte: version - retain } } } });
      }
      await collection.bulkWrite([...inserts, ...prunes], { ...options, ordered: true });
    },
    async read(model, recordId, offset, limit) {
      const filter = { record_id: String(recordId) };
      const [facets] = await named(model)
        .aggregate<Document>([{ $match: filter }, { $sort: { version: -1, _id: -1 } }, { $facet: { total: [{ $count: 'n' }], entries: [{ $skip: offset }, { $limit: limit }] } }])
        .toArray();
      const total = Number((facets?.total as Document[] | undefined)?.[0]?.n ?? 0);
      return { total, entries: ((facets?.entries ?? []) as Document[]).map(entryOf) };
    },
    async entry(model, recordId, version) {
      const doc = await named(model).findOne({ record_id: String(recordId), version }, { sort: { _id: -1 } });
      return doc ? entryOf(doc) : null;
    },
  };
}
