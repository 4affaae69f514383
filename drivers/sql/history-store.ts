import type { HistoryCapability, HistoryEntry, HistoryEntryInput, Id, Row } from '../../lib/driver';
import type { ListQuery } from '../../lib/query/ast';
import type { ModelInfo } from '../../lib/resource/model-info';
import { isShortfall } from './all-or-none';
import { compileHistoryUpdate } from './history-update';
import { columnOf, compileUpdate } from './compile-writes';
import type { StorageInfo } from './model-map';
import { quoteIdent, type SqlStatement } from './sql-builder';

/**
 * Decision 83 on PostgreSQL: a record's history in `grr_history_<table>` (created at start), read
 * newest first through the index on (record_id, version DESC); no key of its own (an append-only
 * log: one index to maintain per entry). `append` is ONE statement: the
 * entries as one JSON document, each version the record's own counter where none is given
 * (computed in the statement), and the retention's prune as a data-modifying CTE of the same
 * statement.
 */
export function historyTableOf(info: StorageInfo): string {
  const name = quoteIdent(`grr_history_${info.table}`);
  return info.schema ? `${quoteIdent(info.schema)}.${name}` : name;
}

type Run = (statement: SqlStatement, tx?: unknown) => Promise<Record<string, unknown>[]>;

/** What the store needs of the SQL driver. */
export interface HistoryHost {
  table(model: string): StorageInfo;
  model(model: string): ModelInfo;
  run: Run;
  /** A statement that writes outside any request transaction (the tables' DDL): never a read lease (READ ONLY behind a pooler, a replica). */
  write: (statement: SqlStatement) => Promise<Record<string, unknown>[]>;
  /** The columns a read selects (its select narrowed to the caller's view), as the driver's updateRows reads them. */
  fields(model: string, read: ListQuery): string[];
  shape(model: string, fields: string[], raw: Record<string, unknown>): Row;
  /** The server's `server_version_num`, as the driver learned it at start (server-facts.ts). */
  version(): Promise<number>;
  /** The driver's guarded DELETE, `whole` columns of each removed row answered as `grr_c<i>`. */
  delete(model: string, ids: Id[], tx: unknown, whole: string[]): Promise<{ ids: Id[]; raw: Record<string, unknown>[] }>;
}

const COLUMNS = '"record_id", "version", "op", "at", "actor", "request_id", "changes"';

export function compileAppend(table: string, entries: HistoryEntryInput[], retain: number | null): SqlStatement {
  const json = JSON.stringify(entries.map((e) => ({ record_id: String(e.recordId), version: e.version, op: e.op, at: e.at.toISOString(), actor: e.actor, request_id: e.requestId, changes: e.changes })));
  const source = `jsonb_to_recordset($1::jsonb) AS "e"("record_id" text, "version" integer, "op" text, "at" timestamptz, "actor" jsonb, "request_id" text, "changes" jsonb)`;
  const version = `COALESCE("e"."version", COALESCE((SELECT max("h"."version") FROM ${table} AS "h" WHERE "h"."record_id" = "e"."record_id"), 0) + 1)`;
  const prune = retain === null ? '' : `, "p" AS (DELETE FROM ${table} AS "h" USING "n" WHERE "h"."record_id" = "n"."record_id" AND "h"."version" <= "n"."version" - $2::integer RETURNING 1)`;
  return {
    sql:
      `WITH "n" AS (SELECT "e"."record_id", ${version} AS "version", "e"."op", "e"."at", "e"."actor", "e"."request_id", "e"."changes" FROM ${source}), ` +
      `"i" AS (INSERT INTO ${table} (${COLUMNS}) SELECT ${COLUMNS} FROM "n" RETURNING 1)${prune} SELECT (SELECT count(*) FROM "i") AS "appended"`,
    bind: retain === null ? [json] : [json, retain],
  };
}

function entryOf(raw: Record<string, unknown>): HistoryEntry {
  return {
    recordId: raw.record_id as Id,
    version: Number(raw.version),
    op: raw.op as HistoryEntry['op'],
    at: new Date(String(raw.at)),
    actor: raw.actor as HistoryEntry['actor'],
    requestId: (raw.request_id as string | null) ?? null,
    changes: (raw.changes ?? {}) as HistoryEntry['changes'],
  };
}

/** The store, and whether the server answers RETURNING's `old` (PostgreSQL 18; known once a history table was made). */
export type SqlHistoryStore = HistoryCapability & { returnsOld(): boolean };

