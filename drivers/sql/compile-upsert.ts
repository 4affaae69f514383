import { columnOf, differsSql, rowObject, tableSql, typedRecordset, type InsertDefaults } from './compile-writes';
import type { Id, UpsertAction, UpsertChunk, UpsertOutcome } from '../../lib/driver';
import type { ModelInfo } from '../../lib/resource/model-info';
import type { StorageInfo } from './model-map';
import { PREPARED_IN_MAX } from './prepare-policy';
import { quoteIdent, quoteLiteral, type SqlStatement } from './sql-builder';

/**
 * Decision 79 on PostgreSQL: ONE statement per chunk. Records that matched an existing one when
 * the request was checked are an UPDATE of the fields they give (a data-modifying CTE, written
 * only where a given value differs: decision 67); the others are one
 * `INSERT ... ON CONFLICT (<match keys>) DO UPDATE ... WHERE <a value differs>`, so a record a
 * concurrent request created meanwhile is updated (or left unchanged), never a 409 or a second
 * record; that update, too, sets only the fields the record gives. Values travel as JSON
 * parameters, as the other writes' (compile-writes.ts). Rows answer the key, the match keys, the
 * read's fields and `grr_action` (created, updated); a record not answered was unchanged.
 */
export interface CompiledUpsert extends SqlStatement {
  /** The action column of the answered rows. */
  action: string;
}

const ACTION = 'grr_action';
/** The row as it was before the UPDATE (history, decision 83): a JSON object of the columns history compares. */
const BEFORE = 'grr_before';
/** The key of a created row's JSON listing the columns it leaves to model defaults (not a column: json_populate_recordset ignores it). */
const SKIP = 'grr_skip';
const STAMP_NOW = "date_trunc('milliseconds', now())";

interface Parts {
  info: StorageInfo;
  table: string;
  key: string;
  version: string | null;
  /** Never written from a record: the key, the timestamps, the version, the match keys. */
  managed: Set<string>;
  returned: string;
  col(field: string): string;
  param(value: unknown): string;
  /** History (decision 83): the matched rows' columns as they were, answered as BEFORE (null: not asked). */
  before: string[] | null;
  /** The server has RETURNING's `old` (PostgreSQL 18); else the UPDATE joins the row's pre-statement version. */
  returnsOld: boolean;
}

const has = (record: Record<string, unknown>, field: string) => Object.prototype.hasOwnProperty.call(record, field);
/** A literal object (V8's fast properties: half the time of a prototype-less one to build and stringify) unless a column is named __proto__. */
const literalRow = (columns: string[]): (() => Record<string, unknown>) => (columns.includes('__proto__') ? () => Object.create(null) as Record<string, unknown> : () => ({}));

export function compileUpsert(info: StorageInfo, model: Pick<ModelInfo, 'key' | 'versionField'>, chunk: UpsertChunk, defaults: InsertDefaults, fields: string[] = [], returnsOld = false): CompiledUpsert {
  const { key } = model;
  const version = model.versionField ?? null;
  const col = (f: string) => quoteIdent(columnOf(info, f));
  const bind: unknown[] = [];
  const parts: Parts = {
    info, table: tableSql(info), key, version, col,
    managed: new Set([key, info.createdAt, info.updatedAt, version, ...chunk.keys].filter((f): f is string => !!f)),
    // the key, the match keys and the read's fields: the written rows without reading them back
    returned: [...new Set([key, ...chunk.keys, ...fields])].map((k) => `"t".${col(k)} AS ${quoteIdent(k)}`).join(', '),
    param: (value) => `$${bind.push(value)}`,
    before: chunk.history ? beforeFields(info, model, chunk).map((f) => columnOf(info, f)) : null,
    returnsOld,
  };
  // every part answers the same columns (UNION ALL): BEFORE only from the UPDATE
  const noBefore = parts.before ? `, NULL::jsonb AS ${quoteIdent(BEFORE)}` : '';
  const ctes = [...(chunk.matched.length ? [matchedUpdate(parts, chunk)] : []), ...(chunk.created.length ? createdInsert(parts, chunk, defaults, noBefore) : [])];
  const answered = [chunk.matched.length ? 'SELECT * FROM "u"' : '', chunk.created.length ? 'SELECT * FROM "i"' : ''].filter(Boolean);
  // the records found unchanged, read by the same statement (its snapshot: as they were before it)
  const unchanged = fields.length ? (chunk.unchangedIds ?? []) : [];
  if (unchanged.length) answered.push(`SELECT ${parts.returned}, 'unchanged' AS ${quoteIdent(ACTION)}${noBefore} FROM ${parts.table} AS "t" WHERE "t".${col(key)} = ANY(${parts.param(unchanged)})`);
  return {
    sql: `WITH ${ctes.join(', ')} ${answered.join(' UNION ALL ')}`,
    bind,
    action: ACTION,
    // one JSON document per part whatever the records, so one plan fits every chunk of the same
    // fields; not with a long list of unchanged ids (prepare-policy.ts: a generic plan cannot hash it)
    prepare: unchanged.length <= PREPARED_IN_MAX,
  };
}

