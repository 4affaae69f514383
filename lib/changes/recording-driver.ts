import type { Driver, Id, Row, Transaction, UpdateGuard, UpdateItem, UpsertChunk } from '../driver';
import type { ListQuery } from '../query/ast';
import type { Catalog, ModelInfo } from '../resource/model-info';
import { byIdsQuery, inIdOrder } from '../service/reads/read-by-ids';
import { readDeleteEffects } from './delete-effects';
import type { ChangeKind } from './types';

/** A change recorded inside a transaction; `before` is the record a hard delete removed. */
export interface RecordedChange {
  model: string;
  key: Id;
  kind: ChangeKind;
  before?: Row;
}

/** Where recorded changes go once their transaction committed (the change feed). */
export interface ChangeSink {
  /** True when a stream was ever opened on the model (here or, with Redis, on any instance): only then is anything recorded. */
  isLive(model: string): boolean;
  model(name: string): ModelInfo;
  /** Every model, for the rules a delete applies on its own behalf (decision 76). */
  catalog(): Catalog;
  /** Called after the commit (never for a rolled-back transaction), with the raw driver to read the records; not awaited by the write, never rejects. */
  committed(changes: RecordedChange[], driver: Driver): Promise<void>;
}

/** The changes of one transaction attempt, one per record (a later kind wins, `created` stays `created`). */
class Pending {
  readonly changes = new Map<string, RecordedChange>();

  add(model: string, keys: Id[], kind: ChangeKind, before?: Map<string, Row>): void {
    for (const key of keys) {
      const at = `${model}\u0000${String(key)}`;
      const known = this.changes.get(at);
      if (known && kind === 'updated' && (known.kind === 'created' || known.kind === 'restored')) continue;
      this.changes.delete(at);
      this.changes.set(at, { model, key, kind, before: before?.get(String(key)) });
    }
  }
}

/**
 * The driver as the service sees it once the change feed is on: every write method records what
 * it changed in its transaction, and `transaction()` hands the changes to the feed after the
 * commit. One door: every write path (resource routes, relation routes, nested writes, anything
 * writing through `entry.driver` in `entry.driver.transaction`) emits, and a rollback emits nothing.
 */
