import { BadRequestError } from '../errors';
import type { RestConfig } from '../config';
import type { Catalog, FieldInfo, FieldType, ModelInfo } from '../resource/model-info';
import type { Direction, Filter, ListQuery, OffsetPage } from './ast';
import { AGGREGATE_FUNCTIONS, type AggregateFunction, type AggregateOrderKey, type AggregateQuery, type GroupKey, type Measure } from './aggregate-ast';
import { filterField } from './check-field';
import { decodeParam, isAbsent } from './json-param';
import type { RequestParams } from './merge-params';
import { parseAttr } from './parse-attr';
import { combine, parseFilter } from './parse-filter';
import { withTrashed } from './parse-list-query';
import { parsePagination } from './parse-pagination';
import { parseGroupBy } from './parse-group-by';
import { measureName, parseHaving } from './parse-having';
import { clientEntries, isPlainObject } from './safe-keys';

export { MAX_GROUPS } from './parse-group-by';
export { measureName } from './parse-having';
export const MAX_MEASURES = 20;

/** Field types each function takes (decision 55); count and count_distinct take any scalar field. */
const SCALAR: FieldType[] = ['string', 'number', 'integer', 'boolean', 'date', 'id'];
const TYPES: Record<AggregateFunction, FieldType[]> = {
  count: SCALAR,
  count_distinct: SCALAR,
  sum: ['number', 'integer'],
  avg: ['number', 'integer'],
  min: ['number', 'integer', 'date', 'string'],
  max: ['number', 'integer', 'date', 'string'],
};

/** A parsed aggregate request: the query (filter not yet scoped) and the root's `soft_delete`. */
export interface ParsedAggregate {
  query: AggregateQuery;
  trashed: ListQuery['trashed'];
}

const param = (params: RequestParams, name: string): unknown => (Object.prototype.hasOwnProperty.call(params, name) ? params[name] : undefined);

/** A readable field of `model` (unknown and write-only alike: a 400 naming it, decision 57). */
function readable(model: ModelInfo, name: string, where: string, parameter: string): FieldInfo {
  return filterField(model, name, where, parameter);
}

function fieldList(fn: string, value: unknown): string[] {
  const items = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(items) || items.some((i) => typeof i !== 'string')) {
    throw new BadRequestError(`Function "${fn}" in aggregate takes an array of field names${fn === 'count' ? ' or "*"' : ''}.`, 'aggregate');
  }
  const names = (items as string[]).map((i) => i.trim()).filter((i) => i !== '');
  if (names.length === 0) throw new BadRequestError(`Function "${fn}" in aggregate names no field.`, 'aggregate');
  return names;
}

/** `aggregate`: {function: [fields]}; `count` also takes "*"; absent: {"count": "*"}. At most 20 pairs. */
export function parseMeasures(raw: unknown, model: ModelInfo): Measure[] {
  const value = decodeParam('aggregate', raw);
  if (isAbsent(value)) return [{ fn: 'count', field: null }];
  if (!isPlainObject(value)) throw new BadRequestError('Parameter "aggregate" must be an object {function: [fields]}, e.g. {"count": "*", "sum": ["price"]}.', 'aggregate');
  const measures: Measure[] = [];
  for (const [fn, fields] of clientEntries(value, 'aggregate')) {
    if (!(AGGREGATE_FUNCTIONS as readonly string[]).includes(fn)) {
      throw new BadRequestError(`Unknown aggregate function "${fn}". Functions: ${AGGREGATE_FUNCTIONS.join(', ')}.`, 'aggregate');
    }
    const names = fieldList(fn, fields);
    if (fn === 'count' && names.includes('*') && names.length > 1) {
      throw new BadRequestError('Function "count" in aggregate takes "*" or a list of fields, not both.', 'aggregate');
    }
    for (const name of names) {
      if (name === '*') {
        if (fn !== 'count') throw new BadRequestError(`Function "${fn}" in aggregate does not take "*"; name a field.`, 'aggregate');
        measures.push({ fn: 'count', field: null });
        continue;
      }
      const field = readable(model, name, `aggregate (${fn})`, 'aggregate');
      if (!TYPES[fn as AggregateFunction].includes(field.type)) {
        throw new BadRequestError(`Function "${fn}" cannot take field "${name}" (a ${field.type} field); ${fn} takes ${TYPES[fn as AggregateFunction].join(', ')} fields.`, 'aggregate');
      }
      if (!measures.some((m) => m.fn === fn && m.field === field.name)) measures.push({ fn: fn as AggregateFunction, field: field.name });
    }
  }
  if (measures.length === 0) return [{ fn: 'count', field: null }];
  if (measures.length > MAX_MEASURES) throw new BadRequestError(`Parameter "aggregate" takes at most ${MAX_MEASURES} function-field pairs (got ${measures.length}).`, 'aggregate');
  return measures;
}