/**
 * The matched records: an UPDATE joined by key. When every record gives the same fields (a bulk
 * request's usual case) they are one typed recordset and plain SETs; otherwise a field some do not
 * give is a CASE on its presence in each record's JSON (as compile-writes.ts's compileUpdate).
 */
function matchedUpdate(p: Parts, chunk: UpsertChunk): string {
  const { info, col, table } = p;
  const given = new Set<string>();
  for (const record of chunk.matched) for (const f of Object.keys(record)) given.add(f);
  const updated = [...given].filter((f) => f in info.columns && !p.managed.has(f));
  const uniform = chunk.matched.every((r) => updated.every((f) => has(r, f)));
  const value = (f: string) => (uniform ? `"m".${col(f)}` : `("m"."r").${col(f)}`);
  const sent = (f: string) => (uniform ? '' : `jsonb_exists("m"."j", ${quoteLiteral(columnOf(info, f))}) AND `);
  const differs = updated.map((f) => `(${sent(f)}${differsSql(info, f, value(f), `"t".${col(f)}`)})`);
  const sets = updated.map((f) => `${col(f)} = ${uniform ? value(f) : `CASE WHEN jsonb_exists("m"."j", ${quoteLiteral(columnOf(info, f))}) THEN ${value(f)} ELSE "t".${col(f)} END`}`);
  if (info.updatedAt) sets.push(`${col(info.updatedAt)} = ${STAMP_NOW}`);
  if (p.version) sets.push(`${col(p.version)} = "t".${col(p.version)} + 1`);
  if (sets.length === 0) sets.push(`${col(p.key)} = "t".${col(p.key)}`);

  const columns = updated.map((f) => columnOf(info, f));
  const keyColumn = columnOf(info, p.key);
  const make = literalRow([...columns, keyColumn]);
  const rows = chunk.matched.map((record, i) => {
    const out = make();
    for (let c = 0; c < updated.length; c += 1) if (uniform || has(record, updated[c])) out[columns[c]] = record[updated[c]] ?? null;
    out[keyColumn] = chunk.matchedIds[i];
    return out;
  });
  const json = p.param(JSON.stringify(rows));
  // with every column's type known (column-types.ts), a typed column list of only these columns
  const typed = uniform ? typedRecordset(info, [keyColumn, ...columns], json, 'm') : null;
  const source =
    typed ??
    (uniform
      ? `json_populate_recordset(NULL::${table}, ${json}::json) AS "m"`
      : `(SELECT "e"."j", jsonb_populate_record(NULL::${table}, "e"."j") AS "r" FROM jsonb_array_elements(${json}::jsonb) AS "e"("j")) AS "m"`);
  // history: the written rows as they were, from RETURNING's `old` (PostgreSQL 18) or the statement's snapshot joined by key
  const old = p.before && !p.returnsOld ? ` JOIN ${table} AS "o" ON "o".${col(p.key)} = ${value(p.key)}` : '';
  const before = p.before ? `, ${rowObject(p.returnsOld ? 'old' : 'o', p.before)} AS ${quoteIdent(BEFORE)}` : '';
  return (
    `"u" AS (UPDATE ${table} AS "t" SET ${sets.join(', ')} FROM ${source}${old} WHERE "t".${col(p.key)} = ${value(p.key)} AND (${differs.length ? differs.join(' OR ') : 'FALSE'}) ` +
    `RETURNING ${p.returned}, 'updated' AS ${quoteIdent(ACTION)}${before})`
  );
}

