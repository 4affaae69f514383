import { BadRequestError } from '../errors';
import type { RestConfig } from '../config';
import type { Catalog, ModelInfo } from '../resource/model-info';
import type { Direction, OrderKey } from './ast';
import { columnField } from './check-field';
import { decodeParam, isAbsent } from './json-param';
import { relationStep } from './relation-path';
import { clientEntries, isPlainObject } from './safe-keys';

const PARAM = 'orderby';

function direction(raw: unknown, field: string): Direction {
  const text = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (text === 'asc' || text === 'desc') return text;
  const shown = typeof raw === 'string' ? raw : JSON.stringify(raw);
  throw new BadRequestError(`Invalid direction "${shown}" for orderby field "${field}"; use asc or desc.`, PARAM);
}

/** `category.name`: every segment but the last a to-one relation in the allowlist (decision 13). */
function orderKey(path: string, dir: Direction, model: ModelInfo, catalog: Catalog, config: RestConfig): OrderKey | null {
  const segments = path.split('.').map((s) => s.trim());
  if (segments.some((s) => s === '')) throw new BadRequestError(`Invalid orderby field "${path}".`, PARAM);
  const relations: string[] = [];
  let current = model;
  // each relation is a join (a nested $lookup): a long to-one chain (`parent.parent...`) is bounded like an eager load
  if (segments.length - 1 > config.maxRelationDepth) {
    throw new BadRequestError(
      `Orderby field "${path.length > 200 ? `${path.slice(0, 200)}...` : path}" goes through ${segments.length - 1} relations; at most ${config.maxRelationDepth} (REST_MAX_RELATION_DEPTH).`,
      PARAM,
    );
  }
  for (const name of segments.slice(0, -1)) {
    const step = relationStep(current, name, catalog, PARAM);
    if (step.relation.kind !== 'belongsTo' && step.relation.kind !== 'hasOne') {
      throw new BadRequestError(`Relation "${name}" cannot be used in orderby: only to-one relations (belongsTo, hasOne) are sort keys.`, PARAM);
    }
    relations.push(name);
    current = step.target;
  }
  const where = relations.length ? `orderby (relation "${relations.join('.')}")` : PARAM;
  const field = columnField(current, segments[segments.length - 1], where, PARAM, config);
  return field ? { relations, field: field.name, direction: dir } : null;
}

function entries(value: unknown): Array<[string, unknown]> {
  const objects = Array.isArray(value) ? value : [value];
  const out: Array<[string, unknown]> = [];
  for (const obj of objects) {
    if (!isPlainObject(obj)) {
      throw new BadRequestError(`Parameter "orderby" must be an array of {field: direction} objects or one such object.`, PARAM);
    }
    out.push(...clientEntries(obj, PARAM));
  }
  return out;
}

const same = (a: OrderKey, b: OrderKey) => a.field === b.field && a.relations.join('.') === b.relations.join('.');

/** `orderby` -> sort keys, the primary key appended last as tie-breaker (asc unless present). */
export function parseOrder(raw: unknown, model: ModelInfo, catalog: Catalog, config: RestConfig): OrderKey[] {
  const order: OrderKey[] = [];
  const value = decodeParam(PARAM, raw);
  if (!isAbsent(value)) {
    for (const [path, dirRaw] of entries(value)) {
      const key = orderKey(path, direction(dirRaw, path), model, catalog, config);
      if (key && !order.some((k) => same(k, key))) order.push(key);
    }
  }
  const pk: OrderKey = { relations: [], field: model.key, direction: 'asc' };
  if (!order.some((k) => same(k, pk))) order.push(pk);
  return order;
}
