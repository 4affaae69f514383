import { capabilitiesOf } from '../driver/capabilities';
import type { Driver, Row, Transaction, UpsertChunk, UpsertOutcome } from '../driver';
import type { HistoryKit } from './history-kit';

type Upsert = NonNullable<Driver['upsert']>;

/**
 * An upsert's entries (decision 83) with no read of its own: the driver answers each matched
 * record as its write found it (PostgreSQL: the statement's old row), or writes it only while it
 * still holds the values the service read before the transaction, which are then its values
 * before (MongoDB). A record whose values moved meanwhile (a concurrent write: rare) fails that
 * write as a write conflict; the transaction runs again, and this time its records are read in
 * it first (as without transactions, where nothing would run again). The append comes last: a
 * COMMIT the caller hands to the upsert (Transaction.endsWithNext) goes with the append instead.
 */
export function historyUpsert(inner: Driver, upsert: Upsert, kit: HistoryKit): Upsert {
  /** Transactions whose attempt failed in a pinned upsert: their next attempt reads first. */
  const readFirst = new WeakSet<Transaction>();
  let retries: boolean | undefined;
  return async (model: string, chunk: UpsertChunk, tx: Transaction): Promise<UpsertOutcome> => {
    if (!kit.kept(model)) return upsert(model, chunk, tx);
    retries ??= capabilitiesOf(inner).transactions;
    const read = readFirst.has(tx) || !retries || !holdsWritten(kit, model, chunk);
    const last = tx.endsWithNext;
    // the append comes after the upsert: it, not the upsert (nor the read), may carry the COMMIT
    tx.endsWithNext = false;
    const items = chunk.matched.map((changes) => ({ changes }));
    const was = read && chunk.matchedIds.length > 0 ? await kit.before(model, chunk.matchedIds, tx, items) : new Map<string, Row>();
    let outcome: UpsertOutcome;
    try {
      outcome = await upsert(model, { ...chunk, history: true, matchedRows: read ? undefined : chunk.matchedRows }, tx);
    } catch (error) {
      if (!read) readFirst.add(tx);
      throw error;
    }
    tx.endsWithNext = last;
    kit.cache?.forget(tx, model, chunk.matchedIds);
    if (outcome.before) outcome.before.forEach((row, i) => row && was.set(String(chunk.matchedIds[i]), row));
    else if (outcome.pinned) chunk.matchedRows!.forEach((row, i) => was.set(String(chunk.matchedIds[i]), row));
    else if (!read) throw new Error(`the ${inner.kind} driver answered no record as its upsert found it (history)`);
    const changedItems = chunk.matchedIds.flatMap((id, i) => (outcome.matched[i] === 'updated' ? [{ id, changes: chunk.matched[i] }] : []));
    const news = chunk.created.flatMap((record, i) => (outcome.created[i] === 'created' ? [{ record, id: outcome.createdIds[i] ?? null }] : []));
    await kit.append(model, [...kit.updated(model, changedItems, was, tx), ...kit.created(model, news.map((n) => n.record), news.map((n) => n.id))], tx);
    return outcome;
  };
}

/**
 * Whether the service's read (`matchedRows`) holds every field history compares that the chunk
 * writes, and the version: the values a pinned write is conditioned on and history's "before".
 * That read takes only what the service checks and compares; a field a before-hook added to a
 * record may be missing from it, and then the records are read first.
 */
function holdsWritten(kit: HistoryKit, model: string, chunk: UpsertChunk): boolean {
  const rows = chunk.matchedRows;
  if (!rows) return false;
  const info = kit.infoOf(model);
  const tracked = new Set(kit.tracked(info));
  return chunk.matched.every((record, i) => {
    const row = rows[i];
    if (!row || (info.versionField && !(info.versionField in row))) return false;
    for (const field in record) if (tracked.has(field) && !(field in row)) return false;
    return true;
  });
}
