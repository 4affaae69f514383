import type { PivotLinkMode } from '../../lib/driver';
import type { PivotInfo } from '../../lib/resource/model-info';
import { quoteIdent, quoteLiteral, type SqlStatement } from './sql-builder';

/**
 * An attach, sync or toggle of one parent's links as ONE statement whatever the number of ids:
 * data-modifying CTEs over the wanted rows (one jsonb parameter typed by the pivot's row type),
 * all reading the same snapshot, so no row is touched twice (a stale link is not wanted, a
 * wanted one is either linked or new). The answer is one row of three JSON arrays in the order
 * the per-step path gave them: attached and updated in input order, detached by related id.
 * Runs after the parent's pivot lock (compilePivotTryLock), which makes the snapshot the set it
 * replaces. Identifiers come from the declaration, values only from `bind`.
 */
export function compilePivotLinks(pivot: PivotInfo, parentId: unknown, rows: Array<Record<string, unknown>>, mode: PivotLinkMode): SqlStatement {
  const table = quoteIdent(pivot.table);
  const parent = quoteIdent(pivot.parentKey);
  const related = quoteIdent(pivot.relatedKey);
  // $1 (the parent id) is only ever compared with the parent column, which types it; an INSERT
  // target list would leave it text, so the rows carry the parent key too (compilePivotInsert's rows)
  const linked = (r: string) => `EXISTS (SELECT 1 FROM ${table} AS "x" WHERE "x".${parent} = $1 AND "x".${related} = ${r})`;
  const ctes = [`"w" AS MATERIALIZED (SELECT "e"."n", "e"."j", jsonb_populate_record(NULL::${table}, "e"."j") AS "r" FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS "e"("j", "n"))`];
  if (mode === 'sync') {
    ctes.push(`"d" AS (DELETE FROM ${table} AS "t" WHERE "t".${parent} = $1 AND NOT EXISTS (SELECT 1 FROM "w" WHERE ("w"."r").${related} = "t".${related}) RETURNING "t".${related} AS "id")`);
    const update = compileChanges(pivot);
    if (update) ctes.push(update);
  }
  if (mode === 'toggle') {
    ctes.push(`"d" AS (DELETE FROM ${table} AS "t" USING "w" WHERE "t".${parent} = $1 AND "t".${related} = ("w"."r").${related} RETURNING "t".${related} AS "id")`);
  }
  // the columns any row sends (compilePivotInsert's rule): the others keep their database default
  const columns = pivot.columns.filter((c) => rows.some((r) => Object.prototype.hasOwnProperty.call(r, c)));
  const targets = [parent, related, ...columns.map(quoteIdent)].join(', ');
  const values = [`("w"."r").${parent}`, `("w"."r").${related}`, ...columns.map((c) => `("w"."r").${quoteIdent(c)}`)].join(', ');
  ctes.push(`"i" AS (INSERT INTO ${table} (${targets}) SELECT ${values} FROM "w" WHERE NOT ${linked(`("w"."r").${related}`)} ORDER BY "w"."n" ON CONFLICT DO NOTHING RETURNING ${related} AS "id")`);
  const attached = `(SELECT COALESCE(json_agg(("w"."r").${related} ORDER BY "w"."n"), '[]') FROM "w" WHERE ("w"."r").${related} IN (SELECT "id" FROM "i")) AS "attached"`;
  const detached = mode === 'attach' ? `'[]'::json AS "detached"` : `(SELECT COALESCE(json_agg("id" ORDER BY "id"), '[]') FROM "d") AS "detached"`;
  const updated = ctes.some((c) => c.startsWith('"u"')) ? `(SELECT COALESCE(json_agg("id" ORDER BY "n"), '[]') FROM "u") AS "updated"` : `'[]'::json AS "updated"`;
  return { sql: `WITH ${ctes.join(', ')} SELECT ${attached}, ${detached}, ${updated}`, bind: [parentId, JSON.stringify(rows)] };
}

/**
 * A sync's pivot value changes: the linked rows where a sent column differs from the stored one
 * (the per-step path's JavaScript `!==` on the stored values as read: a date column, read as a
 * Date, always differs from the string sent unless both are null).
 */
function compileChanges(pivot: PivotInfo): string | null {
  if (pivot.columns.length === 0) return null;
  const table = quoteIdent(pivot.table);
  const parent = quoteIdent(pivot.parentKey);
  const related = quoteIdent(pivot.relatedKey);
  const sent = (c: string) => `jsonb_exists("w"."j", ${quoteLiteral(c)})`;
  const sets = pivot.columns.map((c) => `${quoteIdent(c)} = CASE WHEN ${sent(c)} THEN ("w"."r").${quoteIdent(c)} ELSE "t".${quoteIdent(c)} END`);
  const differs = pivot.columns.map((c) => {
    const [mine, theirs] = [`("w"."r").${quoteIdent(c)}`, `"t".${quoteIdent(c)}`];
    const unequal = pivot.columnTypes[c] === 'date' ? `NOT (${mine} IS NULL AND ${theirs} IS NULL)` : `to_jsonb(${mine}) IS DISTINCT FROM to_jsonb(${theirs})`;
    return `(${sent(c)} AND ${unequal})`;
  });
  return (
    `"u" AS (UPDATE ${table} AS "t" SET ${sets.join(', ')} FROM "w" WHERE "t".${parent} = $1 AND "t".${related} = ("w"."r").${related} ` +
    `AND (${differs.join(' OR ')}) RETURNING "t".${related} AS "id", "w"."n")`
  );
}
