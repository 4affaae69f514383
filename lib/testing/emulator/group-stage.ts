/**
 * `$group` and the accumulators whose mingo semantics differ from MongoDB's:
 * - `$group` keys compare as BSON values: `{a: 1, b: 2}` and `{b: 2, a: 1}` are different groups
 *   (mingo's equality ignores field order); a missing key groups with null;
 * - `$push`/`$addToSet` add nothing for a missing value (mingo adds null);
 * - `$min`/`$max` pick by BSON order across types (dates above booleans above ObjectIds), ignoring
 *   null and missing.
 * - `$sum`/`$avg`/`$min`/`$max` as expressions: one argument is an array's elements or the value
 *   itself (mingo refused a non-array value), several arguments are the list of their values.
 */
import { compareValues } from './bson-order';
import { stageError } from './field-stages';
import { isPlainObject, keyOf, type Doc } from './values';

/* eslint-disable-next-line @typescript-eslint/no-require-imports */
const { evalExpr } = require('mingo/core') as { evalExpr: (obj: unknown, expr: unknown, options: unknown) => unknown };
/* eslint-disable-next-line @typescript-eslint/no-require-imports */
const { Lazy } = require('mingo/lazy') as { Lazy: (docs: Doc[]) => Lazy };

interface Lazy {
  transform(fn: (docs: Doc[]) => Lazy): Lazy;
}
interface ComputeOptionsLike {
  update(locals: Record<string, unknown>): ComputeOptionsLike;
  constructor: { init(options: unknown): ComputeOptionsLike };
}

/** The values an accumulator sees: `expr` evaluated per document (the items themselves when used as an expression), missing dropped. */
function definedValues(coll: unknown[], expr: unknown, options: unknown): unknown[] {
  if (expr === null || expr === undefined) return coll.filter((v) => v !== undefined);
  const copts = (options as ComputeOptionsLike).constructor.init(options);
  const out: unknown[] = [];
  for (const root of coll) {
    const v = evalExpr(root, expr, copts.update({ root }));
    if (v !== undefined) out.push(v);
  }
  return out;
}

function $addToSet(coll: unknown[], expr: unknown, options: unknown): unknown[] {
  const seen = new Map<string, unknown>();
  for (const v of definedValues(coll, expr, options)) {
    const k = keyOf(v);
    if (!seen.has(k)) seen.set(k, v);
  }
  return [...seen.values()];
}

const extreme = (sign: 1 | -1) => (coll: unknown[], expr: unknown, options: unknown): unknown => {
  let best: unknown;
  for (const v of definedValues(coll, expr, options)) {
    if (v === null) continue;
    if (best === undefined || sign * compareValues(v, best) > 0) best = v;
  }
  return best ?? null;
};

/** A computed value as BSON holds it: missing fields of embedded documents omitted, missing array elements null. */
function asStored(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : asStored(v)));
  if (!isPlainObject(value)) return value;
  const out: Doc = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = asStored(v);
  return out;
}

export const accumulatorOverrides = { $push: definedValues, $addToSet, $max: extreme(1), $min: extreme(-1) };

type Accumulator = (coll: unknown[], expr: unknown, options: unknown) => unknown;

/** The expression form of an accumulator, as MongoDB evaluates `{$sum: <one or more expressions>}`. */
function asExpression(acc: Accumulator) {
  return (obj: unknown, expr: unknown, options: unknown): unknown => {
    // A group's documents (mingo evaluates accumulators with the group as the object): accumulate.
    if (Array.isArray(obj)) return acc(obj, expr, options);
    const several = Array.isArray(expr) && expr.length !== 1;
    const value = evalExpr(obj, Array.isArray(expr) && !several ? expr[0] : expr, options);
    const items = several || Array.isArray(value) ? (value as unknown[]) : value === undefined ? [] : [value];
    return acc(items, null, options);
  };
}

/** Expression operators for `$sum`, `$avg`, `$min`, `$max`, given mingo's `$sum` and `$avg` accumulators. */
export function expressionAccumulators(mingoAccumulators: Record<string, unknown>): Record<string, unknown> {
  return {
    $sum: asExpression(mingoAccumulators.$sum as Accumulator),
    $avg: asExpression(mingoAccumulators.$avg as Accumulator),
    $max: asExpression(accumulatorOverrides.$max),
    $min: asExpression(accumulatorOverrides.$min),
  };
}

export function groupStage(coll: Lazy, spec: unknown, options: unknown): Lazy {
  if (!isPlainObject(spec)) throw stageError(15947, 'a group\'s fields must be specified in an object');
  if (!('_id' in spec)) throw stageError(15955, 'a group specification must include an _id');
  const fields = Object.keys(spec).filter((k) => k !== '_id');
  for (const f of fields) {
    const acc = spec[f];
    if (!isPlainObject(acc) || Object.keys(acc).length !== 1) throw stageError(40234, `The field '${f}' must be an accumulator object`);
    if (f.includes('.')) throw stageError(40235, `The field name '${f}' cannot contain '.'`);
  }
  const copts = (options as ComputeOptionsLike).constructor.init(options);
  return coll.transform((items) => {
    const groups = new Map<string, { id: unknown; docs: Doc[] }>();
    for (const obj of items) {
      const value = evalExpr(obj, spec._id, options);
      const id = value === undefined ? null : asStored(value);
      const k = keyOf(id);
      const group = groups.get(k);
      if (group) group.docs.push(obj);
      else groups.set(k, { id, docs: [obj] });
    }
    const out: Doc[] = [];
    for (const { id, docs } of groups.values()) {
      const doc: Doc = { _id: id };
      // As mingo's $group: the accumulator expression evaluated over the group's documents.
      for (const f of fields) doc[f] = evalExpr(docs, spec[f], copts.update({ root: null, groupId: id }));
      out.push(doc);
    }
    return Lazy(out);
  });
}
