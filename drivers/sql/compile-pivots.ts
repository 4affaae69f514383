import type { PivotInfo } from '../../lib/resource/model-info';
import { quoteIdent, quoteLiteral, type SqlStatement } from './sql-builder';

/**
 * Pivot statements of a many-to-many relation, each ONE statement whatever the number of ids.
 * Rows travel as one jsonb parameter typed by the pivot table's own row type, like the writes of
 * records (compile-writes.ts). Identifiers come from the declaration, values only from `bind`.
 */

const table = (pivot: PivotInfo) => quoteIdent(pivot.table);

/** The pivot rows of one parent (of `relatedIds`, or all). */
export function compilePivotRead(pivot: PivotInfo, parentId: unknown, relatedIds: unknown[] | null): SqlStatement {
  const columns = [pivot.parentKey, pivot.relatedKey, ...pivot.columns].map(quoteIdent).join(', ');
  const where = `${quoteIdent(pivot.parentKey)} = $1` + (relatedIds ? ` AND ${quoteIdent(pivot.relatedKey)} = ANY($2)` : '');
  return { sql: `SELECT ${columns} FROM ${table(pivot)} WHERE ${where} ORDER BY ${quoteIdent(pivot.relatedKey)}`, bind: relatedIds ? [parentId, relatedIds] : [parentId] };
}

/** One INSERT of every row; a pair already present (unique index) is left as it is; answers the related ids inserted. */
export function compilePivotInsert(pivot: PivotInfo, rows: Array<Record<string, unknown>>): SqlStatement {
  const columns = [pivot.parentKey, pivot.relatedKey, ...pivot.columns.filter((c) => rows.some((r) => Object.prototype.hasOwnProperty.call(r, c)))];
  const targets = columns.map(quoteIdent).join(', ');
  const values = columns.map((c) => `"v".${quoteIdent(c)}`).join(', ');
  return {
    sql: `INSERT INTO ${table(pivot)} (${targets}) SELECT ${values} FROM jsonb_populate_recordset(NULL::${table(pivot)}, $1::jsonb) AS "v" ON CONFLICT DO NOTHING RETURNING ${quoteIdent(pivot.relatedKey)}`,
    bind: [JSON.stringify(rows)],
  };
}

/** One DELETE of the pairs of `relatedIds` (or every pair of the parent), answering the related ids removed. */
export function compilePivotDelete(pivot: PivotInfo, parentId: unknown, relatedIds: unknown[] | null): SqlStatement {
  const related = quoteIdent(pivot.relatedKey);
  const where = `${quoteIdent(pivot.parentKey)} = $1` + (relatedIds ? ` AND ${related} = ANY($2)` : '');
  return { sql: `DELETE FROM ${table(pivot)} WHERE ${where} RETURNING ${related}`, bind: relatedIds ? [parentId, relatedIds] : [parentId] };
}

/** One UPDATE of every pair: a column absent from a row's JSON keeps its value. */
export function compilePivotUpdate(pivot: PivotInfo, rows: Array<Record<string, unknown>>): SqlStatement {
  const sets = pivot.columns.map((c) => `${quoteIdent(c)} = CASE WHEN jsonb_exists("u"."j", ${quoteLiteral(c)}) THEN ("u"."r").${quoteIdent(c)} ELSE "t".${quoteIdent(c)} END`);
  const parent = quoteIdent(pivot.parentKey);
  const related = quoteIdent(pivot.relatedKey);
  return {
    sql:
      `UPDATE ${table(pivot)} AS "t" SET ${sets.join(', ')} FROM (SELECT "e"."j", jsonb_populate_record(NULL::${table(pivot)}, "e"."j") AS "r" ` +
      `FROM jsonb_array_elements($1::jsonb) AS "e"("j")) AS "u" WHERE "t".${parent} = ("u"."r").${parent} AND "t".${related} = ("u"."r").${related}`,
    bind: [JSON.stringify(rows)],
  };
}

/**
 * The lock of one parent's pivot rows, first in a transaction that changes them: a transaction-scoped
 * advisory lock on (pivot table, parent id), in the two-key space (hierarchy locks use the one-key space).
 */
export function compilePivotLock(pivot: PivotInfo, parentId: unknown): SqlStatement {
  return { sql: 'SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2)) AS "locked"', bind: [pivot.table, String(parentId)], prepare: true };
}

/** The same lock without waiting, with the transaction's isolation level: taken at once in the usual case. */
export function compilePivotTryLock(pivot: PivotInfo, parentId: unknown): SqlStatement {
  // prepared: no table, nothing to plan but the call (every link write sends it)
  return { sql: `SELECT pg_try_advisory_xact_lock(hashtext($1), hashtext($2)) AS "locked", current_setting('transaction_isolation') AS "isolation"`, bind: [pivot.table, String(parentId)], prepare: true };
}
