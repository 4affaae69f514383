import type { AggregateQuery, Measure } from '../../lib/query/aggregate-ast';
import type { OrderKey } from '../../lib/query/ast';
import type { Catalog, FieldInfo } from '../../lib/resource/model-info';
import { CompileContext } from './compile-context';
import { BUILTIN_FOLD, type CaseFold } from './case-fold';
import { bucketSql } from './compile-bucket';
import { compileCountFilter } from './compile-count-filter';
import { compileHaving } from './compile-having';
import { scanOnlyRanges } from './prepare-policy';
import { compileOrder } from './compile-order';
import type { ModelMap } from './model-map';
import { ParamBuilder, quoteIdent, type SqlStatement } from './sql-builder';

export interface CompiledAggregate {
  /** ONE statement: the page of groups (`g0`.., `m0`..), each row carrying the number of groups (`__total`). */
  statement: SqlStatement;
  /** The field of each group value and measure (null: `count(*)`), to type what pg answers. */
  groupFields: FieldInfo[];
  measures: Array<{ fn: Measure['fn']; field: FieldInfo | null; scaled: boolean }>;
}

/**
 * 2^-64, exactly. Sums and averages of non-integer fields add the values scaled by it: PostgreSQL
 * fails a float8 sum that overflows (an unnamed 22003) where MongoDB answers Infinity, and
 * decision 74 wants both to say which aggregate overflowed. Scaling by a power of two is exact
 * (for values above 2^-958), so the scaled sum times 2^64 (`SUM_SCALE`, applied in
 * run-aggregate.ts) is bit for bit the float8 sum, and Infinity exactly when that sum overflows.
 * A numeric column stays numeric (exact) under the scale; orders over the scaled values are the same.
 */
const SCALED = '0.0000000000000000000542101086242752217003726400434970855712890625';
export const SUM_SCALE = 2 ** 64;

/** The scaled float8 sum of a non-integer column (the same additions as `sum(col::float8)`). */
const scaledSum = (col: string): string => `sum((${col} * ${SCALED})::float8)`;

/** The SQL aggregate of one measure over the root's column (strings compared bytewise, like MongoDB). */
function measureSql(m: Measure, ctx: CompileContext, model: string, root: string): string {
  if (m.field === null) return 'count(*)';
  const field = ctx.field(model, m.field);
  const col = ctx.column(model, root, m.field);
  switch (m.fn) {
    case 'count':
      return `count(${col})`;
    case 'count_distinct':
      return `count(DISTINCT ${col})`;
    case 'sum':
      return field.type === 'integer' ? `sum(${col})` : `sum(${col} * ${SCALED})`;
    case 'avg':
      // a JSON number, never a numeric string: integers averaged exactly, then rounded once; other
      // fields as avg(float8) does (the float8 sum over the count), scaled, so an overflow is seen
      return field.type === 'integer' ? `(avg(${col}))::float8` : `${scaledSum(col)} / NULLIF(count(${col}), 0)`;
    case 'min':
    case 'max': {
      const value = ctx.value(model, root, m.field);
      return `${m.fn}(${field.type === 'string' ? `${value} COLLATE "C"` : value})`;
    }
  }
}

/**
 * An aggregate as ONE statement: the grouped rows in a CTE (the list's WHERE; to-one group paths
 * LEFT JOINed as sort keys are, scopes included; buckets by their start), those `having` keeps
 * (decision 84), the page of them numbered in the answer's order,
 * and the number of groups beside it. The count is LEFT JOINed to the page, so a page past the end
 * still answers one row carrying the total (`__n` null). Pure; client values only in `bind`.
 */
