import type { Filter, RelatedFilter } from '../../lib/query/ast';
import { compileFilter } from './compile-filter';
import type { CompileContext } from './compile-context';
import { quoteIdent, type ParamBuilder } from './sql-builder';

/**
 * The filter of a statement that reads every matching row in no particular order: an offset
 * page's total and an aggregate's groups. A belongs-to filter among its top-level AND conditions,
 * on a foreign key an index leads, reads the related keys once and matches the foreign key
 * against them: `fk = ANY(ARRAY(SELECT key FROM related WHERE …))`. PostgreSQL then counts
 * through one bitmap scan of that index instead of hashing every row of the table (the list
 * benchmark's total: 1.6 ms against 3.5 ms for the EXISTS form's hash semi-join). Not for pages:
 * a page walks its order's index and would test each row against the (unhashed) array; nor
 * without an index, where every row of the table would be.
 */
export function compileCountFilter(filter: Filter, ctx: CompileContext, model: string, alias: string, params: ParamBuilder): string {
  const parts = filter.kind === 'and' ? filter.filters : [filter];
  if (!parts.some((part) => keyed(part, ctx, model))) return compileFilter(filter, ctx, model, alias, params);
  const sql = parts.map((part) => (keyed(part, ctx, model) ? keySet(part, ctx, model, alias, params) : compileFilter(part, ctx, model, alias, params)));
  return sql.length === 1 ? sql[0] : `(${sql.join(' AND ')})`;
}

/** A belongs-to filter with conditions on the related record, through an indexed foreign key. */
function keyed(filter: Filter, ctx: CompileContext, model: string): filter is RelatedFilter & { filter: Filter } {
  if (filter.kind !== 'related' || !filter.filter) return false;
  const rel = ctx.relation(model, filter.relation);
  return rel.kind === 'belongsTo' && (ctx.tableInfo(model).indexed ?? []).includes(rel.foreignKey);
}

function keySet(filter: RelatedFilter & { filter: Filter }, ctx: CompileContext, model: string, alias: string, params: ParamBuilder): string {
  const rel = ctx.relation(model, filter.relation);
  const t = params.alias('r');
  const inner = compileFilter(filter.filter, ctx, rel.target, t, params);
  const targetKey = ctx.column(rel.target, t, ctx.model(rel.target).key);
  return `${ctx.column(model, alias, rel.foreignKey)} = ANY(ARRAY(SELECT ${targetKey} FROM ${ctx.table(rel.target)} AS ${quoteIdent(t)} WHERE ${inner}))`;
}
