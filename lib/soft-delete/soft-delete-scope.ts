import type { Filter } from '../query/ast';
import type { ScopeProvider } from '../service/policy/query-pipeline';

/**
 * Trashed records are hidden everywhere (lists, first, show, eager loads at any depth, relation
 * filters, writes' existence checks, counts) by one scope; only the root of a query may ask for
 * them (`soft_delete=with|only`).
 */
export const softDeleteScope: ScopeProvider = (model, _ctx, root) => {
  if (!model.softDelete) return null;
  const trashed = root?.trashed;
  if (trashed === 'with') return null;
  const filter: Filter = { kind: 'condition', field: model.softDelete, operator: trashed === 'only' ? 'not null' : 'null' };
  return filter;
};
