import type { Driver, Id, ListResult, Row, Transaction } from '../driver';
import type { ListQuery } from '../query/ast';
import type { ModelInfo } from '../resource/model-info';

/**
 * Decision 83 where a write cannot answer its records as they were (MongoDB's updates and
 * deletes): the whole records a transaction already read of a model that keeps history, so the
 * append needs no read of its own. A write in a transaction always follows a read of the same
 * records (its visibility, ownership or existence check, destroy's read of the record), made
 * here to read whole records: the same round trip, more bytes. Inside one transaction (one
 * snapshot) a record read is its value until a write of this transaction: every write forgets
 * what it may have changed, and each attempt of a retried transaction starts empty.
 */
export interface ReadCache {
  /** The record as last read in `tx`, if it was and nothing wrote it since. */
  get(tx: Transaction, model: string, id: Id): Row | undefined;
  /** After a write of `ids` (none: every model, as a delete's rules may change others). */
  forget(tx: Transaction, model?: string, ids?: Id[]): void;
  /** Driver methods that read whole records of kept models in a transaction and remember them. */
  reads: Pick<Driver, 'list' | 'existingIds' | 'transaction'>;
}

export function readCache(inner: Driver, kept: (model: string) => boolean, infoOf: (model: string) => ModelInfo): ReadCache {
  const byTx = new WeakMap<Transaction, Map<string, Map<string, Row>>>();
  const rowsOf = (tx: Transaction, model: string) => {
    let models = byTx.get(tx);
    if (!models) byTx.set(tx, (models = new Map()));
    let rows = models.get(model);
    if (!rows) models.set(model, (rows = new Map()));
    return rows;
  };
  const keyOf = (id: unknown) => String(id).toLowerCase();
  const remember = (tx: Transaction, model: string, rows: Row[]) => {
    const known = rowsOf(tx, model);
    const key = infoOf(model).key;
    for (const row of rows) known.set(keyOf(row[key]), row);
  };
  /** A plain read of root records (no relations, tree or page) can read them whole instead. */
  const widens = (query: ListQuery, tx?: Transaction): tx is Transaction => tx !== undefined && kept(query.model) && query.relations.length === 0 && !query.tree && query.page === null && query.limit === null;
  return {
    get: (tx, model, id) => byTx.get(tx)?.get(model)?.get(keyOf(id)),
    forget(tx, model, ids) {
      const models = byTx.get(tx);
      if (!models) return;
      if (model === undefined) return void models.clear();
      const known = models.get(model);
      if (!known) return;
      if (ids === undefined) return void known.clear();
      for (const id of ids) known.delete(keyOf(id));
    },
    reads: {
      async list(query: ListQuery, tx?: Transaction): Promise<ListResult> {
        if (!widens(query, tx)) return inner.list(query, tx);
        const result = await inner.list({ ...query, select: null }, tx);
        remember(tx, query.model, result.rows);
        if (query.select === null) return result;
        // the fields asked for, as the narrower read answers them (always with the key: selectFields)
        const select = [...new Set([infoOf(query.model).key, ...query.select])];
        return { ...result, rows: result.rows.map((row) => Object.fromEntries(select.filter((f) => f in row).map((f) => [f, row[f]]))) };
      },
      async existingIds(model: string, ids: Id[], tx?: Transaction): Promise<Id[]> {
        if (!tx || !kept(model) || ids.length === 0) return inner.existingIds(model, ids, tx);
        const info = infoOf(model);
        const query: ListQuery = { model, filter: { kind: 'condition', field: info.key, operator: 'in', value: ids }, select: null, relations: [], order: [], page: null, limit: null, ...(info.softDelete ? { trashed: 'with' as const } : {}) };
        const { rows } = await inner.list(query, tx);
        remember(tx, model, rows);
        const found = new Set(rows.map((row) => keyOf(row[info.key])));
        return ids.filter((id) => found.has(keyOf(id)));
      },
      transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
        return inner.transaction((tx) => {
          // a retried attempt reads again: nothing of an aborted one is known
          byTx.delete(tx);
          return work(tx);
        });
      },
    },
  };
}
