import type { Document } from 'mongodb';
import type { AggregateQuery, GroupKey, Measure } from '../../lib/query/aggregate-ast';
import type { OrderKey } from '../../lib/query/ast';
import type { Catalog } from '../../lib/resource/model-info';
import { CompileContext, storedPath } from './compile-context';
import { compileFilterStages } from './compile-filter';
import { compileHaving } from './compile-having';
import { compileOrder } from './compile-order';
import type { ModelMap } from './model-map';

export interface CompiledAggregate {
  collection: string;
  /** The ONE aggregation: it answers one `{data, total}` document. */
  pipeline: Document[];
  /** How many group values and measure values each data document holds (`g0`.. in `_id`, `m0`..). */
  groups: number;
  measures: number;
}

/** `{$ifNull: [v, null]}`: a missing field and a null one are the same (null) value. */
const orNull = (v: string): Document => ({ $ifNull: [v, null] });
/** 1 for a record whose value is not null (nor missing), else 0. */
const present = (v: string): Document => ({ $cond: [{ $eq: [orNull(v), null] }, 0, 1] });

/**
 * A group's value: the field, or the start of its bucket (decision 84) by `$dateTrunc` in the
 * zone (5.0); a week starts on the day asked (MongoDB's own default is Sunday, ours Monday).
 */
function groupValue(group: GroupKey, path: string): Document {
  const b = group.bucket;
  if (!b) return orNull(`$${path}`);
  return { $dateTrunc: { date: `$${path}`, unit: b.unit, timezone: b.tz, ...(b.unit === 'week' ? { startOfWeek: b.weekStart } : {}) } };
}

/** The `$group` accumulators of one measure (a sum also counts its non-null values: a sum of nothing is null). */
function accumulators(m: Measure, i: number, path: string | null): Document {
  const v = `$${path}`;
  switch (m.fn) {
    case 'count':
      return { [`m${i}`]: path === null ? { $sum: 1 } : { $sum: present(v) } };
    case 'count_distinct':
      return { [`m${i}`]: { $addToSet: orNull(v) } };
    case 'sum':
      return { [`m${i}`]: { $sum: v }, [`n${i}`]: { $sum: present(v) } };
    case 'avg':
      return { [`m${i}`]: { $avg: v } };
    case 'min':
      return { [`m${i}`]: { $min: v } };
    case 'max':
      return { [`m${i}`]: { $max: v } };
  }
}

/** After `$group`: distinct sets become their size (null left out), sums of nothing null. */
function finish(m: Measure, i: number): Document | null {
  if (m.fn === 'count_distinct') return { [`m${i}`]: { $size: { $setDifference: [`$m${i}`, [null]] } } };
  if (m.fn === 'sum') return { [`m${i}`]: { $cond: [{ $gt: [`$n${i}`, 0] }, `$m${i}`, null] } };
  return null;
}

/**
 * An aggregate as ONE aggregation (MongoDB 5.0 operators only): the list's filter stages, a
 * `$lookup` per to-one group path (the sort keys' chain, scopes included), `$group`, `having`'s
 * `$match`, then a
 * `$facet` with the page of groups (sorted: nulls first ascending, as lists) and their number. Pure.
 */
export function compileAggregate(query: AggregateQuery, catalog: Catalog, models: ModelMap): CompiledAggregate {
  const ctx = new CompileContext(catalog, models);
  const model = query.model;
  const pipeline: Document[] = [...compileFilterStages(query.filter, model, ctx)];
  const keys: OrderKey[] = query.groups.map((g) => ({ relations: g.relations, field: g.field, direction: 'asc', ...(g.scopes ? { scopes: g.scopes } : {}) }));
  const plan = compileOrder(keys, model, ctx);
  pipeline.push(...plan.stages);
  const info = ctx.model(model);
  const group: Document = { _id: keys.length ? Object.fromEntries(plan.keys.map((k, i) => [`g${i}`, groupValue(query.groups[i], k.path)])) : null };
  query.measures.forEach((m, i) => Object.assign(group, accumulators(m, i, m.field === null ? null : storedPath(info, m.field))));
  pipeline.push({ $group: group });
  const finished = query.measures.map(finish).filter((d): d is Document => d !== null);
  if (finished.length) pipeline.push({ $addFields: Object.assign({}, ...finished) as Document });
  pipeline.push(...compileHaving(query.having));
  const sort: Document = {};
  for (const key of query.order) sort[key.kind === 'group' ? `_id.g${key.index}` : `m${key.index}`] = key.direction === 'asc' ? 1 : -1;
  const { page, size } = query.page;
  const window: Document[] = [{ $skip: (page - 1) * size }, { $limit: size }];
  pipeline.push({ $facet: { data: Object.keys(sort).length ? [{ $sort: sort }, ...window] : window, total: [{ $count: 'total' }] } });
  return { collection: ctx.collection(model), pipeline, groups: keys.length, measures: query.measures.length };
}
