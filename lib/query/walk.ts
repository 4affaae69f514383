import type { Filter, ListQuery, RelationLoad, Scalar } from './ast';
import { combine } from './parse-filter';

/** AND of the given filters (nulls dropped, nested ANDs flattened); null when none is left. */
export function allOf(...filters: Array<Filter | null | undefined>): Filter | null {
  return combine('and', filters.filter((f): f is Filter => !!f));
}

/** `field = value` for each member of a plain object; a null value means `field is null`. */
export function equalities(values: Record<string, Scalar>): Filter | null {
  return allOf(
    ...Object.entries(values).map(([field, value]): Filter =>
      value === null ? { kind: 'condition', field, operator: 'null' } : { kind: 'condition', field, operator: '=', value },
    ),
  );
}

/**
 * Rebuilds a filter tree bottom-up: `visit` sees every node after its children were rebuilt and
 * may return a replacement. `model` is the model the node's fields belong to (relation filters
 * switch it to their target), resolved through `targetOf`.
 */
export function mapFilter(
  filter: Filter,
  model: string,
  targetOf: (model: string, relation: string) => string,
  visit: (node: Filter, model: string) => Filter,
): Filter {
  switch (filter.kind) {
    case 'and':
    case 'or':
      return visit({ kind: filter.kind, filters: filter.filters.map((f) => mapFilter(f, model, targetOf, visit)) }, model);
    case 'related': {
      const target = targetOf(model, filter.relation);
      const inner = filter.filter ? mapFilter(filter.filter, target, targetOf, visit) : null;
      return visit({ ...filter, filter: inner }, model);
    }
    default:
      return visit(filter, model);
  }
}

/** Rebuilds an eager-load tree; `visit` sees each load (children already rebuilt) with its target model. */
export function mapLoads(
  loads: RelationLoad[],
  model: string,
  targetOf: (model: string, relation: string) => string,
  visit: (load: RelationLoad, target: string) => RelationLoad,
): RelationLoad[] {
  return loads.map((load) => {
    const target = targetOf(model, load.name);
    return visit({ ...load, children: mapLoads(load.children, target, targetOf, visit) }, target);
  });
}

/** Every model a query reads: the root, relation filters and eager loads at any depth (cache versions). */
export function modelsRead(query: ListQuery, targetOf: (model: string, relation: string) => string): string[] {
  const seen = new Set<string>([query.model]);
  if (query.filter) mapFilter(query.filter, query.model, targetOf, (node, model) => (seen.add(model), node));
  mapLoads(query.relations, query.model, targetOf, (load, target) => (seen.add(target), load));
  for (const key of query.order) {
    let model = query.model;
    for (const rel of key.relations) seen.add((model = targetOf(model, rel)));
  }
  return [...seen];
}
