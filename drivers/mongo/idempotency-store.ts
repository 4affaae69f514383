import type { ClientSession, Db } from 'mongodb';
import type { ClaimOutcome, IdempotencyCapability, StoredAnswer } from '../../lib/driver';

/**
 * Decision 80 on MongoDB: the keys in the `grr_idempotency_keys` collection (a unique index on
 * caller and key, a TTL index on the expiry), created on first use. A claim is one upsert that
 * takes over only an expired or a stale unfinished document; a live one makes the upsert a
 * duplicate key, and what is stored is read. The request's write transaction sets `committed`:
 * a claim whose writes committed is never taken over, even when its answer was never stored.
 */
const COLLECTION = 'grr_idempotency_keys';

/** `session`: the session of a transaction of this driver (the commit mark is written in it). */
export function mongoIdempotencyStore(db: () => Db, session: (tx: unknown) => ClientSession): IdempotencyCapability {
  let ready: Promise<void> | null = null;
  const collection = () => db().collection(COLLECTION);
  const ensure = () => (ready ??= collection().createIndexes([{ key: { caller: 1, key: 1 }, name: 'caller_key', unique: true }, { key: { expires_at: 1 }, name: 'expiry', expireAfterSeconds: 0 }]).then(() => undefined, (error: unknown) => {
    ready = null;
    throw error;
  }));
  return {
    async claim(caller, key, fingerprint, ttlSeconds, staleSeconds): Promise<ClaimOutcome> {
      await ensure();
      for (let attempt = 0; ; attempt += 1) {
        const now = new Date();
        const taken = { $or: [{ expires_at: { $lt: now } }, { status: null, committed: { $ne: true }, started_at: { $lt: new Date(now.getTime() - staleSeconds * 1000) } }] };
        try {
          await collection().updateOne({ caller, key, ...taken }, { $set: { fingerprint, status: null, headers: null, body: null, committed: false, started_at: now, expires_at: new Date(now.getTime() + ttlSeconds * 1000) } }, { upsert: true });
          return { claimed: true };
        } catch (error) {
          if ((error as { code?: number }).code !== 11000) throw error;
        }
        const doc = await collection().findOne({ caller, key, expires_at: { $gte: now } });
        if (!doc) {
          if (attempt < 3) continue;
          return { claimed: false, fingerprint: '', answer: null };
        }
        const answer: StoredAnswer | null = doc.status === null || doc.status === undefined ? null : { status: Number(doc.status), headers: (doc.headers ?? {}) as Record<string, string>, body: String(doc.body) };
        const lost = answer === null && doc.committed === true && (doc.started_at as Date) < new Date(now.getTime() - staleSeconds * 1000);
        return { claimed: false, fingerprint: String(doc.fingerprint), answer, lost };
      }
    },
    async markCommitted(caller, key, tx) {
      await collection().updateOne({ caller, key }, { $set: { committed: true } }, { session: session(tx) });
    },
    async complete(caller, key, answer, fingerprint) {
      await collection().updateOne({ caller, key }, { $set: { status: answer.status, headers: answer.headers, body: answer.body, ...(fingerprint === undefined ? {} : { fingerprint }) } });
    },
    async release(caller, key) {
      // a request that failed after its writes committed (an after-hook threw) keeps its key, as lost: a retry must not write again
      const { deletedCount } = await collection().deleteOne({ caller, key, status: null, committed: { $ne: true } });
      if (deletedCount === 0) await collection().updateOne({ caller, key, status: null, committed: true }, { $set: { started_at: new Date(0) } });
    },
    async touch(caller, key) {
      await collection().updateOne({ caller, key, status: null }, { $set: { started_at: new Date() } });
    },
  };
}
