import type { RelationLoad } from '../../lib/query/ast';
import { compileFilter } from './compile-filter';
import { selectFields, type RelationPlan } from './compile-relations';
import type { CompileContext } from './compile-context';
import { quoteIdent, type ParamBuilder } from './sql-builder';

/**
 * A to-one (belongsTo) eager load joined into the page statement: `LEFT JOIN target ON key = fk
 * [AND the load's filter]`, its columns selected under helper aliases. A belongsTo matches at most
 * one row (the target's key), so the join never multiplies the page's rows; what the load would
 * have fetched with its own statement comes with the page instead (a show with category.parent:
 * two statements instead of four).
 */
export interface JoinPlan {
  /** The relation's name: the key of the object in the parent row. */
  name: string;
  target: string;
  /** Output fields and the helper alias each is selected under. */
  columns: { field: string; alias: string }[];
  /** Alias of the target's key: NULL when there is no related record (or the filter refused it). */
  keyAlias: string;
  /** To-one loads of the target, joined too. */
  joins: JoinPlan[];
  /** Other loads of the target: a statement each, keyed by the joined records. */
  relations: RelationPlan[];
}

export interface CompiledJoins {
  joins: JoinPlan[];
  /** `LEFT JOIN ...` clauses, in order. */
  sql: string[];
  /** Select-list entries of every joined column. */
  columns: string[];
  /** The loads left for their own statements, with the model they hang from. */
  rest: RelationLoad[];
}

/**
 * Splits `loads` of `model` (selected as `alias`) into joins and the rest; joins nest along
 * belongsTo chains. `plansOf` compiles the rest of a joined target into relation statements.
 */
export function compileJoins(
  loads: RelationLoad[],
  ctx: CompileContext,
  model: string,
  alias: string,
  params: ParamBuilder,
  plansOf: (target: string, loads: RelationLoad[]) => RelationPlan[],
  out: CompiledJoins = { joins: [], sql: [], columns: [], rest: [] },
): CompiledJoins {
  for (const load of loads) {
    const rel = ctx.relation(model, load.name);
    if (rel.kind !== 'belongsTo') {
      out.rest.push(load);
      continue;
    }
    const target = rel.target;
    const j = params.alias('j');
    const key = ctx.model(target).key;
    const fields = selectFields(ctx, target, load.columns, load.children);
    const columns = fields.map((field, i) => ({ field, alias: `__${j}_${i}` }));
    for (const c of columns) out.columns.push(`${ctx.column(target, j, c.field)} AS ${quoteIdent(c.alias)}`);
    const on = [`${ctx.column(target, j, key)} = ${ctx.column(model, alias, rel.foreignKey)}`];
    if (load.filter) on.push(compileFilter(load.filter, ctx, target, j, params));
    out.sql.push(`LEFT JOIN ${ctx.table(target)} AS ${quoteIdent(j)} ON ${on.join(' AND ')}`);
    const nested = compileJoins(load.children, ctx, target, j, params, plansOf, { joins: [], sql: out.sql, columns: out.columns, rest: [] });
    const keyAlias = columns.find((c) => c.field === key)?.alias;
    if (!keyAlias) throw new Error(`The key of ${target} is not readable`);
    out.joins.push({ name: load.name, target, columns, keyAlias, joins: nested.joins, relations: plansOf(target, nested.rest) });
  }
  return out;
}