/**
 * The new records: one INSERT of every field any of them gives (model defaults for the others).
 * Its DO UPDATE (a record created concurrently) sets only what each record gives: a column every
 * record leaves to its default is not set at all; one only some leave is kept for those, found
 * through "k" (each row's SKIP list by its match values, built only when a conflict asks).
 */
function createdInsert(p: Parts, chunk: UpsertChunk, defaults: InsertDefaults, noBefore: string): string[] {
  const { info, col, table, key } = p;
  const { keys, created } = chunk;
  const seen = new Set<string>();
  for (const record of created) for (const f of Object.keys(record)) seen.add(f);
  for (const f of Object.keys(defaults)) seen.add(f);
  const inserted = [...seen].filter((f) => f in info.columns && f !== key && f !== info.createdAt && f !== info.updatedAt);
  const stamps = [info.createdAt, info.updatedAt].filter((f): f is string => !!f);
  const targets = [...inserted, ...stamps].map(col);
  const values = [...inserted.map((f) => `"v".${col(f)}`), ...stamps.map(() => STAMP_NOW)];

  const writable = inserted.filter((f) => !p.managed.has(f));
  const givenBy = new Map(writable.map((f) => [f, created.reduce((n, r) => (r[f] !== undefined ? n + 1 : n), 0)]));
  const overwritten = writable.filter((f) => givenBy.get(f)! > 0);
  const sometimes = new Set(overwritten.filter((f) => givenBy.get(f)! < created.length));
  const tuple = (row: string) => `jsonb_build_array(${keys.map((k) => `${row}.${col(k)}`).join(', ')})::text`;
  const skipped = (f: string) => `jsonb_exists((SELECT "k"."o" FROM "k") -> ${tuple('EXCLUDED')}, ${quoteLiteral(columnOf(info, f))})`;
  const onConflict = overwritten.map((f) => `${col(f)} = ${sometimes.has(f) ? `CASE WHEN ${skipped(f)} THEN "t".${col(f)} ELSE EXCLUDED.${col(f)} END` : `EXCLUDED.${col(f)}`}`);
  if (info.updatedAt) onConflict.push(`${col(info.updatedAt)} = ${STAMP_NOW}`);
  if (p.version) onConflict.push(`${col(p.version)} = "t".${col(p.version)} + 1`);
  const conflictDiffers = overwritten.map((f) => {
    const differs = differsSql(info, f, `EXCLUDED.${col(f)}`, `"t".${col(f)}`);
    return sometimes.has(f) ? `(${differs} AND ${skipped(f)} IS NOT TRUE)` : differs;
  });

  const made = inserted.map((f) => defaults[f]);
  const columns = inserted.map((f) => columnOf(info, f));
  const skippable = [...sometimes];
  const make = literalRow(columns);
  const rows = created.map((record) => {
    const out = make();
    for (let i = 0; i < inserted.length; i += 1) {
      const value = record[inserted[i]];
      out[columns[i]] = value !== undefined ? value : made[i] ? made[i]() : null;
    }
    if (skippable.length > 0) {
      const skips = skippable.filter((f) => record[f] === undefined);
      if (skips.length > 0) out[SKIP] = skips.map((f) => columnOf(info, f));
    }
    return out;
  });
  const json = p.param(JSON.stringify(rows));
  // read as json, as the INSERT reads it (one parameter type for both)
  const skipsByTuple =
    `"k" AS MATERIALIZED (SELECT jsonb_object_agg(${tuple('"v"')}, ("e"."j" -> ${quoteLiteral(SKIP)})::jsonb) AS "o" ` +
    `FROM json_array_elements(${json}::json) AS "e"("j") CROSS JOIN LATERAL json_populate_record(NULL::${table}, "e"."j") AS "v" WHERE "e"."j" -> ${quoteLiteral(SKIP)} IS NOT NULL)`;
  const insert =
    `"i" AS (INSERT INTO ${table} AS "t" (${targets.join(', ')}) SELECT ${values.join(', ')} ` +
    `FROM json_populate_recordset(NULL::${table}, ${json}::json) WITH ORDINALITY AS "v" ORDER BY "v"."ordinality" ` +
    `ON CONFLICT (${keys.map(col).join(', ')}) DO ` +
    (overwritten.length ? `UPDATE SET ${onConflict.join(', ')} WHERE ${conflictDiffers.join(' OR ')} ` : 'NOTHING ') +
    `RETURNING ${p.returned}, CASE WHEN "t"."xmax" = 0 THEN 'created' ELSE 'updated' END AS ${quoteIdent(ACTION)}${noBefore})`;
  return sometimes.size > 0 ? [skipsByTuple, insert] : [insert];
}

