import type { Direction, OrderKey, Scalar } from '../../lib/query/ast';
import type { FieldInfo } from '../../lib/resource/model-info';
import { compileFilter } from './compile-filter';
import { ParamBuilder, quoteIdent } from './sql-builder';
import type { CompileContext } from './compile-context';

export interface SortKey {
  /** Comparable expression (strings bytewise, like MongoDB). */
  expr: string;
  /** The plain column, selected as `alias`. */
  column: string;
  direction: Direction;
  field: FieldInfo;
  /** Output alias carrying the key value, for cursors. */
  alias: string;
  /** False for a NOT NULL column of the root: no null placement, so an index on it can serve the sort. */
  nullable: boolean;
}

export interface OrderPlan {
  /** LEFT JOINs along to-one relation chains used as sort keys. */
  joins: string[];
  keys: SortKey[];
  /** `expr AS "__k0"`: the key values selected for the next cursor. */
  selects: string[];
  orderBy: string;
  /** The same order over the selected key aliases of a subquery named `outer` (same casts, collation, null placement). */
  outerOrderBy(outer: string): string;
}

/**
 * Sort keys -> ORDER BY with MongoDB's null placement (first ascending, last descending).
 * Relation keys (`category.name`) join the to-one chain once per distinct path.
 */
export function compileOrder(order: OrderKey[], ctx: CompileContext, model: string, alias: string, params: ParamBuilder): OrderPlan {
  const joins: string[] = [];
  const joined = new Map<string, { model: string; alias: string }>();
  const keys: SortKey[] = order.map((key, index) => {
    let current = { model, alias };
    const path: string[] = [];
    key.relations.forEach((name, step) => {
      path.push(name);
      const id = path.join('.');
      let next = joined.get(id);
      if (!next) {
        const rel = ctx.relation(current.model, name);
        const o = params.alias('o');
        const oq = quoteIdent(o);
        // the caller's scope of the related model: a record outside it joins as absent (sorts as null)
        const scope = key.scopes?.[step] ?? null;
        if (rel.kind === 'belongsTo') {
          const on = [`${ctx.column(rel.target, o, ctx.model(rel.target).key)} = ${ctx.column(current.model, current.alias, rel.foreignKey)}`];
          if (scope) on.push(compileFilter(scope, ctx, rel.target, o, params));
          joins.push(`LEFT JOIN ${ctx.table(rel.target)} AS ${oq} ON ${on.join(' AND ')}`);
        } else if (rel.kind === 'hasOne') {
          const x = params.alias('x');
          const where = [`${ctx.column(rel.target, x, rel.foreignKey)} = ${ctx.column(current.model, current.alias, rel.localKey ?? ctx.model(current.model).key)}`];
          if (scope) where.push(compileFilter(scope, ctx, rel.target, x, params));
          joins.push(
            `LEFT JOIN LATERAL (SELECT * FROM ${ctx.table(rel.target)} AS ${quoteIdent(x)} WHERE ${where.join(' AND ')} ` +
              `ORDER BY ${ctx.column(rel.target, x, ctx.model(rel.target).key)} LIMIT 1) AS ${oq} ON TRUE`,
          );
        } else {
          throw new Error(`Sort key through ${current.model}.${name}: only to-one relations can be sort keys`);
        }
        next = { model: rel.target, alias: o };
        joined.set(id, next);
      }
      current = next;
    });
    const field = ctx.field(current.model, key.field);
    const col = ctx.value(current.model, current.alias, key.field);
    return {
      expr: field.type === 'string' ? `${col} COLLATE "C"` : col,
      column: ctx.column(current.model, current.alias, key.field),
      direction: key.direction,
      field,
      alias: `__k${index}`,
      // a LEFT JOINed relation column can be null even when its column is NOT NULL
      nullable: field.nullable || key.relations.length > 0,
    };
  });
  // `ORDER BY id ASC NULLS FIRST` cannot walk the primary-key index (stored NULLS LAST) and makes
  // PostgreSQL sort every match; null placement is only spelled out where nulls can occur.
  const placement = (k: SortKey): string => (k.direction === 'asc' ? (k.nullable ? 'ASC NULLS FIRST' : 'ASC') : k.nullable ? 'DESC NULLS LAST' : 'DESC');
  const orderBy = keys.map((k) => `${k.expr} ${placement(k)}`).join(', ');
  const selects = keys.map((k) => `${k.column} AS ${quoteIdent(k.alias)}`);
  // expr is the column, then an optional cast and collation (ctx.value + COLLATE): keep those
  const outerOrderBy = (outer: string): string =>
    keys.map((k) => `${quoteIdent(outer)}.${quoteIdent(k.alias)}${k.expr.slice(k.column.length)} ${placement(k)}`).join(', ');
  for (const k of keys) if (!k.expr.startsWith(k.column)) throw new Error(`Sort key ${k.alias}: expression does not start with its column`);
  return { joins, keys, selects, orderBy, outerOrderBy };
}

/**
 * Rows strictly after `after` in the order of `keys` (mixed directions, nulls placed as in
 * ORDER BY): OR over i of (k1 = a1 AND ... AND k(i-1) = a(i-1) AND ki after ai).
 */
export function keysetCondition(keys: SortKey[], after: Scalar[], params: ParamBuilder): string {
  if (after.length !== keys.length) throw new Error('Cursor does not match the order');
  const markers = after.map((value) => (value === null ? null : params.param(value)));
  const equal = (i: number): string => (markers[i] === null ? `${keys[i].expr} IS NULL` : `${keys[i].expr} = ${markers[i]}`);
  const beyond = (i: number): string | null => {
    const m = markers[i];
    const { expr, direction, nullable } = keys[i];
    if (direction === 'asc') return m === null ? `${expr} IS NOT NULL` : `${expr} > ${m}`;
    if (m === null) return null;
    return nullable ? `(${expr} < ${m} OR ${expr} IS NULL)` : `${expr} < ${m}`;
  };
  const branches: string[] = [];
  for (let i = 0; i < keys.length; i += 1) {
    const last = beyond(i);
    if (last === null) continue;
    const parts = [...keys.slice(0, i).map((_, j) => equal(j)), last];
    branches.push(parts.length === 1 ? parts[0] : `(${parts.join(' AND ')})`);
  }
  if (branches.length === 0) return 'FALSE';
  return branches.length === 1 ? branches[0] : `(${branches.join(' OR ')})`;
}
