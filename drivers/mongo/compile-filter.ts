import type { Document } from 'mongodb';
import type { Condition, Filter, RelatedFilter, Scalar } from '../../lib/query/ast';
import { type CompileContext, pivotLookup, relationLookup, storedPath, storedValue } from './compile-context';
import { likeRegex } from './like-pattern';

/** Matches no document (an empty `or`). */
const NOTHING: Document = { $expr: false };

function and(parts: Document[]): Document {
  if (parts.length === 0) return {};
  return parts.length === 1 ? parts[0] : { $and: parts };
}

function hasRelated(filter: Filter): boolean {
  if (filter.kind === 'related') return true;
  if (filter.kind === 'condition') return false;
  return filter.filters.some(hasRelated);
}

/**
 * The stages that keep the records of `model` matching `filter`: a `$match` of the plain top-level
 * conditions first (it can use indexes), then one existence `$lookup` per relation filter and a
 * `$match` of what remains (relation filters may sit anywhere inside and/or groups).
 */
export function compileFilterStages(filter: Filter | null, model: string, ctx: CompileContext): Document[] {
  if (!filter) return [];
  const parts = filter.kind === 'and' ? filter.filters : [filter];
  const plain = parts.filter((f) => !hasRelated(f));
  const related = parts.filter(hasRelated);
  const stages: Document[] = [];
  if (plain.length) stages.push({ $match: and(plain.map((f) => compileExpr(f, model, ctx, []))) });
  if (related.length) {
    const lookups: Document[] = [];
    const match = and(related.map((f) => compileExpr(f, model, ctx, lookups)));
    stages.push(...lookups, { $match: match });
  }
  return stages;
}

/** A match expression; existence lookups it needs are appended to `lookups`. */
function compileExpr(filter: Filter, model: string, ctx: CompileContext, lookups: Document[]): Document {
  switch (filter.kind) {
    case 'condition':
      return compileCondition(filter, model, ctx);
    case 'and':
      return and(filter.filters.map((f) => compileExpr(f, model, ctx, lookups)));
    case 'or':
      return filter.filters.length ? { $or: filter.filters.map((f) => compileExpr(f, model, ctx, lookups)) } : NOTHING;
    case 'related':
      return compileRelated(filter, model, ctx, lookups);
  }
}

/** Existence: a `$lookup` that stops at the first related record matching, then "not empty". */
function compileRelated(filter: RelatedFilter, model: string, ctx: CompileContext, lookups: Document[]): Document {
  const rel = ctx.relation(model, filter.relation);
  const alias = ctx.alias('f');
  const inner = compileFilterStages(filter.filter, rel.target, ctx);
  const stop = [{ $limit: 1 }, { $project: { _id: 1 } }];
  lookups.push(
    rel.kind === 'belongsToMany'
      ? pivotLookup(ctx, model, rel, stop, [...inner, ...stop], alias)
      : relationLookup(ctx, model, rel, [...inner, ...stop], alias),
  );
  return { [alias]: { $ne: [] } };
}

export function compileCondition(c: Condition, model: string, ctx: CompileContext): Document {
  const field = ctx.field(model, c.field);
  const path = storedPath(ctx.model(model), c.field);
  const one = (v: unknown): unknown => storedValue(field, v as Scalar);
  const list = (): unknown[] => {
    if (!Array.isArray(c.value)) throw new TypeError(`Operator ${c.operator} needs a list`);
    return c.value.map(one);
  };
  switch (c.operator) {
    case '=':
      return { [path]: { $eq: one(c.value) } };
    case '!=':
      return { [path]: { $ne: one(c.value) } };
    case '>':
      return { [path]: { $gt: one(c.value) } };
    case '>=':
      return { [path]: { $gte: one(c.value) } };
    case '<':
      return { [path]: { $lt: one(c.value) } };
    case '<=':
      return { [path]: { $lte: one(c.value) } };
    case 'like':
    case 'ilike':
      return { [path]: { $regex: likeRegex(patternOf(c), c.operator === 'ilike') } };
    case 'not like':
    case 'not ilike':
      return { [path]: { $not: likeRegex(patternOf(c), c.operator === 'not ilike') } };
    case 'in':
      return { [path]: { $in: list() } };
    case 'not in':
      return { [path]: { $nin: list() } };
    case 'between': {
      const [low, high] = list();
      return { [path]: { $gte: low, $lte: high } };
    }
    case 'not between': {
      // Like SQL's `x IS NULL OR NOT (x BETWEEN ..)`: a record without a value is outside the range.
      const [low, high] = list();
      return { $or: [{ [path]: { $lt: low } }, { [path]: { $gt: high } }, { [path]: { $eq: null } }] };
    }
    case 'null':
      return { [path]: { $eq: null } };
    case 'not null':
      return { [path]: { $ne: null } };
  }
}

function patternOf(c: Condition): string {
  if (typeof c.value !== 'string') throw new TypeError(`Operator ${c.operator} needs a string pattern`);
  return c.value;
}