function direction(raw: unknown, key: string): Direction {
  const text = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (text === 'asc' || text === 'desc') return text;
  throw new BadRequestError(`Invalid direction "${typeof raw === 'string' ? raw : JSON.stringify(raw)}" for orderby key "${key}"; use asc or desc.`, 'orderby');
}

/**
 * `orderby` over the answer: group fields, `count` and `<function>.<field>` of this request; then
 * every group field ascending (default order, and the tie-breaker that makes pages stable).
 */
export function parseAggregateOrder(raw: unknown, groups: GroupKey[], measures: Measure[]): AggregateOrderKey[] {
  const order: AggregateOrderKey[] = [];
  const value = decodeParam('orderby', raw);
  if (!isAbsent(value)) {
    const objects = Array.isArray(value) ? value : [value];
    for (const obj of objects) {
      if (!isPlainObject(obj)) throw new BadRequestError('Parameter "orderby" must be an array of {key: direction} objects or one such object.', 'orderby');
      for (const [name, dir] of clientEntries(obj, 'orderby')) {
        const key = name.trim();
        const group = groups.findIndex((g) => g.name === key);
        const measure = group >= 0 ? -1 : measures.findIndex((m) => measureName(m) === key);
        if (group < 0 && measure < 0) {
          const known = [...groups.map((g) => g.name), ...measures.map(measureName)].join(', ');
          throw new BadRequestError(`Unknown orderby key "${key}": order by a group_by field or an aggregate of this request (${known}).`, 'orderby');
        }
        const kind = group >= 0 ? 'group' : 'measure';
        const index = group >= 0 ? group : measure;
        if (!order.some((k) => k.kind === kind && k.index === index)) order.push({ kind, index, direction: direction(dir, key) });
      }
    }
  }
  groups.forEach((_, index) => {
    if (!order.some((k) => k.kind === 'group' && k.index === index)) order.push({ kind: 'group', index, direction: 'asc' });
  });
  return order;
}

/** `pagination` of groups: offset pages only; absent: every group up to REST_MAX_UNPAGINATED. */
export function parseAggregatePage(raw: unknown, config: RestConfig): OffsetPage {
  const page = parsePagination(raw, config, () => {
    throw new BadRequestError('Aggregates are paged by page and pageSize in pagination; a cursor is not supported.', 'pagination');
  });
  if (page === null) return { kind: 'offset', page: 1, size: config.maxUnpaginated };
  if (page.kind !== 'offset') throw new BadRequestError('Aggregates are paged by page and pageSize in pagination; infinity (cursor pages) is not supported.', 'pagination');
  return page;
}

/** GET /{resource}/aggregate: the list's filter parameters, then group_by, aggregate, having, orderby, pagination. */
export function parseAggregate(params: RequestParams, model: ModelInfo, catalog: Catalog, config: RestConfig): ParsedAggregate {
  const parsed = parseFilter(param(params, 'oper'), model, catalog, config);
  const attr = parseAttr(param(params, 'attr'), param(params, 'eq'), model);
  const filter: Filter | null = combine('and', [...(parsed.filter ? [parsed.filter] : []), ...attr]);
  const parsedGroups = parseGroupBy(param(params, 'group_by'), model, catalog);
  const groups = parsedGroups.map((g) => g.key);
  const measures = parseMeasures(param(params, 'aggregate'), model);
  const having = parseHaving(param(params, 'having'), model, parsedGroups, measures, config);
  const order = parseAggregateOrder(param(params, 'orderby'), groups, measures);
  const page = parseAggregatePage(param(params, 'pagination'), config);
  return { query: { model: model.name, filter, groups, measures, order, page, having }, trashed: withTrashed(params, model).trashed };
}
