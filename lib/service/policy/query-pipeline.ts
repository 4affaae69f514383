import type { Filter, ListQuery } from '../../query/ast';
import { applyScopes, type ScopeOf } from '../../query/transforms/apply-scopes';
import { allOf } from '../../query/walk';
import type { Catalog, ModelInfo } from '../../resource/model-info';
import { relationOf } from '../../resource/model-lookup';
import { openPolicy, type AccessPolicy } from './access-policy';
import { CatalogViews, narrowColumns, type CatalogView } from './catalog-view';
import type { RequestContext } from '../request-context';

/**
 * The records of a model a request may see (null: no narrowing). Soft delete, ownership, hooks'
 * `scope`. `root` is the query when the model is its root, null for relations and writes' checks.
 */
export type ScopeProvider = (model: ModelInfo, ctx: RequestContext, root: ListQuery | null) => Filter | null;


/**
 * The stage between parsing and compiling: every request's query passes here, so whatever narrows
 * visible records is applied once, the same way for both drivers and before the cache key is made.
 */
export class QueryPipeline {
  private readonly scopes: ScopeProvider[] = [];
  private accessPolicy: AccessPolicy = openPolicy;
  private readonly views: CatalogViews;

  constructor(private readonly catalog: Catalog) {
    this.views = new CatalogViews(catalog, () => this.accessPolicy);
  }

  /** Who may read and write what (the permission module sets it; default: everything). */
  get policy(): AccessPolicy {
    return this.accessPolicy;
  }

  setPolicy(policy: AccessPolicy): void {
    this.accessPolicy = policy;
    this.views.clear();
  }

  /** Forget restricted views (after grants are reloaded). */
  clearViews(): void {
    this.views.clear();
  }

  /** The catalog as the caller sees it: parse requests against this, never the declarations. */
  viewOf(ctx: RequestContext): CatalogView {
    return this.views.of(ctx);
  }

  addScope(provider: ScopeProvider): void {
    this.scopes.push(provider);
  }

  readonly targetOf = (model: string, relation: string): string => relationOf(this.catalog.model(model), relation).target;

  /** The combined scope of every provider, per model, for one request. */
  scopeOf(ctx: RequestContext): ScopeOf {
    return (model, root = null) => allOf(...this.scopes.map((scope) => scope(this.catalog.model(model), ctx, root)));
  }

  apply(query: ListQuery, ctx: RequestContext): ListQuery {
    const scoped = this.scopes.length ? applyScopes(query, this.scopeOf(ctx), this.targetOf) : query;
    return narrowColumns(scoped, this.viewOf(ctx));
  }
}
