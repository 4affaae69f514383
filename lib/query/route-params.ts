/**
 * The parameters each generated route reads (decision 64): any other name in its query string
 * (and, for reads, in its JSON body) is a 400. From the spec's endpoint tables plus what the
 * library adds (soft_delete, cache on the cached reads, template on PDF exports).
 */

/** What a list reads: filter, shape, order, page (spec "Request parameters"). */
export const LIST_PARAMS = ['oper', 'attr', 'eq', 'select', 'relations', 'orderby', 'pagination', '_nested', 'soft_delete'] as const;
const CACHE = ['cache', 'cache_ttl'];
const SHOW = ['select', 'relations', 'soft_delete'];
const EXPORT = [...LIST_PARAMS, 'columns', 'filename'];
const PDF = [...EXPORT, 'template'];
/** Spec: getOne takes the same parameters as index (pagination and hierarchy do not change one record). */
const INDEX = [...LIST_PARAMS, 'hierarchy', ...CACHE];

/** Aggregates (decision 55): the list's filter parameters, then groups, functions, order and page of groups. */
export const AGGREGATE_PARAMS = ['oper', 'attr', 'eq', 'soft_delete', 'group_by', 'aggregate', 'having', 'orderby', 'pagination'] as const;

const BY_ACTION: Record<string, readonly string[]> = {
  index: INDEX,
  first: INDEX,
  aggregate: [...AGGREGATE_PARAMS, ...CACHE],
  // the change feed (decision 61): own-field filters and select
  changes: ['oper', 'attr', 'eq', 'select'],
  // orderby orders a tree's siblings (hierarchy)
  show: [...SHOW, 'hierarchy', 'orderby', ...CACHE],
  exportExcel: EXPORT,
  exportPdf: PDF,
  // writes read their body only
  store: [],
  validate: [],
  // decision 79
  upsert: [],
  // decision 83: a record's history (its page) and a revert (no parameters)
  history: ['pagination', 'soft_delete'],
  revert: [],
  // decision 82: the file is the body; its options travel in the query
  import: ['mode', 'match', 'on_error'],
  update: [],
  updatePatch: [],
  updateMultiple: [],
  updateMultipleAlias: [],
  destroy: [],
  deleteById: [],
  restore: [],
  forceDelete: [],
  // relation routes: lists without the tree and the cache (neither applies to them), writes with their scenario
  'relation.index': LIST_PARAMS,
  'relation.show': SHOW,
  'relation.exportExcel': EXPORT,
  'relation.exportPdf': PDF,
  'relation.store': ['_scenario'],
  'relation.updateMany': ['_scenario'],
  'relation.destroyMany': ['_scenario'],
  'relation.attach': ['_scenario'],
  'relation.detachMany': ['_scenario'],
  'relation.updatePivotMany': ['_scenario'],
  'relation.update': [],
  'relation.destroy': [],
  'relation.detach': [],
  'relation.updatePivot': [],
};

/**
 * The parameters a route accepts, by its action; null for an action this table does not know
 * (a route added by a feature or an application is not checked until it is listed here).
 */
export function routeParams(action: string): readonly string[] | null {
  return Object.prototype.hasOwnProperty.call(BY_ACTION, action) ? BY_ACTION[action] : null;
}
