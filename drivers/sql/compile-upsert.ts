import { columnOf, tableSql, type InsertDefaults } from './compile-writes';
import type { Id, UpsertAction, UpsertChunk, UpsertOutcome } from '../../lib/driver';
import type { ModelInfo } from '../../lib/resource/model-info';
import type { StorageInfo } from './model-map';
import { quoteIdent, quoteLiteral, type SqlStatement } from './sql-builder';

/**
 * Decision 79 on PostgreSQL: ONE statement per chunk. Records that matched an existing one when
 * the request was checked are an UPDATE of the fields they give (a data-modifying CTE, written
 * only where a given value differs: decision 67); the others are one
 * `INSERT ... ON CONFLICT (<match keys>) DO UPDATE ... WHERE <a value differs>`, so a record a
 * concurrent request created meanwhile is updated (or left unchanged), never a 409 or a second
 * record. Values travel as two JSON parameters, as the other writes' (compile-writes.ts).
 * Rows answer the key, the match keys and `grr_action` (created, updated); a record not answered was unchanged.
 */
export interface CompiledUpsert extends SqlStatement {
  /** The action column of the answered rows. */
  action: string;
}

const ACTION = 'grr_action';
/** The key of a created row's JSON listing the columns it does not give (not a column: json_populate_recordset ignores it). */
const SKIP = 'grr_skip';

export function compileUpsert(info: StorageInfo, model: Pick<ModelInfo, 'key' | 'versionField'>, chunk: UpsertChunk, defaults: InsertDefaults, fields: string[] = []): CompiledUpsert {
  const { key } = model;
  const version = model.versionField ?? null;
  const { keys, matched, created } = chunk;
  const table = tableSql(info);
  const col = (f: string) => quoteIdent(columnOf(info, f));
  const managed = new Set([key, info.createdAt, info.updatedAt, version, ...keys].filter((f): f is string => !!f));
  const stampNow = "date_trunc('milliseconds', now())";
  // the key, the match keys and the read's fields: the written rows without reading them back
  const returned = [...new Set([key, ...keys, ...fields])].map((k) => `"t".${col(k)} AS ${quoteIdent(k)}`);

  // matched records: the fields each gives (CASE on the key's presence in its JSON)
  const updated = [...new Set(matched.flatMap((r) => Object.keys(r)))].filter((f) => f in info.columns && !managed.has(f));
  const given = (f: string) => `jsonb_exists("m"."j", ${quoteLiteral(columnOf(info, f))})`;
  const differs = updated.map((f) => `(${given(f)} AND to_jsonb(("m"."r").${col(f)}) IS DISTINCT FROM to_jsonb("t".${col(f)}))`);
  const sets = updated.map((f) => `${col(f)} = CASE WHEN ${given(f)} THEN ("m"."r").${col(f)} ELSE "t".${col(f)} END`);
  if (info.updatedAt) sets.push(`${col(info.updatedAt)} = ${stampNow}`);
  if (version) sets.push(`${col(version)} = "t".${col(version)} + 1`);
  if (sets.length === 0) sets.push(`${col(key)} = "t".${col(key)}`);
  const joined = `"t".${col(key)} = ("m"."r").${col(key)}`;
  const update =
    `"m" AS MATERIALIZED (SELECT "e"."j", jsonb_populate_record(NULL::${table}, "e"."j") AS "r" FROM jsonb_array_elements($1::jsonb) AS "e"("j")), ` +
    `"u" AS (UPDATE ${table} AS "t" SET ${sets.join(', ')} FROM "m" WHERE ${joined} AND (${differs.length ? differs.join(' OR ') : 'FALSE'}) ` +
    `RETURNING ${returned.join(', ')}, 'updated' AS ${quoteIdent(ACTION)})`;

  // new records: one INSERT of every field any of them gives (model defaults for the others)
  const seen = new Set<string>();
  for (const record of created) for (const f of Object.keys(record)) seen.add(f);
  for (const f of Object.keys(defaults)) seen.add(f);
  const inserted = [...seen].filter((f) => f in info.columns && f !== key && f !== info.createdAt && f !== info.updatedAt);
  const stamps = [info.createdAt, info.updatedAt].filter((f): f is string => !!f);
  const targets = [...inserted, ...stamps].map(col);
  const values = [...inserted.map((f) => `"v".${col(f)}`), ...stamps.map(() => stampNow)];
  const overwritten = inserted.filter((f) => !managed.has(f));
  // decision 79: a record created concurrently is updated with the fields this record GIVES only;
  // the others carry insert defaults, so each row lists the columns it skips (SKIP, read back
  // through its match values only when a conflict runs the DO UPDATE) and those keep their value
  const skips = created.map((record) => overwritten.filter((f) => record[f] === undefined).map((f) => columnOf(info, f)));
  const skipping = skips.some((s) => s.length > 0);
  const tuple = (row: string) => `jsonb_build_array(${keys.map((k) => `${row}.${col(k)}`).join(', ')})::text`;
  const skipped = (f: string) => `jsonb_exists((SELECT "k"."o" FROM "k") -> ${tuple('EXCLUDED')}, ${quoteLiteral(columnOf(info, f))})`;
  const onConflict = overwritten.map((f) => `${col(f)} = ${skipping ? `CASE WHEN ${skipped(f)} THEN "t".${col(f)} ELSE EXCLUDED.${col(f)} END` : `EXCLUDED.${col(f)}`}`);
  if (info.updatedAt) onConflict.push(`${col(info.updatedAt)} = ${stampNow}`);
  if (version) onConflict.push(`${col(version)} = "t".${col(version)} + 1`);
  const conflictDiffers = overwritten.map((f) => {
    const differs = `to_jsonb(EXCLUDED.${col(f)}) IS DISTINCT FROM to_jsonb("t".${col(f)})`;
    return skipping ? `(${differs} AND ${skipped(f)} IS NOT TRUE)` : differs;
  });
  // the skipped columns by match values (typed as the index compares them), built only when a conflict asks
  const skipsByTuple = skipping
    ? `"k" AS MATERIALIZED (SELECT jsonb_object_agg(${tuple('"v"')}, "e"."j" -> ${quoteLiteral(SKIP)}) AS "o" ` +
      `FROM jsonb_array_elements($2::jsonb) AS "e"("j") CROSS JOIN LATERAL jsonb_populate_record(NULL::${table}, "e"."j") AS "v" WHERE jsonb_exists("e"."j", ${quoteLiteral(SKIP)})), `
    : '';
  const insert =
    `"i" AS (INSERT INTO ${table} AS "t" (${targets.join(', ')}) SELECT ${values.join(', ')} ` +
    `FROM json_populate_recordset(NULL::${table}, $2::json) WITH ORDINALITY AS "v" ORDER BY "v"."ordinality" ` +
    `ON CONFLICT (${keys.map(col).join(', ')}) DO ` +
    (onConflict.length && conflictDiffers.length ? `UPDATE SET ${onConflict.join(', ')} WHERE ${conflictDiffers.join(' OR ')} ` : 'NOTHING ') +
    `RETURNING ${returned.join(', ')}, CASE WHEN "t"."xmax" = 0 THEN 'created' ELSE 'updated' END AS ${quoteIdent(ACTION)})`;

  const made = inserted.map((f) => defaults[f]);
  const columns = inserted.map((f) => columnOf(info, f));
  const rows = created.map((record, r) => {
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    inserted.forEach((f, i) => {
      const value = record[f];
      out[columns[i]] = value !== undefined ? value : made[i] ? made[i]() : null;
    });
    if (skips[r].length > 0) out[SKIP] = skips[r];
    return out;
  });
  const partial = matched.map((record, i) => {
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const f of Object.keys(record)) if (f in info.columns) out[columnOf(info, f)] = record[f] ?? null;
    out[columnOf(info, key)] = chunk.matchedIds[i];
    return out;
  });
  return {
    sql: `WITH ${update}, ${skipsByTuple}${insert} SELECT * FROM "u" UNION ALL SELECT * FROM "i"`,
    bind: [JSON.stringify(partial), JSON.stringify(rows)],
    action: ACTION,
  };
}