/** Each record's action from the rows the statement answered (by id, or by match keys for new ones; not answered: unchanged). */
export function upsertOutcome(chunk: UpsertChunk, rows: Record<string, unknown>[], key: string, action: string, shape?: (raw: Record<string, unknown>) => Record<string, unknown>, before?: (old: Record<string, unknown>) => Record<string, unknown>): UpsertOutcome {
  const { keys } = chunk;
  const keyOf = (record: Record<string, unknown>) => (keys.length === 1 ? String(record[keys[0]]) : JSON.stringify(keys.map((k) => String(record[k]))));
  const byKeys = new Map<string, Record<string, unknown>>();
  const byId = new Map<string, Record<string, unknown>>();
  const read = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    if (row[action] === 'unchanged') {
      read.set(String(row[key]), row);
      continue;
    }
    byKeys.set(keyOf(row), row);
    byId.set(String(row[key]), row);
  }
  const created = chunk.created.map((record) => byKeys.get(keyOf(record)));
  const matched = chunk.matchedIds.map((id) => byId.get(String(id)));
  const shaped = (row: Record<string, unknown> | undefined) => (row && shape ? shape(row) : null);
  return {
    matched: matched.map((row) => (row?.[action] as UpsertAction | undefined) ?? 'unchanged'),
    created: created.map((row) => (row?.[action] as UpsertAction | undefined) ?? 'unchanged'),
    createdIds: created.map((row): Id | null => (row ? Number(row[key]) : null)),
    ...(shape ? { rows: { matched: matched.map(shaped), created: created.map(shaped), unchanged: (chunk.unchangedIds ?? []).map((id) => shaped(read.get(String(id)))) } } : {}),
    ...(before ? { before: matched.map((row) => (row?.[BEFORE] ? before(row[BEFORE] as Record<string, unknown>) : null)) } : {}),
  };
}

/** Compiles, runs (`run`: on the caller's transaction) and reads the outcome of one chunk; with `fields`, the written rows shaped by `shape`. */
export async function runUpsert(info: StorageInfo, model: Pick<ModelInfo, 'key' | 'versionField'>, chunk: UpsertChunk, defaults: InsertDefaults, run: (statement: SqlStatement) => Promise<Record<string, unknown>[]>, fields: string[], shape: (fields: string[], raw: Record<string, unknown>) => Record<string, unknown>, returnsOld = false): Promise<UpsertOutcome> {
  const statement = compileUpsert(info, model, chunk, defaults, fields, returnsOld);
  // history: the row as it was, its columns' JSON typed as a read types them (by field)
  const written = chunk.history ? beforeFields(info, model, chunk) : [];
  const before = chunk.history ? (old: Record<string, unknown>) => shape(written, Object.fromEntries(written.map((f) => [f, old[columnOf(info, f)]]))) : undefined;
  return upsertOutcome(chunk, await run(statement), model.key, statement.action, chunk.read ? (raw) => shape(fields, raw) : undefined, before);
}

/** The fields of a matched row as it was that history compares: those the chunk writes (match keys included) and the version. */
function beforeFields(info: StorageInfo, model: Pick<ModelInfo, 'versionField'>, chunk: UpsertChunk): string[] {
  return [...new Set([...chunk.matched.flatMap((r) => Object.keys(r)), ...(model.versionField ? [model.versionField] : [])])].filter((f) => f in info.columns);
}
