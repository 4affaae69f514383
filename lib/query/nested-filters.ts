import type { RelationLoad } from './ast';
import type { RelationFilters } from './parse-filter';

/**
 * `_nested`: each load whose relation path was used as a relation key in `oper` (in an AND
 * position) also gets that relation's sub-filter, so the loaded records are narrowed too.
 */
export function applyNestedFilters(loads: RelationLoad[], filters: RelationFilters, prefix = ''): RelationLoad[] {
  return loads.map((load) => {
    const path = prefix === '' ? load.name : `${prefix}.${load.name}`;
    return {
      ...load,
      filter: filters.get(path) ?? null,
      children: applyNestedFilters(load.children, filters, path),
    };
  });
}
