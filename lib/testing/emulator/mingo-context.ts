/**
 * The mingo operator set the emulator evaluates aggregation with: mingo's own operators, with those
 * whose semantics differ from MongoDB 7.0 replaced. mingo's package entry merges a caller's context
 * under its defaults (its operators win), so the emulator builds the whole context itself and runs
 * mingo's core Aggregator/Query with it.
 *
 * Replaced:
 * - expression `$eq $ne $gt $gte $lt $lte $cmp`: mingo reuses its query predicates (missing equals null,
 *   an array equals any of its elements, no order across types); MongoDB compares whole values in BSON
 *   order with missing below null (bson-order.ts).
 * - `$sort` stage: BSON order across types (ObjectId before booleans and dates), documents field by
 *   field, arrays by their smallest (ascending) or largest (descending) element.
 * - `$addFields`/`$set`/`$project` stages (field-stages.ts): dotted paths into arrays and scalars, and
 *   the output field order, as MongoDB.
 * - `$graphLookup` stage (graph-lookup.ts): a missing start or connectFromField value reaches nothing.
 * - `$group` stage and `$push`/`$addToSet`/`$min`/`$max` accumulators (group-stage.ts): group keys
 *   compare with field order, missing values are not pushed, min/max in BSON order.
 * - expression `$dateTrunc` (date-trunc.ts): mingo ignores `timezone`; MongoDB bins in the zone.
 */
import { compareValues, sortDocuments } from './bson-order';
import { checkDateTruncSpec, dateTrunc } from './date-trunc';
import { addFieldsStage, projectStage } from './field-stages';
import { graphLookupStage } from './graph-lookup';
import { accumulatorOverrides, expressionAccumulators, groupStage } from './group-stage';
import { isPlainObject, type Doc } from './values';

/* mingo's subpath modules: not reachable with moduleResolution "node", loaded at runtime. */
/* eslint-disable @typescript-eslint/no-require-imports */
type Ops = Record<string, unknown>;
interface ContextLike {
  addPipelineOps(ops: Ops): ContextLike;
}
interface ComputeOptionsLike {
  update(locals: { root: unknown }): ComputeOptionsLike;
  constructor: { init(options: unknown): ComputeOptionsLike };
}
const mingoCore = require('mingo/core') as {
  Context: { init(ops: Record<string, Ops>): ContextLike };
  evalExpr: (obj: unknown, expr: unknown, options: unknown) => unknown;
};
const { Lazy } = require('mingo/lazy') as { Lazy: (docs: Doc[]) => Lazy };
const operators = {
  accumulator: require('mingo/operators/accumulator') as Ops,
  expression: require('mingo/operators/expression') as Ops,
  pipeline: require('mingo/operators/pipeline') as Ops,
  projection: require('mingo/operators/projection') as Ops,
  query: require('mingo/operators/query') as Ops,
  window: require('mingo/operators/window') as Ops,
};
/* eslint-enable @typescript-eslint/no-require-imports */

interface Lazy {
  map(fn: (o: Doc) => Doc): Lazy;
  transform(fn: (docs: Doc[]) => Lazy): Lazy;
}

function comparison(name: string, test: (c: number) => boolean | number) {
  return (obj: unknown, expr: unknown, options: unknown): boolean | number => {
    if (!Array.isArray(expr) || expr.length !== 2) throw new Error(`Expression ${name} takes exactly 2 arguments. ${Array.isArray(expr) ? expr.length : 1} were passed in.`);
    const [a, b] = mingoCore.evalExpr(obj, expr, options) as unknown[];
    return test(compareValues(a, b));
  };
}

const expressionOverrides: Ops = {
  $eq: comparison('$eq', (c) => c === 0),
  $ne: comparison('$ne', (c) => c !== 0),
  $gt: comparison('$gt', (c) => c > 0),
  $gte: comparison('$gte', (c) => c >= 0),
  $lt: comparison('$lt', (c) => c < 0),
  $lte: comparison('$lte', (c) => c <= 0),
  $cmp: comparison('$cmp', (c) => c),
  $dateTrunc: (obj: unknown, expr: unknown, options: unknown): Date | null => {
    const spec = checkDateTruncSpec(expr);
    const args = Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, mingoCore.evalExpr(obj, v, options)]));
    return dateTrunc(args as Parameters<typeof dateTrunc>[0]);
  },
};

function $sort(coll: Lazy, spec: unknown): Lazy {
  if (!isPlainObject(spec) || Object.keys(spec).length === 0) throw new Error('$sort stage must have at least one sort key');
  for (const v of Object.values(spec)) {
    if (v !== 1 && v !== -1) throw new Error('$sort key ordering must be 1 (for ascending) or -1 (for descending)');
  }
  return coll.transform((docs) => Lazy(sortDocuments(docs, spec as Record<string, 1 | -1>)));
}

/**
 * The operator tables, built once: mingo's operator modules export through getters, and reading
 * a few hundred of them for every aggregate command was a measurable part of a small one.
 */
let tables: Record<string, Ops> | undefined;
function operatorTables(): Record<string, Ops> {
  tables ??= {
    accumulator: { ...operators.accumulator, ...accumulatorOverrides },
    expression: { ...operators.expression, ...expressionOverrides, ...expressionAccumulators(operators.accumulator) },
    pipeline: { ...operators.pipeline, $sort, $addFields: addFieldsStage, $set: addFieldsStage, $project: projectStage, $graphLookup: graphLookupStage, $group: groupStage },
    projection: { ...operators.projection },
    query: { ...operators.query },
    window: { ...operators.window },
  };
  return tables;
}

/** A fresh context with the emulator's operator set plus `extraPipeline` stages. */
export function emulatorContext(extraPipeline: Ops = {}): ContextLike {
  const base = operatorTables();
  return mingoCore.Context.init({ ...base, pipeline: { ...base.pipeline, ...extraPipeline } });
}

/** The context of find/update/delete filters: query operators are mingo's, `$expr` uses the emulator's expressions. */
let queryContext: ContextLike | undefined;
export function filterContext(): ContextLike {
  queryContext ??= emulatorContext();
  return queryContext;
}
