import type { RestConfig } from '../config';
import type { Catalog, ModelInfo } from '../resource/model-info';
import type { ReadOptions } from '../driver';
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
  /** `_nested`: relation filters also narrow the loaded relation data (already applied to `relations`). */
  nested: boolean;
}

const param = (params: RequestParams, name: string): unknown =>
  Object.prototype.hasOwnProperty.call(params, name) ? params[name] : undefined;

/** select + relations with their key columns (decision 12). */
export function parseReadOptions(params: RequestParams, model: ModelInfo, catalog: Catalog, config: RestConfig): ReadOptions {
  const tree = parseRelationTree(param(params, 'relations'), model, catalog, config);
  const select = parseSelect(param(params, 'select'), model, config);
  return { select: rootColumns(model, select, tree), relations: toRelationLoads(tree, loadColumns) };
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
    nested,
    ...withTrashed(params, model),
  };
}

/** `soft_delete` of a soft-deletable root; other resources ignore it (spec: accepted and passed on). */
export function withTrashed(params: RequestParams, model: ModelInfo): Pick<ListQuery, 'trashed'> {
  const trashed = parseSoftDelete(params);
  return model.softDelete && trashed ? { trashed } : {};
}
