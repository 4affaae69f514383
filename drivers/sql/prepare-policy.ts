import type { Filter, ListQuery } from '../../lib/query/ast';
import type { CompileContext } from './compile-context';

/**
 * Which statements run prepared (named): PostgreSQL then parses and analyses the text once per
 * connection and, after five runs, may keep one generic plan for every value. That saves 0.4-1.5
 * ms a statement on the library's larger texts, and costs where a value would have changed the
 * plan: a range on an indexed column (index scan or not), a deep page (a generic plan does not
 * see the offset), a selective filter under ORDER BY + LIMIT (walk an index in order or sort).
 */

type Condition = Extract<Filter, { kind: 'condition' }>;

/** True when `test` holds for every condition of the filter, relation filters included (with their model). */
function everyCondition(filter: Filter | null | undefined, ctx: CompileContext, model: string, test: (condition: Condition, model: string) => boolean): boolean {
  if (!filter) return true;
  switch (filter.kind) {
    case 'and':
    case 'or':
      return filter.filters.every((f) => everyCondition(f, ctx, model, test));
    case 'related':
      return everyCondition(filter.filter, ctx, ctx.relation(model, filter.relation).target, test);
    case 'condition':
      return test(filter, model);
  }
}

/**
 * Values of an `in` list beyond which it runs unnamed: PostgreSQL hashes a long list only in a
 * custom plan (the array a constant); a generic plan takes the list for about ten values and tests
 * every row it scans against each. Measured with upsert's read of 1,000 match values over 1,500
 * rows (a sequential scan): 30-80 ms generic against 0.3 ms custom.
 */
export const PREPARED_IN_MAX = 64;

function longIn(condition: Condition): boolean {
  return condition.operator === 'in' && Array.isArray(condition.value) && condition.value.length > PREPARED_IN_MAX;
}

/** An equality test (`=`, `in` of at most PREPARED_IN_MAX values, `null`, `not null`) on a scalar field. */
function isEquality(condition: Condition, ctx: CompileContext, model: string): boolean {
  return ['=', 'in', 'null', 'not null'].includes(condition.operator) && ctx.field(model, condition.field).type !== 'array' && !longIn(condition);
}

/**
 * True when every condition of the filter is an equality test (`=`, `in`, `null`, `not null`, on
 * scalar fields): PostgreSQL's generic plan for it is as good as a custom one (selectivity from
 * the column's statistics, not from the value).
 */
export function equalityOnly(filter: Filter | null | undefined, ctx: CompileContext, model: string): boolean {
  return everyCondition(filter, ctx, model, (condition, on) => isEquality(condition, ctx, on));
}

/**
 * True when the filter's ranges and patterns only test unindexed scalar columns (of the root or a
 * related model; equality anywhere): no value can turn a scan into an index scan, so the plan's
 * shape does not hinge on it. Indexes the model does not declare are not known here.
 */
export function scanOnlyRanges(filter: Filter | null | undefined, ctx: CompileContext, model: string): boolean {
  return everyCondition(filter, ctx, model, (condition, on) =>
    isEquality(condition, ctx, on) || (ctx.field(on, condition.field).type !== 'array' && !longIn(condition) && !(ctx.tableInfo(on).indexed ?? []).includes(condition.field)),
  );
}

/**
 * The last row a prepared page with ranges or patterns may reach, and its largest size. Measured
 * on the benchmark's list (20,000 products, generic against custom plan with its planning): at
 * offsets up to 500 the generic plan was 0.6-1.6 ms faster; at 1,000 even; at 5,000 2.3x slower;
 * a page of 1,000 rows 1.4x slower.
 */
const PREPARED_PAGE_END = 500;
const PREPARED_PAGE_SIZE = 100;

/**
 * Whether a list's statements (page, count) run prepared: equality filters always (a show by id,
 * a relation page by parent); ranges and patterns on unindexed columns on a shallow offset page;
 * never a cursor page, a tree walk or a statement whose head is bound by value.
 */
export function pagePrepared(query: ListQuery, ctx: CompileContext, model: string, headBound: boolean): boolean {
  const page = query.page;
  if (headBound || query.tree || page?.kind === 'cursor') return false;
  if (equalityOnly(query.filter, ctx, model)) return true;
  return page?.kind === 'offset' && page.size <= PREPARED_PAGE_SIZE && page.page * page.size <= PREPARED_PAGE_END && scanOnlyRanges(query.filter, ctx, model);
}
