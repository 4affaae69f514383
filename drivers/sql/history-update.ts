import type { HistoryUpdateAppend } from '../../lib/driver';
import type { ModelInfo } from '../../lib/resource/model-info';
import { SHORTFALL } from './all-or-none';
import { columnOf, rowObject } from './compile-writes';
import type { StorageInfo } from './model-map';
import { quoteLiteral, type SqlStatement } from './sql-builder';

/**
 * Decision 83 on PostgreSQL, zero statements added to an update: the UPDATE (compiled with its
 * rows' pre-statement versions, `grr_before`) becomes a data-modifying CTE, and the same statement
 * appends one history entry per written row whose tracked fields changed (the difference computed
 * from the two rows' JSON), prunes beyond the retention, and (`all`) refuses a shortfall as
 * `allOrNone` does. Values in `changes` are the columns' JSON (dates as PostgreSQL writes them;
 * the history read renders them as the API does).
 */
export function compileHistoryUpdate(update: SqlStatement, storage: StorageInfo, info: ModelInfo, table: string, append: HistoryUpdateAppend, all: number | null, sentFields: Set<string>): SqlStatement {
  const bind = [...update.bind];
  const param = (value: unknown, cast: string) => {
    bind.push(value);
    return `$${bind.length}::${cast}`;
  };
  // only the fields the update sent can change: one (name, before, after) row each, compared there
  const sent = append.fields.filter((f) => sentFields.has(f));
  // each changed field's object, concatenated: no subquery per row
  const pairs = sent.map((f) => {
    const col = quoteLiteral(columnOf(storage, f));
    const [was, now] = [`"w"."grr_before" -> ${col}`, `"w"."grr_after" -> ${col}`];
    return `CASE WHEN ${was} IS DISTINCT FROM ${now} THEN jsonb_build_object(${quoteLiteral(f)}, jsonb_build_array(${was}, ${now})) ELSE '{}'::jsonb END`;
  });
  const key = quoteLiteral(columnOf(storage, info.key));
  const version = info.versionField
    ? `("d"."grr_after" ->> ${quoteLiteral(columnOf(storage, info.versionField))})::integer`
    : `COALESCE((SELECT max("x"."version") FROM ${table} AS "x" WHERE "x"."record_id" = "d"."grr_after" ->> ${key}), 0) + 1`;
  const changes = pairs.length === 0 ? `'{}'::jsonb` : `(${pairs.join(' || ')})`;
  const prune = append.retain === null ? '' : `, "p" AS (DELETE FROM ${table} AS "x" USING "h" WHERE "x"."record_id" = "h"."record_id" AND "x"."version" <= "h"."version" - ${param(append.retain, 'integer')} RETURNING 1)`;
  const reached = `(SELECT count(*) FROM "w")`;
  const guard = all === null ? '' : `, CASE WHEN ${reached} = ${param(all, 'integer')} THEN NULL ELSE (${quoteLiteral(`${SHORTFALL}: `)} || ${reached})::int END AS "grr_guard"`;
  return {
    sql:
      `WITH "w" AS (${update.sql}, ${rowObject('t', [...new Set([columnOf(storage, info.key), ...(info.versionField ? [columnOf(storage, info.versionField)] : []), ...sent.map((f) => columnOf(storage, f))])])} AS "grr_after"), "d" AS (SELECT "w".*, ${changes} AS "grr_changes" FROM "w"), ` +
      `"h" AS (INSERT INTO ${table} ("record_id", "version", "op", "at", "actor", "request_id", "changes") SELECT "d"."grr_after" ->> ${key}, ${version}, ${param(append.op, 'text')}, now(), ${param(JSON.stringify(append.actor), 'jsonb')}, ${param(append.requestId, 'text')}, "d"."grr_changes" FROM "d" WHERE "d"."grr_changes" <> '{}'::jsonb RETURNING "record_id", "version")` +
      `${prune} SELECT "d".*${guard} FROM "d"`,
    bind,
    prepare: update.prepare,
  };
}
