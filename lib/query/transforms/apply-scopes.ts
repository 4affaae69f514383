import type { Filter, ListQuery, OrderKey } from '../ast';
import { allOf, mapFilter, mapLoads } from '../walk';

/**
 * The records of `model` a request may see, as a filter (null: all). `root` is the query when
 * `model` is its root (root-only options such as `soft_delete` apply there), null elsewhere.
 */
export type ScopeOf = (model: string, root?: ListQuery | null) => Filter | null;

/**
 * Narrows every model a query reaches to its scope (ownership, soft delete, ...): the root filter,
 * each relation existence filter, each eager-loaded relation at any depth and each relation a sort
 * key goes through (a record outside its scope sorts as absent: no order tells what it holds). One transform, so
 * no read path can forget a scope and both compilers (and the cache key) see one canonical query.
 */
export function applyScopes(query: ListQuery, scopeOf: ScopeOf, targetOf: (model: string, relation: string) => string): ListQuery {
  const narrowed = query.filter
    ? mapFilter(query.filter, query.model, targetOf, (node, model) => {
        if (node.kind !== 'related') return node;
        const scope = scopeOf(targetOf(model, node.relation));
        return scope ? { ...node, filter: allOf(node.filter, scope) } : node;
      })
    : null;
  return {
    ...query,
    filter: allOf(narrowed, scopeOf(query.model, query)),
    order: query.order.map((key) => scopeOrderKey(key, query.model, scopeOf, targetOf)),
    relations: mapLoads(query.relations, query.model, targetOf, (load, target) => {
      const scope = scopeOf(target);
      return scope ? { ...load, filter: allOf(load.filter, scope) } : load;
    }),
  };
}

/** A sort key through relations, with the scope of each relation's target (unchanged when none has one). */
function scopeOrderKey(key: OrderKey, root: string, scopeOf: ScopeOf, targetOf: (model: string, relation: string) => string): OrderKey {
  if (key.relations.length === 0) return key;
  let model = root;
  const scopes = key.relations.map((relation) => scopeOf((model = targetOf(model, relation))));
  return scopes.some((scope) => scope !== null) ? { ...key, scopes } : key;
}
