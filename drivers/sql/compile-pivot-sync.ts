import type { PivotLinkMode } from '../../lib/driver';
import type { PivotInfo } from '../../lib/resource/model-info';
import { quoteIdent, quoteLiteral, type SqlStatement } from './sql-builder';

/**
 * A guarded link's conditions (pivot-writes.ts compiles them): the parent's visibility as a query
 * (null: not checked), the related record's as a condition on a wanted row's related key, and their
 * values, bound after the parent id ($1) and the rows ($2).
 */
export interface CompiledLinkGuard {
  parent: string | null;
  related: (relatedKey: string) => string;
  bind: unknown[];
}

/**
 * An attach, sync or toggle of one parent's links as ONE statement whatever the number of ids:
 * data-modifying CTEs over the wanted rows (one JSON parameter typed by the pivot's row type),
 * all reading the same snapshot, so no row is touched twice (a stale link is not wanted, a
 * wanted one is either linked or new). The answer is one row of three JSON arrays in the order
 * the per-step path gave them: attached and updated in input order, detached by related id.
 * Runs after the parent's pivot lock (compilePivotTryLock), which makes the snapshot the set it
 * replaces. Identifiers come from the declaration, values only from `bind`.
 */
export function compilePivotLinks(pivot: PivotInfo, parentId: unknown, rows: Array<Record<string, unknown>>, mode: PivotLinkMode, guard?: CompiledLinkGuard): SqlStatement {
  const table = quoteIdent(pivot.table);
  const parent = quoteIdent(pivot.parentKey);
  const related = quoteIdent(pivot.relatedKey);
  // the columns any row sends (compilePivotInsert's rule): the others keep their database default
  const columns = pivot.columns.filter((c) => rows.some((r) => Object.prototype.hasOwnProperty.call(r, c)));
  // every row sends the same columns (the usual case): a plain typed recordset; else each row's
  // JSON stays beside its values, to tell a column sent as null from one not sent
  const uniform = rows.every((r) => columns.every((c) => Object.prototype.hasOwnProperty.call(r, c)));
  const picked = [pivot.parentKey, pivot.relatedKey, ...columns].map((c) => `"v".${quoteIdent(c)}`).join(', ');
  // guarded: nothing is wanted under a parent the caller cannot see, nor a related record they cannot
  const ok = guard?.parent ? ' AND EXISTS (SELECT 1 FROM "ok")' : '';
  const visible = guard ? ` WHERE ${guard.related(`"v".${related}`)}${ok}` : '';
  const ctes = [
    ...(guard?.parent ? [`"ok" AS MATERIALIZED (${guard.parent})`] : []),
    uniform
      ? `"w" AS MATERIALIZED (SELECT ${picked}, "v"."ordinality" AS "grr_n" FROM json_populate_recordset(NULL::${table}, $2::json) WITH ORDINALITY AS "v"${visible})`
      : `"w" AS MATERIALIZED (SELECT ${picked}, "e"."grr_n", "e"."grr_j" FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS "e"("grr_j", "grr_n"), jsonb_populate_record(NULL::${table}, "e"."grr_j") AS "v"${visible})`,
  ];
  // $1 (the parent id) is only ever compared with the parent column, which types it; an INSERT
  // target list would leave it text, so the rows carry the parent key too (compilePivotInsert's rows)
  if (mode === 'sync') {
    ctes.push(`"d" AS (DELETE FROM ${table} AS "t" WHERE "t".${parent} = $1${ok} AND NOT EXISTS (SELECT 1 FROM "w" WHERE "w".${related} = "t".${related}) RETURNING "t".${related} AS "id")`);
    const update = compileChanges(pivot, columns, uniform);
    if (update) ctes.push(update);
  }
  if (mode === 'toggle') {
    ctes.push(`"d" AS (DELETE FROM ${table} AS "t" USING "w" WHERE "t".${parent} = $1 AND "t".${related} = "w".${related} RETURNING "t".${related} AS "id")`);
  }
  const targets = [parent, related, ...columns.map(quoteIdent)].join(', ');
  const values = [parent, related, ...columns.map(quoteIdent)].map((c) => `"w".${c}`).join(', ');
  const linked = `EXISTS (SELECT 1 FROM ${table} AS "x" WHERE "x".${parent} = $1 AND "x".${related} = "w".${related})`;
  ctes.push(`"i" AS (INSERT INTO ${table} (${targets}) SELECT ${values} FROM "w" WHERE NOT ${linked} ORDER BY "w"."grr_n" ON CONFLICT DO NOTHING RETURNING ${related} AS "id")`);
  const attached = `(SELECT COALESCE(json_agg("w".${related} ORDER BY "w"."grr_n"), '[]') FROM "w" WHERE "w".${related} IN (SELECT "id" FROM "i")) AS "attached"`;
  const detached = mode === 'attach' ? `'[]'::json AS "detached"` : `(SELECT COALESCE(json_agg("id" ORDER BY "id"), '[]') FROM "d") AS "detached"`;
  const updated = ctes.some((c) => c.startsWith('"u"')) ? `(SELECT COALESCE(json_agg("id" ORDER BY "grr_n"), '[]') FROM "u") AS "updated"` : `'[]'::json AS "updated"`;
  const checks = guard ? `, ${guard.parent ? 'EXISTS (SELECT 1 FROM "ok")' : 'TRUE'} AS "parentVisible", (SELECT COALESCE(json_agg("w".${related}), '[]') FROM "w") AS "visible"` : '';
  return {
    sql: `WITH ${ctes.join(', ')} SELECT ${attached}, ${detached}, ${updated}${checks}`,
    bind: [parentId, JSON.stringify(rows), ...(guard?.bind ?? [])],
    // prepared: the parent id and one JSON document (prepare-policy.ts's equality rule), and its parse and plan
    // (0.3-0.4 ms for the five CTEs) are a tenth of a sync of 100
    prepare: true,
  };
}

/**
 * A sync's pivot value changes: the linked rows where a sent column differs from the stored one
 * (the per-step path's JavaScript `!==` on the stored values as read: a date column, read as a
 * Date, always differs from the string sent unless both are null). Columns no row sends are left.
 */
function compileChanges(pivot: PivotInfo, columns: string[], uniform: boolean): string | null {
  if (columns.length === 0) return null;
  const table = quoteIdent(pivot.table);
  const parent = quoteIdent(pivot.parentKey);
  const related = quoteIdent(pivot.relatedKey);
  const sent = (c: string) => (uniform ? '' : `jsonb_exists("w"."grr_j", ${quoteLiteral(c)}) AND `);
  const sets = columns.map((c) => (uniform ? `${quoteIdent(c)} = "w".${quoteIdent(c)}` : `${quoteIdent(c)} = CASE WHEN ${sent(c)}TRUE THEN "w".${quoteIdent(c)} ELSE "t".${quoteIdent(c)} END`));
  const differs = columns.map((c) => {
    const [mine, theirs] = [`"w".${quoteIdent(c)}`, `"t".${quoteIdent(c)}`];
    const unequal = pivot.columnTypes[c] === 'date' ? `NOT (${mine} IS NULL AND ${theirs} IS NULL)` : `to_jsonb(${mine}) IS DISTINCT FROM to_jsonb(${theirs})`;
    return `(${sent(c)}${unequal})`;
  });
  return (
    `"u" AS (UPDATE ${table} AS "t" SET ${sets.join(', ')} FROM "w" WHERE "t".${parent} = $1 AND "t".${related} = "w".${related} ` +
    `AND (${differs.join(' OR ')}) RETURNING "t".${related} AS "id", "w"."grr_n")`
  );
}
