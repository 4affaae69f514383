import type { RelationLoad } from '../../lib/query/ast';
import { compileFilter } from './compile-filter';
import { selectFields } from './compile-relations';
import type { CompileContext } from './compile-context';
import { quoteIdent, type ParamBuilder } from './sql-builder';

/**
 * A to-many (hasMany) or hasOne eager load embedded in its parent's statement: a correlated
 * subquery selecting the related rows as one JSON array of arrays, in key order,
 *   (SELECT json_agg(json_build_array(e.id, e.rating, ...) ORDER BY e.id) FROM reviews e
 *     WHERE e.product_id = w.id [AND the load's filter]) AS "__e3"
 * instead of a statement of its own keyed by the page's ids: a show with reviews is one statement,
 * not two. The page is selected first and the subqueries run over it (`w`, compile-list.ts), so
 * rows skipped by OFFSET never run them. Values come back as JSON (numbers, strings, ISO
 * timestamps), which the driver converts by field type as it converts pg's text values.
 */
export interface EmbedPlan {
  name: string;
  kind: 'hasMany' | 'hasOne';
  target: string;
  /** Output alias of the JSON column in the parent rows. */
  alias: string;
  /** Target fields, in the order of each embedded array. */
  fields: string[];
}

/** json_build_array takes at most 100 arguments (PostgreSQL's function argument limit). */
const MAX_FIELDS = 100;

/**
 * The embedded form of a load, or null when it needs a statement of its own: belongsToMany (the
 * pivot), loads with loads below them (keyed by the loaded rows), more than 100 fields.
 */
export function compileEmbed(
  load: RelationLoad,
  ctx: CompileContext,
  parent: string,
  /** The parent's key as the outer query sees it (`"w5"."id"`). */
  parentKey: string,
  params: ParamBuilder,
  /** The query's loadLimit: at most cap + 1 records per parent are aggregated (more is refused by the service). */
  cap: number | null = null,
): { plan: EmbedPlan; column: string } | null {
  const rel = ctx.relation(parent, load.name);
  // correlated on the parent's primary key: a to-many on another key (localKey) is loaded by its own statement
  if ((rel.kind !== 'hasMany' && rel.kind !== 'hasOne') || load.children.length > 0 || rel.localKey !== undefined) return null;
  const target = rel.target;
  const fields = selectFields(ctx, target, load.columns, [], [rel.foreignKey]);
  if (fields.length > MAX_FIELDS) return null;
  const e = params.alias('e');
  const key = ctx.column(target, e, ctx.model(target).key);
  const where = [`${ctx.column(target, e, rel.foreignKey)} = ${parentKey}`];
  if (load.filter) where.push(compileFilter(load.filter, ctx, target, e, params));
  const values = fields.map((f) => ctx.column(target, e, f)).join(', ');
  const alias = `__${e}`;
  // under a cap, the rows are picked (in key order) before they are aggregated: one parent with a
  // million children costs cap + 1 rows of JSON, not a million
  const source =
    cap === null
      ? `${ctx.table(target)} AS ${quoteIdent(e)} WHERE ${where.join(' AND ')}`
      : `(SELECT * FROM ${ctx.table(target)} AS ${quoteIdent(e)} WHERE ${where.join(' AND ')} ORDER BY ${key} LIMIT ${Math.floor(cap) + 1}) AS ${quoteIdent(e)}`;
  const column = `(SELECT json_agg(json_build_array(${values}) ORDER BY ${key}) FROM ${source}) AS ${quoteIdent(alias)}`;
  return { plan: { name: load.name, kind: rel.kind, target, alias, fields }, column };
}
