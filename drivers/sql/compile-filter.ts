import type { Condition, Filter, RelatedFilter, Scalar } from '../../lib/query/ast';
import type { FieldInfo } from '../../lib/resource/model-info';
import { caselessPrefix, hasCaseVariants, simpleLower } from '../../lib/query/simple-lower';
import { ParamBuilder, quoteIdent } from './sql-builder';
import type { CompileContext } from './compile-context';
import { lowerSql, type CaseFold } from './case-fold';

/**
 * Filter AST -> SQL boolean expression. Semantics follow MongoDB so both drivers return the same
 * rows: negations (`!=`, `not in`, `not like`, `not between`) also match NULL, strings compare
 * bytewise (COLLATE "C"), array fields match when any element matches.
 */
export function compileFilter(filter: Filter, ctx: CompileContext, model: string, alias: string, params: ParamBuilder): string {
  switch (filter.kind) {
    case 'and':
    case 'or': {
      if (filter.filters.length === 0) return filter.kind === 'and' ? 'TRUE' : 'FALSE';
      const parts = filter.filters.map((f) => compileFilter(f, ctx, model, alias, params));
      return parts.length === 1 ? parts[0] : `(${parts.join(filter.kind === 'and' ? ' AND ' : ' OR ')})`;
    }
    case 'related':
      return compileRelated(filter, ctx, model, alias, params);
    case 'condition':
      return compileCondition(filter, ctx, model, alias, params);
  }
}

/** EXISTS over one relation segment; dot paths arrive as nested RelatedFilters. */
function compileRelated(filter: RelatedFilter, ctx: CompileContext, model: string, alias: string, params: ParamBuilder): string {
  const rel = ctx.relation(model, filter.relation);
  const target = rel.target;
  const t = params.alias('r');
  const p = rel.kind === 'belongsToMany' ? params.alias('p') : '';
  const targetKey = ctx.column(target, t, ctx.model(target).key);
  const ownKey = ctx.column(model, alias, ctx.model(model).key);
  const inner = filter.filter ? ` AND ${compileFilter(filter.filter, ctx, target, t, params)}` : '';
  switch (rel.kind) {
    case 'belongsTo':
      return `EXISTS (SELECT 1 FROM ${ctx.table(target)} AS ${quoteIdent(t)} WHERE ${targetKey} = ${ctx.column(model, alias, rel.foreignKey)}${inner})`;
    case 'hasOne':
    case 'hasMany':
      // the target's foreign key holds the parent's localKey (its primary key unless declared)
      return `EXISTS (SELECT 1 FROM ${ctx.table(target)} AS ${quoteIdent(t)} WHERE ${ctx.column(target, t, rel.foreignKey)} = ${rel.localKey !== undefined ? ctx.column(model, alias, rel.localKey) : ownKey}${inner})`;
    case 'belongsToMany': {
      const pivot = rel.pivot;
      if (!pivot) throw new Error(`Relation ${model}.${rel.name} has no pivot`);
      const pq = quoteIdent(p);
      return (
        `EXISTS (SELECT 1 FROM ${quoteIdent(pivot.table)} AS ${pq} JOIN ${ctx.table(target)} AS ${quoteIdent(t)} ` +
        `ON ${targetKey} = ${pq}.${quoteIdent(pivot.relatedKey)} WHERE ${pq}.${quoteIdent(pivot.parentKey)} = ${ownKey}${inner})`
      );
    }
  }
}

const COMPARE: Record<string, string> = { '=': '=', '>': '>', '>=': '>=', '<': '<', '<=': '<=' };
/** `col > v` on an array means some element is > v, i.e. `v < ANY(col)`. */
const FLIPPED: Record<string, string> = { '=': '=', '>': '<', '>=': '<=', '<': '>', '<=': '>=' };

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const outsideInt32 = (v: Scalar): boolean => typeof v === 'number' && (v < INT32_MIN || v > INT32_MAX);