export function compileAggregate(query: AggregateQuery, catalog: Catalog, tables: ModelMap, caseFold: CaseFold = BUILTIN_FOLD): CompiledAggregate {
  const ctx = new CompileContext(catalog, tables, caseFold);
  const model = query.model;
  const params = new ParamBuilder();
  const root = params.alias('t');
  const keys: OrderKey[] = query.groups.map((g) => ({ relations: g.relations, field: g.field, direction: 'asc', ...(g.scopes ? { scopes: g.scopes } : {}) }));
  const plan = compileOrder(keys, ctx, model, root, params);
  // a bucket groups by its start (decision 84): the same expression in the select and GROUP BY
  const buckets = plan.keys.map((k, i) => {
    const g = query.groups[i];
    if (!g.bucket) return null;
    // a root field's calendar buckets are found among the local starts of the matching values' range
    const range = (): string => {
      const inner = params.alias('t');
      const col = ctx.column(model, inner, g.field);
      const where = query.filter ? ` WHERE ${compileCountFilter(query.filter, ctx, model, inner, params)}` : '';
      return `SELECT min(${col}) AS "lo", max(${col}) AS "hi" FROM ${ctx.table(model)} AS ${quoteIdent(inner)}${where}`;
    };
    return bucketSql(k.column, g.bucket, params, g.relations.length === 0 ? { alias: params.alias('b'), range } : null);
  });
  const groupExprs = plan.keys.map((k, i) => buckets[i]?.expr ?? k.column);
  const bucketCtes = buckets.flatMap((b) => (b?.cte ? [b.cte] : []));
  const bucketJoins = bucketCtes.map((cte) => `CROSS JOIN ${cte.slice(0, cte.indexOf(' AS '))}`);
  const columns = [
    ...groupExprs.map((expr, i) => `${expr} AS ${quoteIdent(`g${i}`)}`),
    ...query.measures.map((m, i) => `${measureSql(m, ctx, model, root)} AS ${quoteIdent(`m${i}`)}`),
    // beside a scaled average, its sum: the average overflows where the sum does, as on MongoDB
    ...query.measures.flatMap((m, i) => (m.fn === 'avg' && isScaled(m, ctx, model) ? [`${scaledSum(ctx.column(model, root, m.field as string))} AS ${quoteIdent(`s${i}`)}`] : [])),
  ];
  let grouped = `SELECT ${columns.join(', ')} FROM ${ctx.table(model)} AS ${quoteIdent(root)}`;
  if (plan.joins.length) grouped += ` ${plan.joins.join(' ')}`;
  if (bucketJoins.length) grouped += ` ${bucketJoins.join(' ')}`;
  if (query.filter) grouped += ` WHERE ${compileCountFilter(query.filter, ctx, model, root, params)}`;
  if (plan.keys.length) grouped += ` GROUP BY ${groupExprs.join(', ')}`;
  const scaled = query.measures.map((m) => isScaled(m, ctx, model));
  const suffixes = plan.keys.map((k, i) => (query.groups[i].bucket ? '' : k.expr.slice(k.column.length)));
  const having = query.having ? compileHaving(query, query.having, scaled, suffixes.map((x) => x.startsWith('::text')), 'a', params, caseFold) : null;

  const orderBy = query.order
    .map((key) => {
      const direction = key.direction === 'asc' ? 'ASC NULLS FIRST' : 'DESC NULLS LAST';
      if (key.kind === 'measure') {
        const m = query.measures[key.index];
        const text = (m.fn === 'min' || m.fn === 'max') && m.field !== null && ctx.field(model, m.field).type === 'string';
        return `"g".${quoteIdent(`m${key.index}`)}${text ? ' COLLATE "C"' : ''} ${direction}`;
      }
      // the sort key's cast and collation, over the grouped column
      return `"g".${quoteIdent(`g${key.index}`)}${suffixes[key.index]} ${direction}`;
    })
    .join(', ');
  const numbered = `row_number() OVER (${orderBy ? `ORDER BY ${orderBy}` : ''}) AS "__n"`;
  const { page, size } = query.page;
  const limit = params.param(size);
  const offset = params.param((page - 1) * size);
  const sql =
    `WITH ${bucketCtes.map((cte) => `${cte}, `).join('')}` +
    (having ? `"a" AS (${grouped}), "g" AS (${having}), ` : `"g" AS (${grouped}), `) +
    `"p" AS (SELECT "g".*, ${numbered} FROM "g"${orderBy ? ` ORDER BY ${orderBy}` : ''} LIMIT ${limit} OFFSET ${offset}) ` +
    `SELECT "p".*, "c"."__total" FROM (SELECT count(*) AS "__total" FROM "g") AS "c" LEFT JOIN "p" ON TRUE ORDER BY "p"."__n"`;
  return {
    // prepared when no value can change how rows are found: no LIMIT sits on the scan here
    statement: { sql, bind: params.bind, prepare: scanOnlyRanges(query.filter, ctx, model) },
    groupFields: plan.keys.map((k) => k.field),
    measures: query.measures.map((m) => ({ fn: m.fn, field: m.field === null ? null : ctx.field(model, m.field), scaled: isScaled(m, ctx, model) })),
  };
}

/** A sum or average of a non-integer field: computed scaled by 2^-64 (see SCALED). */
function isScaled(m: Measure, ctx: CompileContext, model: string): boolean {
  return (m.fn === 'sum' || m.fn === 'avg') && m.field !== null && ctx.field(model, m.field).type !== 'integer';
}
