import type { Document } from 'mongodb';
import type { Filter, OrderKey, Scalar } from '../../lib/query/ast';
import type { FieldInfo } from '../../lib/resource/model-info';
import { type CompileContext, relationLookup, storedPath, storedValue } from './compile-context';
import { compileFilterStages } from './compile-filter';

/** One sort key as the pipeline sees it. */
export interface KeyPlan {
  /** Document path: a stored field, or the helper field holding a relation's value. */
  path: string;
  field: FieldInfo;
  direction: 'asc' | 'desc';
}

export interface CompiledOrder {
  /** `$lookup` + `$addFields` per to-one relation key. */
  stages: Document[];
  sort: Document;
  keys: KeyPlan[];
}

/**
 * Sort keys; a relation key (`category.name`) becomes a helper field filled by a `$lookup` chain
 * (null when there is no related record). `_id` always ends the sort so pages are stable.
 */
export function compileOrder(order: OrderKey[], model: string, ctx: CompileContext): CompiledOrder {
  const stages: Document[] = [];
  const keys: KeyPlan[] = [];
  for (const key of order) {
    if (key.relations.length === 0) {
      keys.push({ path: storedPath(ctx.model(model), key.field), field: ctx.field(model, key.field), direction: key.direction });
      continue;
    }
    const alias = ctx.alias('s');
    const { lookup, field } = chainLookup(ctx, model, key.relations, key.scopes ?? [], key.field, alias);
    stages.push(lookup, { $addFields: { [alias]: { $ifNull: [{ $arrayElemAt: [`$${alias}.v`, 0] }, null] } } });
    keys.push({ path: alias, field, direction: key.direction });
  }
  const sort: Document = {};
  for (const k of keys) if (!(k.path in sort)) sort[k.path] = k.direction === 'asc' ? 1 : -1;
  if (!('_id' in sort)) sort._id = 1;
  return { stages, sort, keys };
}

/**
 * A `$lookup` whose array holds at most one `{v}`: the field at the end of a to-one chain. `scopes`
 * (per relation): the records of its target the caller may see; one outside joins as absent (null).
 */
function chainLookup(ctx: CompileContext, model: string, relations: string[], scopes: Array<Filter | null>, field: string, as: string): { lookup: Document; field: FieldInfo } {
  const rel = ctx.relation(model, relations[0]);
  if (rel.kind !== 'belongsTo' && rel.kind !== 'hasOne') throw new Error(`Sort key through ${model}.${rel.name}: not a to-one relation`);
  // hasOne: the same record eager loading picks (the first by _id, of those in scope)
  const visible = compileFilterStages(scopes[0] ?? null, rel.target, ctx);
  const first = [...visible, ...(rel.kind === 'hasOne' ? [{ $sort: { _id: 1 } }, { $limit: 1 }] : [{ $limit: 1 }])];
  if (relations.length === 1) {
    const info = ctx.field(rel.target, field);
    const inner = [...first, { $project: { _id: 0, v: `$${storedPath(ctx.model(rel.target), field)}` } }];
    return { lookup: relationLookup(ctx, model, rel, inner, as), field: info };
  }
  const next = chainLookup(ctx, rel.target, relations.slice(1), scopes.slice(1), field, 'n');
  const inner = [...first, next.lookup, { $project: { _id: 0, v: { $arrayElemAt: ['$n.v', 0] } } }];
  return { lookup: relationLookup(ctx, model, rel, inner, as), field: next.field };
}

/**
 * Keyset condition: the records strictly after `after` in the sort order, any directions.
 * Nulls sort first ascending and last descending (MongoDB's order, the same on every driver).
 */
export function keysetMatch(keys: KeyPlan[], after: Scalar[]): Document {
  const branches: Document[] = [];
  for (let i = 0; i < keys.length; i++) {
    const equal = keys.slice(0, i).map((k, j) => ({ [k.path]: { $eq: storedValue(k.field, after[j] ?? null) } }));
    const beyond = afterValue(keys[i], storedValue(keys[i].field, after[i] ?? null));
    if (!beyond) continue;
    const parts = [...equal, beyond];
    branches.push(parts.length === 1 ? parts[0] : { $and: parts });
  }
  return branches.length ? { $or: branches } : { $expr: false };
}

function afterValue(key: KeyPlan, value: unknown): Document | null {
  const p = key.path;
  if (key.direction === 'asc') return value === null ? { [p]: { $ne: null } } : { [p]: { $gt: value } };
  if (value === null) return null; // nothing sorts after null descending
  return { $or: [{ [p]: { $lt: value } }, { [p]: { $eq: null } }] };
}