/**
 * A bound value for a column. PostgreSQL types `$n` by the column, so a valid JSON integer beyond
 * an INTEGER column's range (`stock|<|3000000000`) would fail with a range error; such values are
 * compared as numeric instead (the column widens, the answer is the one MongoDB gives).
 */
function valueParam(info: FieldInfo, value: Scalar | Scalar[], params: ParamBuilder): string {
  const wide = (info.type === 'integer' || info.type === 'id') && (Array.isArray(value) ? value.some(outsideInt32) : outsideInt32(value));
  const marker = params.param(value);
  return wide ? `${marker}::numeric${Array.isArray(value) ? '[]' : ''}` : marker;
}

function compileCondition(cond: Condition, ctx: CompileContext, model: string, alias: string, params: ParamBuilder): string {
  const info = ctx.field(model, cond.field);
  const col = ctx.value(model, alias, cond.field);
  if (info.type === 'array') return compileArrayCondition(cond, col, params, ctx.caseFold);
  const c = info.type === 'string' ? `${col} COLLATE "C"` : col;
  const op = cond.operator;
  const v = (value: Scalar | Scalar[]): string => valueParam(info, value, params);
  switch (op) {
    case '=':
      return `${col} = ${v(cond.value as Scalar)}`;
    case '!=':
      return `${col} IS DISTINCT FROM ${v(cond.value as Scalar)}`;
    case '>':
    case '>=':
    case '<':
    case '<=':
      return `${c} ${COMPARE[op]} ${v(cond.value as Scalar)}`;
    case 'like':
    case 'ilike':
    case 'not like':
    case 'not ilike':
      return compileLike(cond, info, col, params, ctx.caseFold);
    case 'in': {
      const { values, hasNull } = splitNulls(cond.value);
      // one value (a show's id) as `=`: prepared, `= ANY($1)` never got a generic plan (its estimate
      // assumes ten elements), so PostgreSQL planned the show again on every execution (0.17 ms)
      const any = values.length === 1 ? `${col} = ${v(values[0])}` : values.length ? `${col} = ANY(${v(values)})` : 'FALSE';
      return hasNull ? `(${any} OR ${col} IS NULL)` : any;
    }
    case 'not in': {
      const { values, hasNull } = splitNulls(cond.value);
      const any = values.length ? `NOT (${col} = ANY(${v(values)}))` : 'TRUE';
      return hasNull ? `(${col} IS NOT NULL AND ${any})` : `(${col} IS NULL OR ${any})`;
    }
    case 'between': {
      const [low, high] = pair(cond.value);
      return `${c} BETWEEN ${v(low)} AND ${v(high)}`;
    }
    case 'not between': {
      const [low, high] = pair(cond.value);
      return `(${col} IS NULL OR NOT (${c} BETWEEN ${v(low)} AND ${v(high)}))`;
    }
    case 'null':
      return `${col} IS NULL`;
    case 'not null':
      return `${col} IS NOT NULL`;
  }
}

/**
 * LIKE with no escape character: only `%` and `_` are special, a backslash is literal — the
 * same rows as MongoDB's anchored regex with everything else escaped. Only strings can match.
 */
function compileLike(cond: Condition, info: FieldInfo, col: string, params: ParamBuilder, fold: CaseFold): string {
  const negated = cond.operator.startsWith('not ');
  if (info.type !== 'string') return negated ? 'TRUE' : 'FALSE';
  const test = cond.operator.endsWith('ilike') ? caselessLike(col, String(cond.value), params, !negated, fold) : `${col} LIKE ${params.param(cond.value)} ESCAPE ''`;
  return negated ? `(${col} IS NULL OR NOT (${test}))` : test;
}

