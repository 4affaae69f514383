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
 * it first (as without transactions, where nothing would run again).
 */
export function historyUpsert(inner: Driver, upsert: Upsert, kit: HistoryKit): Upsert {
  /** Transactions whose attempt failed in a pinned upsert: their next attempt reads first. */
  const readFirst = new WeakSet<Transaction>();
  let retries: boolean | undefined;
  return async (model: string, chunk: UpsertChunk, tx: Transaction): Promise<UpsertOutcome> => {
    if (!kit.kept(model)) return upsert(model, chunk, tx);
    retries ??= capabilitiesOf(inner).transactions;
    const read = readFirst.has(tx) || !retries || !chunk.matchedRows;
    const items = chunk.matched.map((changes) => ({ changes }));
    const was = read && chunk.matchedIds.length > 0 ? await kit.before(model, chunk.matchedIds, tx, items) : new Map<string, Row>();
    let outcome: UpsertOutcome;
    try {
      outcome = await upsert(model, { ...chunk, history: true, matchedRows: read ? undefined : chunk.matchedRows }, tx);
    } catch (error) {
      if (!read) readFirst.add(tx);
      throw error;
    }
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
