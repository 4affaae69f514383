import type { Driver, HistoryEntryInput, HistoryOp, HistoryUpdateAppend, Id, Row, Transaction, UpdateGuard, UpdateItem, UpsertChunk } from '../driver';
import type { ListQuery } from '../query/ast';
import type { Catalog, ModelInfo } from '../resource/model-info';
import { forwarding } from '../changes/recording-driver';
import { readDeleteEffects } from '../changes/delete-effects';
import { byIdsQuery } from '../service/reads/read-by-ids';
import { currentContext } from '../service/request-context';
import { createdChanges, removedChanges, trackedFields, updateChanges } from './entry-changes';
import { isReverting } from './revert-mark';

/** Which models keep history and how many versions (null: all). */
export interface HistoryBook {
  /** undefined: the model keeps no history. */
  retainOf(model: string): number | null | undefined;
  catalog(): Catalog;
}

/**
 * The driver as the service sees it when resources keep history (decision 83): every write method
 * appends one entry per record it changed, in the same transaction (a rollback removes them with
 * the write), with ONE append per write (one statement; one bulkWrite on MongoDB). "Before" values
 * come from one read by ids in the transaction where the write's own statement cannot answer them.
 */
export function historyDriver(inner: Driver, book: HistoryBook): Driver {
  const store = inner.history;
  if (!store) throw new Error(`the ${inner.kind} driver keeps no history`);
  const kept = (model: string) => book.retainOf(model) !== undefined;
  const infoOf = (model: string) => book.catalog().model(model);
  const fieldsOf = new Map<string, string[]>();
  const tracked = (info: ModelInfo) => {
    let fields = fieldsOf.get(info.name);
    if (!fields) fieldsOf.set(info.name, (fields = trackedFields(info)));
    return fields;
  };
  /** Who writes: the request's caller and id (none outside a request: the application itself). */
  const who = (): Pick<HistoryEntryInput, 'actor' | 'requestId'> => {
    const ctx = currentContext();
    return { actor: { id: ctx?.user?.id ?? null, roles: ctx?.roles ?? [] }, requestId: ctx?.requestId ?? null };
  };
  const entry = (recordId: Id, version: number | null, op: HistoryOp, changes: HistoryEntryInput['changes'], at: Date): HistoryEntryInput => ({ recordId, version, op, at, ...who(), changes });
  const append = async (model: string, entries: HistoryEntryInput[], tx: Transaction) => {
    if (entries.length === 0) return;
    await store.ensure(model);
    await store.append(model, entries, book.retainOf(model) ?? null, tx);
  };
  /** The records as stored before the write (trashed ones included), by key; with `items`, only the fields they write (and the key, version and soft-delete field). */
  const before = async (model: string, ids: Id[], tx: Transaction, items?: Array<{ changes: Record<string, unknown> }>): Promise<Map<string, Row>> => {
    const info = infoOf(model);
    const written = items ? new Set(items.flatMap((i) => Object.keys(i.changes))) : null;
    const select = written ? [...new Set([info.key, ...[info.versionField, info.softDelete].filter((f): f is string => Boolean(f)), ...tracked(info).filter((f) => written.has(f))])] : null;
    const query: ListQuery = { ...byIdsQuery(info, ids, { select, relations: [] }), ...(info.softDelete ? { trashed: 'with' as const } : {}) };
    const { rows } = await inner.list(query, tx);
    return new Map(rows.map((row) => [String(row[info.key]), row]));
  };
  const opOf = (info: ModelInfo, guard?: UpdateGuard): HistoryOp => (guard && guard.field === info.softDelete ? (guard.isNull ? 'deleted' : 'restored') : isReverting(currentContext()) ? 'reverted' : 'updated');
  /** What an update's own statement appends (stores that can, PostgreSQL). */
  const appendOf = (model: string, guard?: UpdateGuard): HistoryUpdateAppend => {
    const info = infoOf(model);
    return { op: opOf(info, guard), ...who(), retain: book.retainOf(model) ?? null, fields: tracked(info) };
  };
  const nextVersion = (info: ModelInfo, row: Row | undefined) => (info.versionField && row && typeof row[info.versionField] === 'number' ? (row[info.versionField] as number) + 1 : null);
  const created = (model: string, records: Record<string, unknown>[], ids: Array<Id | null>) => {
    const info = infoOf(model);
    const at = new Date();
    return records.flatMap((record, i) => (ids[i] === null || ids[i] === undefined ? [] : [entry(ids[i] as Id, 1, 'created', createdChanges(info, tracked(info), record), at)]));
  };
  const updated = (model: string, items: UpdateItem[], was: Map<string, Row>, guard?: UpdateGuard) => {
    const info = infoOf(model);
    const at = new Date();
    const op = opOf(info, guard);
    return items.flatMap((item) => {
      const row = was.get(String(item.id));
      if (!row) return [];
      if (guard && (row[guard.field] === null || row[guard.field] === undefined) !== guard.isNull) return [];
      if (item.expected !== undefined && info.versionField && row[info.versionField] !== item.expected) return [];
      const changes = updateChanges(info, tracked(info), row, item.changes);
      return Object.keys(changes).length === 0 ? [] : [entry(item.id, nextVersion(info, row), op, changes, at)];
    });
  };

  const wrapped: Partial<Driver> = {
    async insert(model: string, records: Record<string, unknown>[], tx: Transaction): Promise<Id[]> {
      const ids = await inner.insert(model, records, tx);
      if (kept(model)) await append(model, created(model, records, ids), tx);
      return ids;
    },
    async update(model: string, items: UpdateItem[], tx: Transaction, guard?: UpdateGuard): Promise<number> {
      if (!kept(model) || items.length === 0) return inner.update(model, items, tx, guard);
      // PostgreSQL: the UPDATE appends its own entries (no statement added)
      if (store.update) return (await store.update(model, items, tx, guard, null, false, appendOf(model, guard))).rows.length;
      const was = await before(model, items.map((i) => i.id), tx, items);
      const count = await inner.update(model, items, tx, guard);
      await append(model, updated(model, items, was, guard), tx);
      return count;
    },
    async delete(model: string, ids: Id[], tx: Transaction): Promise<Id[]> {
      const catalog = book.catalog();
      const effects = await readDeleteEffects(inner, catalog, kept, model, ids, tx);
      const was = kept(model) && ids.length > 0 ? await before(model, ids, tx) : null;
      const deleted = await inner.delete(model, ids, tx);
      const at = new Date();
      if (was) {
        const info = infoOf(model);
        const op: HistoryOp = info.softDelete ? 'force_deleted' : 'deleted';
        const entries = deleted.flatMap((id) => {
          const row = was.get(String(id));
          return row ? [entry(id, nextVersion(info, row), op, removedChanges(info, tracked(info), row), at)] : [];
        });
        await append(model, entries, tx);
      }
      if (effects) {
        const { nulledFields, removed } = effects(deleted);
        for (const [other, list] of nulledFields) await append(other, list.map((n) => entry(n.key, null, 'updated', { [n.field]: [n.was, null] }, at)), tx);
        for (const [other, rows] of removed) {
          const info = infoOf(other);
          const op: HistoryOp = info.softDelete ? 'force_deleted' : 'deleted';
          await append(other, rows.map((row) => entry(row[info.key] as Id, nextVersion(info, row), op, removedChanges(info, tracked(info), row), at)), tx);
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
        await append(model, created(model, records, rows.map((row) => row[key] as Id)), tx);
        return rows;
      };
    };
  }
  if (inner.updateRows) {
    const updateRows = inner.updateRows.bind(inner);
    wrapped.updateRows = async (model: string, items: UpdateItem[], tx: Transaction, read: ListQuery, allOrNone?: boolean) => {
      if (!kept(model) || items.length === 0) return updateRows(model, items, tx, read, allOrNone);
      if (store.update) return (await store.update(model, items, tx, undefined, read, allOrNone ?? false, appendOf(model))).rows;
      const last = tx.endsWithNext;
      // the append comes after the UPDATE: it, not the UPDATE, may carry the COMMIT
      tx.endsWithNext = false;
      const was = await before(model, items.map((i) => i.id), tx, items);
      const rows = await updateRows(model, items, tx, read, allOrNone);
      const key = infoOf(model).key;
      const written = new Set(rows.map((row) => String(row[key])));
      tx.endsWithNext = last;
      await append(model, updated(model, items.filter((i) => written.has(String(i.id))), was), tx);
      return rows;
    };
  }
  if (inner.upsert) {
    const upsert = inner.upsert.bind(inner);
    wrapped.upsert = async (model: string, chunk: UpsertChunk, tx: Transaction) => {
      if (!kept(model)) return upsert(model, chunk, tx);
      const last = tx.endsWithNext;
      // the append comes after the upsert: it, not the upsert, may carry the COMMIT
      tx.endsWithNext = false;
      const was = chunk.matchedIds.length > 0 ? await before(model, chunk.matchedIds, tx, chunk.matched.map((changes) => ({ changes }))) : new Map<string, Row>();
      const outcome = await upsert(model, chunk, tx);
      tx.endsWithNext = last;
      const changedItems = chunk.matchedIds.flatMap((id, i) => (outcome.matched[i] === 'updated' ? [{ id, changes: chunk.matched[i] }] : []));
      const news = chunk.created.flatMap((record, i) => (outcome.created[i] === 'created' ? [{ record, id: outcome.createdIds[i] ?? null }] : []));
      await append(model, [...updated(model, changedItems, was), ...created(model, news.map((n) => n.record), news.map((n) => n.id))], tx);
      return outcome;
    };
  }
  return forwarding(inner, wrapped);
}