/**
 * `ilike` under the one case rule (decision 73, lib/query/simple-lower.ts), never PostgreSQL's
 * ILIKE, whose case folding follows the database's ctype (under the C locale `É` is not `é`):
 * `lower()` under the collation chosen for the server (case-fold.ts: the builtin `pg_c_utf8` from
 * PostgreSQL 17, which is Unicode's simple lower case whatever the locale), and the pattern is
 * lowered by the same rule in Node. A pattern with no character that
 * has another case is a plain LIKE (the same rows, and an index on the column serves it as it
 * did); otherwise the start of the pattern that matches only itself, when there is one, is also
 * a case-sensitive prefix, so such an index still bounds the scan (`prefixed`: not under NOT).
 */
function caselessLike(col: string, pattern: string, params: ParamBuilder, prefixed: boolean, fold: CaseFold): string {
  if (!hasCaseVariants(pattern)) return `${col} LIKE ${params.param(pattern)} ESCAPE ''`;
  const prefix = prefixed ? caselessPrefix(pattern) : '';
  const bound = prefix === '' ? '' : `${col} LIKE ${params.param(`${prefix}%`)} ESCAPE '' AND `;
  const lowered = `${lowerSql(col, fold)} LIKE ${params.param(simpleLower(pattern))} ESCAPE ''`;
  return bound === '' ? lowered : `(${bound}${lowered})`;
}

/** Array columns (PostgreSQL arrays), MongoDB-style: a condition holds when an element matches. */
function compileArrayCondition(cond: Condition, col: string, params: ParamBuilder, fold: CaseFold): string {
  const op = cond.operator;
  const elem = (test: (e: string) => string): string => `EXISTS (SELECT 1 FROM unnest(${col}) AS "e"("v") WHERE ${test('"e"."v"')})`;
  switch (op) {
    case '=':
    case '>':
    case '>=':
    case '<':
    case '<=':
      return `${params.param(cond.value)} ${FLIPPED[op]} ANY(${col})`;
    case '!=':
      return `(${col} IS NULL OR NOT (${params.param(cond.value)} = ANY(${col})))`;
    case 'in': {
      const { values, hasNull } = splitNulls(cond.value);
      const overlap = values.length ? `${col} && ${params.param(values)}` : 'FALSE';
      return hasNull ? `(${overlap} OR ${col} IS NULL)` : overlap;
    }
    case 'not in': {
      const { values, hasNull } = splitNulls(cond.value);
      const overlap = values.length ? `NOT (${col} && ${params.param(values)})` : 'TRUE';
      return hasNull ? `(${col} IS NOT NULL AND ${overlap})` : `(${col} IS NULL OR ${overlap})`;
    }
    case 'between': {
      const [low, high] = pair(cond.value);
      return `(${params.param(low)} <= ANY(${col}) AND ${params.param(high)} >= ANY(${col}))`;
    }
    case 'not between': {
      const [low, high] = pair(cond.value);
      return `(${col} IS NULL OR NOT (${params.param(low)} <= ANY(${col}) AND ${params.param(high)} >= ANY(${col})))`;
    }
    case 'like':
    case 'ilike':
      return elem((e) => elementLike(op, e, String(cond.value), params, fold));
    case 'not like':
    case 'not ilike':
      return `(${col} IS NULL OR NOT ${elem((e) => elementLike(op, e, String(cond.value), params, fold))})`;
    case 'null':
      return `${col} IS NULL`;
    case 'not null':
      return `${col} IS NOT NULL`;
  }
}

/** One array element against a pattern: `ilike` under the one case rule, as on a scalar column. */
function elementLike(op: string, element: string, pattern: string, params: ParamBuilder, fold: CaseFold): string {
  return op.endsWith('ilike') ? caselessLike(element, pattern, params, false, fold) : `${element} LIKE ${params.param(pattern)} ESCAPE ''`;
}

function splitNulls(value: Condition['value']): { values: Scalar[]; hasNull: boolean } {
  const list = Array.isArray(value) ? value : [value ?? null];
  return { values: list.filter((v) => v !== null), hasNull: list.some((v) => v === null) };
}

function pair(value: Condition['value']): [Scalar, Scalar] {
  if (!Array.isArray(value) || value.length !== 2) throw new Error('between needs two values');
  return [value[0], value[1]];
}