export function recordingDriver(inner: Driver, sink: ChangeSink): Driver {
  const open = new WeakMap<Transaction, Pending>();
  const keyOf = (model: string) => sink.model(model).key;

  /** Records into the transaction's changes, or (a write outside any transaction) publishes at once. */
  const record = async (tx: Transaction | undefined, model: string, keys: Id[], kind: ChangeKind, before?: Map<string, Row>) => {
    if (keys.length === 0 || !sink.isLive(model)) return;
    const pending = tx ? open.get(tx) : undefined;
    if (pending) pending.add(model, keys, kind, before);
    else {
      const alone = new Pending();
      alone.add(model, keys, kind, before);
      void sink.committed([...alone.changes.values()], inner);
    }
  };

  const wrapped: Partial<Driver> = {
    async transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
      let pending: Pending | null = null;
      // a retried attempt starts over: only the changes of the attempt that committed count
      const result = await inner.transaction(async (tx) => {
        pending = new Pending();
        open.set(tx, pending);
        return work(tx);
      });
      const done = pending as Pending | null;
      // the answer does not wait for the feed (issue 52): the sink orders and publishes on its own
      if (done && done.changes.size > 0) void sink.committed([...done.changes.values()], inner);
      return result;
    },
    async insert(model: string, records: Record<string, unknown>[], tx: Transaction): Promise<Id[]> {
      const ids = await inner.insert(model, records, tx);
      await record(tx, model, ids, 'created');
      return ids;
    },
    async update(model: string, items: UpdateItem[], tx: Transaction, guard?: UpdateGuard): Promise<number> {
      const count = await inner.update(model, items, tx, guard);
      const softDelete = sink.model(model).softDelete;
      const kind: ChangeKind = guard && guard.field === softDelete ? (guard.isNull ? 'deleted' : 'restored') : 'updated';
      await record(tx, model, items.map((item) => item.id), kind);
      return count;
    },
    async delete(model: string, ids: Id[], tx: Transaction): Promise<Id[]> {
      // the record as it was: a hard delete leaves nothing to read after the commit
      let before: Map<string, Row> | undefined;
      if (sink.isLive(model) && ids.length > 0) {
        const { rows } = await inner.list(byIdsQuery(sink.model(model), ids, { select: null, relations: [] }), tx);
        before = new Map(rows.map((row) => [String(row[keyOf(model)]), row]));
      }
      // what its set-null and cascade rules will change, read while it is still there (decision 76)
      const effects = await readDeleteEffects(inner, sink.catalog(), (m) => sink.isLive(m), model, ids, tx);
      const deleted = await inner.delete(model, ids, tx);
      await record(tx, model, deleted, 'deleted', before);
      if (effects) {
        const { nulled, removed } = effects(deleted);
        for (const [other, keys] of nulled) await record(tx, other, keys, 'updated');
        for (const [other, rows] of removed) {
          const key = keyOf(other);
          await record(tx, other, rows.map((row) => row[key] as Id), 'deleted', new Map(rows.map((row) => [String(row[key]), row])));
        }
      }
      return deleted;
    },
  };
  if (inner.insertRows) {
    const insertRows = inner.insertRows.bind(inner);
    wrapped.insertRows = (model: string, records: Record<string, unknown>[], read: ListQuery) => {
      const run = insertRows(model, records, read);
      return async (tx: Transaction) => {
        const rows = await run(tx);
        await record(tx, model, rows.map((row) => row[keyOf(model)] as Id), 'created');
        return rows;
      };
    };
  }
  if (inner.updateRows) {
    const updateRows = inner.updateRows.bind(inner);
    wrapped.updateRows = async (model: string, items: UpdateItem[], tx: Transaction, read: ListQuery, allOrNone?: boolean) => {
      const rows = await updateRows(model, items, tx, read, allOrNone);
      // the request's order: UPDATE ... RETURNING answers in the plan's (PostgreSQL 15 reversed a batch)
      await record(tx, model, inIdOrder(rows, items.map((item) => item.id), keyOf(model)).map((row) => row[keyOf(model)] as Id), 'updated');
      return rows;
    };
  }
  if (inner.upsert) {
    const upsert = inner.upsert.bind(inner);
    // decision 79: created and updated records emit as the same create or update would; unchanged ones nothing
    wrapped.upsert = async (model: string, chunk: UpsertChunk, tx: Transaction) => {
      const outcome = await upsert(model, chunk, tx);
      const ids = (kind: ChangeKind) => outcome.created.flatMap((action, i) => (action === kind && outcome.createdIds[i] !== null ? [outcome.createdIds[i] as Id] : []));
      await record(tx, model, ids('created'), 'created');
      await record(tx, model, [...chunk.matchedIds.filter((_, i) => outcome.matched[i] === 'updated'), ...ids('updated')], 'updated');
      return outcome;
    };
  }
  return forwarding(inner, wrapped);
}

/**
 * The inner driver with `overrides` in place of some methods: its other methods bound to it once,
 * its other properties read from it (and written to it) on access. A plain object rather than a Proxy, so a read
 * calls the driver's own method directly and never passes through this folder.
 */
export function forwarding(inner: Driver, overrides: Partial<Driver>): Driver {
  const out: Record<PropertyKey, unknown> = {};
  for (let level: object | null = inner; level && level !== Object.prototype; level = Object.getPrototypeOf(level) as object | null) {
    for (const key of Reflect.ownKeys(level)) {
      if (key === 'constructor' || Object.prototype.hasOwnProperty.call(out, key)) continue;
      if (Object.prototype.hasOwnProperty.call(overrides, key)) {
        out[key] = overrides[key as keyof Driver];
        continue;
      }
      const own = Object.getOwnPropertyDescriptor(level, key);
      if (own && !own.get && typeof own.value === 'function') out[key] = (own.value as (...args: unknown[]) => unknown).bind(inner);
      else Object.defineProperty(out, key, { get: () => Reflect.get(inner, key, inner), set: (value: unknown) => Reflect.set(inner, key, value, inner), enumerable: true, configurable: true });
    }
  }
  for (const [key, value] of Object.entries(overrides)) if (!Object.prototype.hasOwnProperty.call(out, key)) out[key] = value;
  return out as unknown as Driver;
}
