import type { Id } from '../../driver';
import type { Filter, Scalar } from '../../query/ast';
import { allOf } from '../../query/walk';
import type { RequestContext } from '../request-context';

/** What a relation column's lookup needs of the related resource's service (its door and read rules). */
export interface LookupSource {
  readonly name: string;
  rootScope(query: null, ctx: RequestContext): Filter | null;
  listKeys(field: string, filter: Filter, ctx: RequestContext): Promise<Array<{ key: Id; value: unknown }>>;
}

/**
 * Decision 82's to-one columns (`user.email`): the keys of the related records whose unique `field`
 * holds one of `values`, as the caller may read them (a record they cannot read is unknown, no
 * existence oracle): one query for a chunk of rows, never one per row.
 */
export async function lookupKeys(source: LookupSource, field: string, values: Scalar[], ctx: RequestContext): Promise<Map<string, Id>> {
  const found = new Map<string, Id>();
  const distinct = [...new Set(values.filter((v) => v !== null && v !== undefined && v !== ''))];
  if (distinct.length === 0) return found;
  const byValue: Filter = { kind: 'condition', field, operator: 'in', value: distinct };
  const rows = await source.listKeys(field, allOf(byValue, source.rootScope(null, ctx))!, ctx);
  for (const row of rows) found.set(String(row.value), row.key);
  return found;
}
