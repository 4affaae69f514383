/** What a route's records support, for the parameters that only some resources take. */
export interface ParamScope {
  /** The resource the records belong to (the related resource on relation routes). */
  resource: string;
  softDelete: boolean;
  hierarchy: boolean;
}

/**
 * The parameters of a route's table entry that its records do not support, each with the 400's
 * message: `soft_delete` where the resource is not soft-deletable, `hierarchy` where it has no
 * HIERARCHY_FIELD_ID (issue 44). Neither is accepted nor documented there.
 */
export function inapplicableParams(own: readonly string[], scope: ParamScope): ReadonlyMap<string, string> {
  const found = new Map<string, string>();
  if (!scope.softDelete && own.includes('soft_delete')) {
    found.set('soft_delete', `Parameter "soft_delete" does not apply to ${scope.resource}: the resource is not soft-deletable (its declaration has no softDelete), so there are no trashed records to include.`);
  }
  if (!scope.hierarchy && own.includes('hierarchy')) {
    found.set('hierarchy', `Parameter "hierarchy" does not apply to ${scope.resource}: the resource has no hierarchy (its declaration has no HIERARCHY_FIELD_ID).`);
  }
  return found;
}
