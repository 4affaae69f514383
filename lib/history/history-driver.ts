import type { Driver, HistoryOp, Id, Row, Transaction, UpdateGuard, UpdateItem } from '../driver';
import type { ListQuery } from '../query/ast';
import { forwarding } from '../changes/recording-driver';
import { readDeleteEffects } from '../changes/delete-effects';
import { removedChanges } from './entry-changes';
import { historyKit, type HistoryBook } from './history-kit';
import { historyUpsert } from './history-upsert';

export type { HistoryBook } from './history-kit';

/**
 * The driver as the service sees it when resources keep history (decision 83): every write method
 * appends one entry per record it changed, in the same transaction (a rollback removes them with
 * the write), adding at most ONE statement (PostgreSQL) or ONE bulkWrite (MongoDB) to the write:
 * the append, or none where the write's own statement appends (PostgreSQL updates). "Before"
 * values come from the write itself where it can answer them (PostgreSQL's UPDATE, DELETE and
 * upsert), else from the read the service made in the same transaction before writing
 * (read-cache.ts; MongoDB) or, for an upsert, the values the write was conditioned on.
 */
export function historyDriver(inner: Driver, book: HistoryBook): Driver {
  const store = inner.history;
  if (!store) throw new Error(`the ${inner.kind} driver keeps no history`);
  const kit = historyKit(inner, store, book);
  const { kept, infoOf, tracked, entry, nextVersion, cache } = kit;
  /** Deletes `ids`, answering the records removed as they were (by key). */
  const deleteWithRows = async (model: string, ids: Id[], tx: Transaction): Promise<{ deleted: Id[]; was: Map<string, Row> }> => {
    if (store.delete) {
      const { ids: deleted, rows } = await store.delete(model, ids, tx);
      const key = infoOf(model).key;
      return { deleted, was: new Map(rows.map((row) => [String(row[key]), row])) };
    }
    const was = await kit.before(model, ids, tx);
    return { deleted: await inner.delete(model, ids, tx), was };
  };

  const wrapped: Partial<Driver> = {
    ...cache?.reads,
    async insert(model: string, records: Record<string, unknown>[], tx: Transaction): Promise<Id[]> {
      const ids = await inner.insert(model, records, tx);
      if (kept(model)) await kit.append(model, kit.created(model, records, ids), tx);
      return ids;
    },
    async update(model: string, items: UpdateItem[], tx: Transaction, guard?: UpdateGuard): Promise<number> {
      if (!kept(model) || items.length === 0) return inner.update(model, items, tx, guard);
      // PostgreSQL: the UPDATE appends its own entries (no statement added)
      if (store.update) return (await store.update(model, items, tx, guard, null, false, kit.appendOf(model, tx, guard))).rows.length;
      const was = await kit.before(model, items.map((i) => i.id), tx, items);
      const count = await inner.update(model, items, tx, guard);
      cache?.forget(tx, model, items.map((i) => i.id));
      await kit.append(model, kit.updated(model, items, was, tx, guard), tx);
      return count;
    },
    async delete(model: string, ids: Id[], tx: Transaction): Promise<Id[]> {
      const catalog = book.catalog();
      const effects = await readDeleteEffects(inner, catalog, kept, model, ids, tx);
      const { deleted, was } = kept(model) && ids.length > 0 ? await deleteWithRows(model, ids, tx) : { deleted: await inner.delete(model, ids, tx), was: null };
      // its rules may have changed records of other models
      cache?.forget(tx);
      const at = new Date();
      if (was) {
        const info = infoOf(model);
        const op: HistoryOp = info.softDelete ? 'force_deleted' : 'deleted';
        const entries = deleted.flatMap((id) => {
          const row = was.get(String(id));
          return row ? [entry(id, nextVersion(info, row), op, removedChanges(info, tracked(info), row), at)] : [];
        });
        await kit.append(model, entries, tx);
      }
      if (effects) {
        const { nulledFields, removed } = effects(deleted);
        for (const [other, list] of nulledFields) await kit.append(other, list.map((n) => entry(n.key, null, 'updated', { [n.field]: [n.was, null] }, at)), tx);
        for (const [other, rows] of removed) {
          const info = infoOf(other);
          const op: HistoryOp = info.softDelete ? 'force_deleted' : 'deleted';
          await kit.append(other, rows.map((row) => entry(row[info.key] as Id, nextVersion(info, row), op, removedChanges(info, tracked(info), row), at)), tx);
        }
      }
      return deleted;
    },
  };
  if (inner.insertRows) {
    const insertRows = inner.insertRows.bind(inner);
    wrapped.insertRows = (model: string, records: Record<string, unknown>[], read: ListQuery) => {
      const run = insertRows(model, records, read);
      if (!kept(model)) return run;
      const key = infoOf(model).key;
      return async (tx: Transaction) => {
        const rows = await run(tx);
        await kit.append(model, kit.created(model, records, rows.map((row) => row[key] as Id)), tx);
        return rows;
      };
    };
  }
  if (inner.updateRows) {
    const updateRows = inner.updateRows.bind(inner);
    wrapped.updateRows = async (model: string, items: UpdateItem[], tx: Transaction, read: ListQuery, allOrNone?: boolean) => {
      if (!kept(model) || items.length === 0) return updateRows(model, items, tx, read, allOrNone);
      if (store.update) return (await store.update(model, items, tx, undefined, read, allOrNone ?? false, kit.appendOf(model, tx))).rows;
      const last = tx.endsWithNext;
      // the append comes after the UPDATE: it, not the UPDATE, may carry the COMMIT
      tx.endsWithNext = false;
      const was = await kit.before(model, items.map((i) => i.id), tx, items);
      const rows = await updateRows(model, items, tx, read, allOrNone);
      cache?.forget(tx, model, items.map((i) => i.id));
      const key = infoOf(model).key;
      const written = new Set(rows.map((row) => String(row[key])));
      tx.endsWithNext = last;
      await kit.append(model, kit.updated(model, items.filter((i) => written.has(String(i.id))), was, tx), tx);
      return rows;
    };
  }
  if (inner.upsert) wrapped.upsert = historyUpsert(inner, inner.upsert.bind(inner), kit);
  return forwarding(inner, wrapped);
}
