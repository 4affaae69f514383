import type { HistoryUpdateAppend } from '../../lib/driver';
import type { ModelInfo } from '../../lib/resource/model-info';
import { SHORTFALL } from './all-or-none';
import { columnOf, differsSql } from './compile-writes';
import type { StorageInfo } from './model-map';
import { quoteIdent, quoteLiteral, type SqlStatement } from './sql-builder';

/**
 * Decision 83 on PostgreSQL, zero statements added to an update: the UPDATE (compiled with the
 * sent columns as they were, `grr_b<i>`, see compileUpdate's `before`) becomes a data-modifying
 * CTE that also returns them as written (`grr_a<i>`), the key and the version; the same statement
 * appends one history entry per written row whose sent fields changed, prunes beyond the
 * retention, and (`all`) refuses a shortfall as `allOrNone` does. Each field is compared and
 * stored as its column's JSON (dates as PostgreSQL writes them; the history read renders them as
 * the API does), column by column: no row object is built and taken apart again.
 */
export function compileHistoryUpdate(update: SqlStatement, storage: StorageInfo, info: ModelInfo, table: string, append: HistoryUpdateAppend, all: number | null, sent: string[], fields: string[]): SqlStatement {
  const bind = [...update.bind];
  const param = (value: unknown, cast: string) => {
    bind.push(value);
    return `$${bind.length}::${cast}`;
  };
  const after = sent.map((f, i) => `, "t".${quoteIdent(columnOf(storage, f))} AS "grr_a${i}"`).join('');
  const keyed = `, "t".${quoteIdent(columnOf(storage, info.key))} AS "grr_k"${info.versionField ? `, "t".${quoteIdent(columnOf(storage, info.versionField))} AS "grr_v"` : ''}`;
  // every sent field of a plain type (describe-model.ts): one object whose unchanged fields are null
  // and stripped (its values are scalars, whose nulls inside the [was, now] arrays jsonb_strip_nulls
  // leaves alone); otherwise each changed field's object, concatenated, compared as JSON where the
  // type has no plain equality (to_jsonb on both sides of every compare was a third of what history
  // added to a batch of 100)
  const [was, now] = [(i: number) => `"w"."grr_b${i}"`, (i: number) => `"w"."grr_a${i}"`];
  const plain = (f: string) => storage.plainEquality?.[f] === true;
  const differs = (f: string, i: number) => differsSql(storage, f, was(i), now(i));
  const pair = (i: number) => `jsonb_build_array(${was(i)}, ${now(i)})`;
  const changes =
    sent.length === 0
      ? `'{}'::jsonb`
      : sent.every(plain)
        ? `jsonb_strip_nulls(jsonb_build_object(${sent.map((f, i) => `${quoteLiteral(f)}, CASE WHEN ${differs(f, i)} THEN ${pair(i)} END`).join(', ')}))`
        : `(${sent.map((f, i) => `CASE WHEN ${differs(f, i)} THEN jsonb_build_object(${quoteLiteral(f)}, ${pair(i)}) ELSE '{}'::jsonb END`).join(' || ')})`;
  const version = info.versionField ? `"c"."grr_v"` : `COALESCE((SELECT max("x"."version") FROM ${table} AS "x" WHERE "x"."record_id" = "c"."grr_k"::text), 0) + 1`;
  const prune = append.retain === null ? '' : `, "p" AS (DELETE FROM ${table} AS "x" USING "h" WHERE "x"."record_id" = "h"."record_id" AND "x"."version" <= "h"."version" - ${param(append.retain, 'integer')} RETURNING 1)`;
  const reached = `(SELECT count(*) FROM "w")`;
  const guard = all === null ? '' : `, CASE WHEN ${reached} = ${param(all, 'integer')} THEN NULL ELSE (${quoteLiteral(`${SHORTFALL}: `)} || ${reached})::int END AS "grr_guard"`;
  return {
    sql:
      `WITH "w" AS (${update.sql}${after}${keyed}), ` +
      `"h" AS (INSERT INTO ${table} ("record_id", "version", "op", "at", "actor", "request_id", "changes") SELECT "c"."grr_k"::text, ${version}, ${param(append.op, 'text')}, now(), ${param(JSON.stringify(append.actor), 'jsonb')}, ${param(append.requestId, 'text')}, "c"."grr_changes" ` +
      `FROM (SELECT "w"."grr_k", ${info.versionField ? `"w"."grr_v", ` : ''}${changes} AS "grr_changes" FROM "w") AS "c" WHERE "c"."grr_changes" <> '{}'::jsonb${append.retain === null ? '' : ' RETURNING "record_id", "version"'})` +
      // the caller's fields only: the compared columns need not travel back
      `${prune} SELECT ${fields.map((f) => `"w".${quoteIdent(f)}`).join(', ')}${guard} FROM "w"`,
    bind,
    prepare: update.prepare,
  };
}