/** Each record's action from the rows the statement answered (by id, or by match keys for new ones; not answered: unchanged). */
export function upsertOutcome(chunk: UpsertChunk, rows: Record<string, unknown>[], key: string, action: string, shape?: (raw: Record<string, unknown>) => Record<string, unknown>): UpsertOutcome {
  const keyOf = (record: Record<string, unknown>) => JSON.stringify(chunk.keys.map((k) => String(record[k])));
  const byKeys = new Map(rows.map((row) => [keyOf(row), row]));
  const byId = new Map(rows.map((row) => [String(row[key]), row]));
  const created = chunk.created.map((record) => byKeys.get(keyOf(record)));
  const matched = chunk.matchedIds.map((id) => byId.get(String(id)));
  const shaped = (row: Record<string, unknown> | undefined) => (row && shape ? shape(row) : null);
  return {
    matched: matched.map((row) => (row?.[action] as UpsertAction | undefined) ?? 'unchanged'),
    created: created.map((row) => (row?.[action] as UpsertAction | undefined) ?? 'unchanged'),
    createdIds: created.map((row): Id | null => (row ? Number(row[key]) : null)),
    ...(shape ? { rows: { matched: matched.map(shaped), created: created.map(shaped) } } : {}),
  };
}

/** Compiles, runs (`run`: on the caller's transaction) and reads the outcome of one chunk; with `fields`, the written rows shaped by `shape`. */
export async function runUpsert(info: StorageInfo, model: Pick<ModelInfo, 'key' | 'versionField'>, chunk: UpsertChunk, defaults: InsertDefaults, run: (statement: SqlStatement) => Promise<Record<string, unknown>[]>, fields: string[], shape: (fields: string[], raw: Record<string, unknown>) => Record<string, unknown>): Promise<UpsertOutcome> {
  const statement = compileUpsert(info, model, chunk, defaults, fields);
  return upsertOutcome(chunk, await run(statement), model.key, statement.action, chunk.read ? (raw) => shape(fields, raw) : undefined);
}
