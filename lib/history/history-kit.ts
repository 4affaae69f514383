import type { Driver, HistoryCapability, HistoryEntryInput, HistoryOp, HistoryUpdateAppend, Id, Row, Transaction, UpdateGuard, UpdateItem } from '../driver';
import type { ListQuery } from '../query/ast';
import type { Catalog, ModelInfo } from '../resource/model-info';
import { byIdsQuery } from '../service/reads/read-by-ids';
import type { RequestContext } from '../service/request-context';
import { createdChanges, trackedFields, updateChanges } from './entry-changes';
import { readCache, type ReadCache } from './read-cache';
import { isReverting } from './revert-mark';

/** Which models keep history and how many versions (null: all). */
export interface HistoryBook {
  /** undefined: the model keeps no history. */
  retainOf(model: string): number | null | undefined;
  catalog(): Catalog;
}

/** What the history driver's parts share: the entries they build, the append, the records as they were. */
export type HistoryKit = ReturnType<typeof historyKit>;

export function historyKit(inner: Driver, store: HistoryCapability, book: HistoryBook) {
  const kept = (model: string) => book.retainOf(model) !== undefined;
  const infoOf = (model: string) => book.catalog().model(model);
  const fieldsOf = new Map<string, string[]>();
  const tracked = (info: ModelInfo) => {
    let fields = fieldsOf.get(info.name);
    if (!fields) fieldsOf.set(info.name, (fields = trackedFields(info)));
    return fields;
  };
  /** The request a transaction runs for (the service's door sets it); none outside a request: the application itself. */
  const requestOf = (tx: Transaction) => tx.request as RequestContext | undefined;
  /** Who writes: the request's caller and id. */
  const who = (tx: Transaction): Pick<HistoryEntryInput, 'actor' | 'requestId'> => {
    const ctx = requestOf(tx);
    return { actor: { id: ctx?.user?.id ?? null, roles: ctx?.roles ?? [] }, requestId: ctx?.requestId ?? null };
  };
  /** An entry; its actor and request id are set by `append`, from the transaction. */
  const entry = (recordId: Id, version: number | null, op: HistoryOp, changes: HistoryEntryInput['changes'], at: Date): HistoryEntryInput => ({ recordId, version, op, at, actor: { id: null, roles: [] }, requestId: null, changes });
  const opOf = (info: ModelInfo, tx: Transaction, guard?: UpdateGuard): HistoryOp => (guard && guard.field === info.softDelete ? (guard.isNull ? 'deleted' : 'restored') : isReverting(requestOf(tx)) ? 'reverted' : 'updated');
  const nextVersion = (info: ModelInfo, row: Row | undefined) => (info.versionField && row && typeof row[info.versionField] === 'number' ? (row[info.versionField] as number) + 1 : null);
  // a store whose update statement answers the rows as they were needs no record of earlier reads
  const cache: ReadCache | null = store.update ? null : readCache(inner, kept, infoOf);
  return {
    kept,
    infoOf,
    tracked,
    entry,
    nextVersion,
    cache,
    async append(model: string, entries: HistoryEntryInput[], tx: Transaction): Promise<void> {
      if (entries.length === 0) return;
      const { actor, requestId } = who(tx);
      for (const e of entries) {
        e.actor = actor;
        e.requestId = requestId;
      }
      await store.ensure(model);
      await store.append(model, entries, book.retainOf(model) ?? null, tx);
    },
    /** What an update's own statement appends (stores that can, PostgreSQL). */
    appendOf(model: string, tx: Transaction, guard?: UpdateGuard): HistoryUpdateAppend {
      const info = infoOf(model);
      return { op: opOf(info, tx, guard), ...who(tx), retain: book.retainOf(model) ?? null, fields: tracked(info) };
    },
    /**
     * The records as stored before the write (trashed ones included), by key: those this
     * transaction read already (the cache), the others in one read; with `items`, only the fields
     * they write (and the key, version and soft-delete field).
     */
    async before(model: string, ids: Id[], tx: Transaction, items?: Array<{ changes: Record<string, unknown> }>): Promise<Map<string, Row>> {
      const info = infoOf(model);
      const out = new Map<string, Row>();
      const missing: Id[] = [];
      for (const id of ids) {
        const row = cache?.get(tx, model, id);
        if (row) out.set(String(id), row);
        else missing.push(id);
      }
      if (missing.length === 0) return out;
      const written = items ? new Set(items.flatMap((i) => Object.keys(i.changes))) : null;
      const select = written ? [...new Set([info.key, ...[info.versionField, info.softDelete].filter((f): f is string => Boolean(f)), ...tracked(info).filter((f) => written.has(f))])] : null;
      const query: ListQuery = { ...byIdsQuery(info, missing, { select, relations: [] }), ...(info.softDelete ? { trashed: 'with' as const } : {}) };
      for (const row of (await inner.list(query, tx)).rows) out.set(String(row[info.key]), row);
      return out;
    },
    created(model: string, records: Record<string, unknown>[], ids: Array<Id | null>): HistoryEntryInput[] {
      const info = infoOf(model);
      const at = new Date();
      return records.flatMap((record, i) => (ids[i] === null || ids[i] === undefined ? [] : [entry(ids[i] as Id, 1, 'created', createdChanges(info, tracked(info), record), at)]));
    },
    updated(model: string, items: UpdateItem[], was: Map<string, Row>, tx: Transaction, guard?: UpdateGuard): HistoryEntryInput[] {
      const info = infoOf(model);
      const at = new Date();
      const op = opOf(info, tx, guard);
      return items.flatMap((item) => {
        const row = was.get(String(item.id));
        if (!row) return [];
        if (guard && (row[guard.field] === null || row[guard.field] === undefined) !== guard.isNull) return [];
        if (item.expected !== undefined && info.versionField && row[info.versionField] !== item.expected) return [];
        const changes = updateChanges(info, tracked(info), row, item.changes);
        return Object.keys(changes).length === 0 ? [] : [entry(item.id, nextVersion(info, row), op, changes, at)];
      });
    },
  };
}
