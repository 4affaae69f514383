import { equalities } from '../../query/walk';
import type { Filter } from '../../query/ast';
import type { AccessPolicy } from './access-policy';
import { ownerFilter } from './ownership';
import type { ScopeProvider } from './query-pipeline';
import type { Registry } from '../declarations/registry';

/** A resource's own `scope` hook narrows it everywhere, like any other scope. */
export function hookScope(registry: Registry): ScopeProvider {
  return (model, ctx) => {
    const scope = registry.entry(model.name).declaration.hooks?.scope?.(ctx);
    if (!scope) return null;
    return 'kind' in scope && typeof scope.kind === 'string' ? (scope as Filter) : equalities(scope as never);
  };
}

/** "own" grants: lists, /first and relations show only the caller's records (decision 40). */
export function ownershipScope(policy: AccessPolicy): ScopeProvider {
  return (model, ctx) => {
    const reach = policy.possession(model, 'read', ctx);
    if (reach === 'any') return null;
    return ownerFilter(reach === 'own' ? model : { ...model, owner: null }, ctx);
  };
}