export function sqlHistoryStore(host: HistoryHost): SqlHistoryStore {
  const tableOf = (model: string) => host.table(model);
  const run = host.run;
  const ready = new Map<string, Promise<void>>();
  /** Whether the server is PostgreSQL 18 or later (`RETURNING old.*`), known by the first table's creation. */
  let returnsOld = false;
  return {
    returnsOld: () => returnsOld,
    async update(model, items, tx, guard, read, all, append) {
      if (items.length === 0) return { rows: [] };
      const info = host.model(model);
      const storage = host.table(model);
      const fields = read ? host.fields(model, read) : [info.key];
      // only the fields sent can change: only their columns are compared and travel as JSON
      const given = new Set([...items.flatMap((i) => Object.keys(i.changes)), ...(guard ? [guard.field] : [])]);
      const sent = append.fields.filter((f) => given.has(f));
      const columns = sent.map((f) => columnOf(storage, f));
      await this.ensure(model);
      // PostgreSQL 18 answers the row as it was in RETURNING (`old`); older servers join it
      const update = compileUpdate(storage, info.key, items, guard, fields, info.versionField, returnsOld ? { old: columns } : { joined: columns });
      const statement = compileHistoryUpdate(update, storage, info, historyTableOf(storage), append, all ? items.length : null, sent, fields);
      // a shortfall of an all-or-none update: nothing written
      const raw = await run(statement, tx).catch((error: unknown) => (all && isShortfall(error) ? [] : Promise.reject(error)));
      return { rows: raw.map((r) => host.shape(model, fields, r)) };
    },
    async delete(model, ids, tx) {
      const storage = host.table(model);
      const fields = Object.keys(host.model(model).fields).filter((f) => f in storage.columns);
      const removed = await host.delete(model, ids, tx, fields.map((f) => columnOf(storage, f)));
      // every field of each removed row, typed as a read types it (the history's "deleted" entry)
      const rows = removed.raw.filter((raw) => raw.held === null || raw.held === undefined).map((raw) => host.shape(model, fields, Object.fromEntries(fields.map((f, i) => [f, raw[`grr_c${i}`]]))));
      return { ids: removed.ids, rows };
    },
    ensure(model) {
      const info = tableOf(model);
      const table = historyTableOf(info);
      let done = ready.get(table);
      if (!done) {
        const index = quoteIdent(`grr_history_${info.table}_record`);
        done = (async () => {
          returnsOld = (await host.version()) >= 180000;
          await host.write({ sql: `CREATE TABLE IF NOT EXISTS ${table} ("record_id" text NOT NULL, "version" integer NOT NULL, "op" text NOT NULL, "at" timestamptz NOT NULL, "actor" jsonb NOT NULL, "request_id" text, "changes" jsonb NOT NULL)`, bind: [] }).catch(harmless);
          await host.write({ sql: `CREATE INDEX IF NOT EXISTS ${index} ON ${table} ("record_id", "version" DESC)`, bind: [] }).catch(harmless);
        })();
        ready.set(table, done);
        done.catch(() => ready.delete(table));
      }
      return done;
    },
    async append(model, entries, retain, tx) {
      if (entries.length === 0) return;
      await run(compileAppend(historyTableOf(tableOf(model)), entries, retain), tx);
    },
    async read(model, recordId, offset, limit) {
      const table = historyTableOf(tableOf(model));
      const [row] = await run({
        sql:
          `SELECT (SELECT count(*) FROM ${table} WHERE "record_id" = $1) AS "total", COALESCE((SELECT jsonb_agg(to_jsonb("x") ORDER BY "x"."version" DESC) FROM ` +
          `(SELECT * FROM ${table} WHERE "record_id" = $1 ORDER BY "version" DESC OFFSET $2 LIMIT $3) AS "x"), '[]'::jsonb) AS "entries"`,
        bind: [String(recordId), offset, limit],
      });
      return { total: Number(row?.total ?? 0), entries: ((row?.entries ?? []) as Record<string, unknown>[]).map(entryOf) };
    },
    async entry(model, recordId, version) {
      const table = historyTableOf(tableOf(model));
      const [row] = await run({ sql: `SELECT * FROM ${table} WHERE "record_id" = $1 AND "version" = $2 ORDER BY "at" DESC LIMIT 1`, bind: [String(recordId), version] });
      return row ? entryOf(row) : null;
    },
  };
}

/** Two instances creating the table at once: the loser's unique violation on the catalog is harmless. */
function harmless(error: unknown): void {
  const code = (error as { code?: string; parent?: { code?: string } }).code ?? (error as { parent?: { code?: string } }).parent?.code;
  if (code === '23505' || code === '42P07') return;
  throw error;
}
