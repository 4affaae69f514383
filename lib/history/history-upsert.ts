import type { Driver, Id, Row, Transaction, UpsertChunk, UpsertOutcome } from '../driver';
import { byIdsQuery } from '../service/reads/read-by-ids';
import { historyValue, sameValue } from './entry-changes';
import type { HistoryKit } from './history-kit';

type Upsert = NonNullable<Driver['upsert']>;

/**
 * An upsert's entries (decision 83) with no read of its own: the driver answers each matched
 * record as its write found it (PostgreSQL: the statement's old row), or writes it only while it
 * still holds the values the service read before its transaction (MongoDB), which are then the
 * values before. A record whose values moved meanwhile (a concurrent write: rare) is not written
 * by that; it is read in the transaction and written again without the condition, its values
 * read being its before.
 */
export function historyUpsert(inner: Driver, upsert: Upsert, kit: HistoryKit): Upsert {
  return async (model: string, chunk: UpsertChunk, tx: Transaction): Promise<UpsertOutcome> => {
    if (!kit.kept(model)) return upsert(model, chunk, tx);
    const outcome = await upsert(model, { ...chunk, history: true }, tx);
    kit.cache?.forget(tx, model, chunk.matchedIds);
    const was = new Map<string, Row>();
    if (outcome.before) {
      outcome.before.forEach((row, i) => row && was.set(String(chunk.matchedIds[i]), row));
    } else if (outcome.missed !== undefined && chunk.matchedRows) {
      chunk.matchedRows.forEach((row, i) => was.set(String(chunk.matchedIds[i]), row));
      if (outcome.missed > 0) await writeMissed(inner, upsert, kit, model, chunk, tx, was);
    } else {
      throw new Error(`the ${inner.kind} driver answered no record as its upsert found it (history)`);
    }
    const changedItems = chunk.matchedIds.flatMap((id, i) => (outcome.matched[i] === 'updated' ? [{ id, changes: chunk.matched[i] }] : []));
    const news = chunk.created.flatMap((record, i) => (outcome.created[i] === 'created' ? [{ record, id: outcome.createdIds[i] ?? null }] : []));
    await kit.append(model, [...kit.updated(model, changedItems, was), ...kit.created(model, news.map((n) => n.record), news.map((n) => n.id))], tx);
    return outcome;
  };
}

/**
 * Some matched records were left unwritten because a value read before the transaction moved:
 * the matched records as they are now, in the transaction; one that holds every value it was to
 * write (and, versioned, the version after the one read) was written by this upsert; the others
 * are written now without the condition, and their values now are their before.
 */
async function writeMissed(inner: Driver, upsert: Upsert, kit: HistoryKit, model: string, chunk: UpsertChunk, tx: Transaction, was: Map<string, Row>): Promise<void> {
  const info = kit.infoOf(model);
  const query = { ...byIdsQuery(info, chunk.matchedIds, { select: null, relations: [] }), ...(info.softDelete ? { trashed: 'with' as const } : {}) };
  const now = new Map((await inner.list(query, tx)).rows.map((row) => [String(row[info.key]), row]));
  const again: number[] = [];
  chunk.matchedIds.forEach((id, i) => {
    const row = now.get(String(id));
    if (!row) return void was.delete(String(id)); // deleted meanwhile: nothing written, no entry
    const read = chunk.matchedRows![i];
    const held = Object.entries(chunk.matched[i]).every(([field, value]) => !(field in info.fields) || sameValue(historyValue(info, field, row[field]), historyValue(info, field, value)));
    const moved = info.versionField ? row[info.versionField] === (read[info.versionField] as number) + 1 : true;
    if (held && moved) return;
    was.set(String(id), row);
    again.push(i);
  });
  if (again.length === 0) return;
  await upsert(model, { keys: chunk.keys, matched: again.map((i) => chunk.matched[i]), matchedIds: again.map((i) => chunk.matchedIds[i] as Id), created: [] }, tx);
}
