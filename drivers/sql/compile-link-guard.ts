import type { LinkGuard } from '../../lib/driver';
import { compileFilter } from './compile-filter';
import { equalityOnly } from './prepare-policy';
import type { CompileContext } from './compile-context';
import type { CompiledLinkGuard } from './compile-pivot-sync';
import { ParamBuilder, quoteIdent } from './sql-builder';

/**
 * A guarded link's visibility conditions (PivotCapability.guardedLink), compiled as a list
 * compiles the same scopes: the parent by its key ($1) within its scope, each wanted row's related
 * key within the related model's. Values are bound after the link statement's own two ($1, $2);
 * `preparable` when both scopes are equality tests only (prepare-policy.ts's rule for a generic plan).
 */
export function compileLinkGuard(c: CompileContext, model: string, relation: string, guard: LinkGuard): CompiledLinkGuard & { preparable: boolean } {
  const params = new ParamBuilder([null, null]);
  const target = c.relation(model, relation).target;
  let parent: string | null = null;
  if (guard.parent !== undefined) {
    const p = params.alias('g');
    const scope = guard.parent ? ` AND ${compileFilter(guard.parent, c, model, p, params)}` : '';
    parent = `SELECT 1 FROM ${c.table(model)} AS ${quoteIdent(p)} WHERE ${c.column(model, p, c.model(model).key)} = $1${scope}`;
  }
  const r = params.alias('g');
  const scope = guard.related ? ` AND ${compileFilter(guard.related, c, target, r, params)}` : '';
  // OFFSET 0 keeps the EXISTS a subplan run per wanted row (one probe of the key's index each):
  // as a semi-join PostgreSQL may hash the whole related table instead (measured: 5,000 tags
  // scanned for a sync of 100, 0.55 ms), a cost that grows with the table, not with the request
  const related = (key: string) => `EXISTS (SELECT 1 FROM ${c.table(target)} AS ${quoteIdent(r)} WHERE ${c.column(target, r, c.model(target).key)} = ${key}${scope} OFFSET 0)`;
  const preparable = equalityOnly(guard.parent ?? null, c, model) && equalityOnly(guard.related, c, target);
  return { parent, related, bind: params.bind.slice(2), preparable };
}
