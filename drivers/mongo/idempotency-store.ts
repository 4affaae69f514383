import type { Db } from 'mongodb';
import type { ClaimOutcome, IdempotencyCapability, StoredAnswer } from '../../lib/driver';

/**
 * Decision 80 on MongoDB: the keys in the `grr_idempotency_keys` collection (a unique index on
 * caller and key, a TTL index on the expiry), created on first use. A claim is one upsert that
 * takes over only an expired or a stale unfinished document; a live one makes the upsert a
 * duplicate key, and what is stored is read.
 */
const COLLECTION = 'grr_idempotency_keys';

export function mongoIdempotencyStore(db: () => Db): IdempotencyCapability {
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
        const taken = { $or: [{ expires_at: { $lt: now } }, { status: null, started_at: { $lt: new Date(now.getTime() - staleSeconds * 1000) } }] };
        try {
          await collection().updateOne({ caller, key, ...taken }, { $set: { fingerprint, status: null, headers: null, body: null, started_at: now, expires_at: new Date(now.getTime() + ttlSeconds * 1000) } }, { upsert: true });
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
        return { claimed: false, fingerprint: String(doc.fingerprint), answer };
      }
    },
    async complete(caller, key, answer, fingerprint) {
      await collection().updateOne({ caller, key }, { $set: { status: answer.status, headers: answer.headers, body: answer.body, ...(fingerprint === undefined ? {} : { fingerprint }) } });
    },
    async release(caller, key) {
      await collection().deleteOne({ caller, key, status: null });
    },
    async touch(caller, key) {
      await collection().updateOne({ caller, key, status: null }, { $set: { started_at: new Date() } });
    },
  };
}
