import type { RestConfig } from '../config';
import type { Catalog, ModelInfo } from '../resource/model-info';
import type { ReadOptions } from './ast';
import type { Filter, ListQuery } from './ast';
import { decodeCursor } from './cursor';
import { loadColumns, rootColumns } from './key-columns';
import type { RequestParams } from './merge-params';
import { applyNestedFilters } from './nested-filters';
import { parseAttr } from './parse-attr';
import { combine, parseFilter } from './parse-filter';
import { parseOrder } from './parse-order';
import { parsePagination } from './parse-pagination';
import { parseRelationTree, toRelationLoads } from './parse-relations';
import { parseSelect } from './parse-select';
import { readBoolean } from './read-boolean';
import { parseSoftDelete } from './parse-soft-delete';

/** A ListQuery plus the request facts that are not part of the driver's query. */
export interface ParsedListQuery extends ListQuery {
}

const param = (params: RequestParams, name: string): unknown =>
  Object.prototype.hasOwnProperty.call(params, name) ? params[name] : undefined;

/**
 * Parsed `select` + `relations` per settings, catalog view (the caller's readable fields) and
 * parameter text: the same request shape parses once. Frozen, since every request that asks the
 * same gets the same object (the query pipeline copies what it changes); bounded per view.
 */
const parsedReadOptions = new WeakMap<RestConfig, WeakMap<Catalog, Map<string, ReadOptions>>>();
const PARSED_PER_VIEW = 200;
const MAX_CACHED_TEXT = 500;

function readOptionsKey(model: ModelInfo, relations: unknown, select: unknown): string | null {
  const text = (value: unknown): value is string | undefined => value === undefined || (typeof value === 'string' && value.length <= MAX_CACHED_TEXT);
  const part = (value: string | undefined): string => (value === undefined ? '\u0001' : value);
  return text(relations) && text(select) ? `${model.name}\u0000${part(relations)}\u0000${part(select)}` : null;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** select + relations with their key columns (decision 12). */
export function parseReadOptions(params: RequestParams, model: ModelInfo, catalog: Catalog, config: RestConfig): ReadOptions {
  const rawRelations = param(params, 'relations');
  const rawSelect = param(params, 'select');
  const key = readOptionsKey(model, rawRelations, rawSelect);
  const known = key === null ? undefined : parsedReadOptions.get(config)?.get(catalog);
  const hit = key === null ? undefined : known?.get(key);
  if (hit) return hit;
  const tree = parseRelationTree(rawRelations, model, catalog, config);
  const select = parseSelect(rawSelect, model, config);
  const options: ReadOptions = { select: rootColumns(model, select, tree), relations: toRelationLoads(tree, loadColumns) };
  if (key === null) return options;
  let views = parsedReadOptions.get(config);
  if (!views) parsedReadOptions.set(config, (views = new WeakMap()));
  let map = views.get(catalog);
  if (!map) views.set(catalog, (map = new Map()));
  if (map.size < PARSED_PER_VIEW) map.set(key, deepFreeze(options));
  return options;
}

/**
 * index and /first: every list parameter -> ListQuery. `hierarchy`, `cache`, `cache_ttl` and
 * `soft_delete` are read elsewhere. forFirst: no page, limit 1.
 */
export function parseListQuery(
  params: RequestParams,
  model: ModelInfo,
  catalog: Catalog,
  config: RestConfig,
  options: { forFirst?: boolean } = {},
): ParsedListQuery {
  const { select, relations } = parseReadOptions(params, model, catalog, config);
  const parsed = parseFilter(param(params, 'oper'), model, catalog, config);
  const attr = parseAttr(param(params, 'attr'), param(params, 'eq'), model);
  const filter: Filter | null = combine('and', [...(parsed.filter ? [parsed.filter] : []), ...attr]);
  const nested = readBoolean(params, '_nested') === true;
  const order = parseOrder(param(params, 'orderby'), model, catalog, config);
  const page = options.forFirst
    ? null
    : parsePagination(param(params, 'pagination'), config, (cursor) => decodeCursor(cursor, model, filter, order, catalog));
  return {
    model: model.name,
    filter,
    select,
    relations: nested ? applyNestedFilters(relations, parsed.relationFilters) : relations,
    order,
    page,
    // without pagination one row more than the cap is read, so the envelope can say the list was cut
    limit: options.forFirst ? 1 : page ? null : config.maxUnpaginated + 1,
    ...(relations.length > 0 ? { loadLimit: config.maxLoadedRecords } : {}),
    ...withTrashed(params, model),
  };
}

/** `soft_delete` of a soft-deletable root; other resources ignore it (spec: accepted and passed on). */
export function withTrashed(params: RequestParams, model: ModelInfo): Pick<ListQuery, 'trashed'> {
  const trashed = parseSoftDelete(params);
  return model.softDelete && trashed ? { trashed } : {};
}
