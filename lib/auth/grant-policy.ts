import type { ModelInfo } from '../resource/model-info';
import type { AccessAction, AccessPolicy, Possession } from '../service/policy/access-policy';
import type { RequestContext } from '../service/request-context';
import type { PermissionStore } from './permission-store';

const NOTHING: ReadonlySet<string> = new Set();

/**
 * The access policy over accesscontrol grants. Resources are named by their route segment
 * (`products`); a superuser reaches everything; a resource/action no role holds a grant for is
 * reached by no one (strict, the default: decision 63), or by everyone in lenient mode.
 */
export class GrantPolicy implements AccessPolicy {
  private readonly prohibited = new Map<string, ReadonlySet<string>>();

  constructor(
    private readonly store: PermissionStore,
    private readonly resourceOf: (model: ModelInfo) => string,
    private readonly strict: boolean,
  ) {}

  clear(): void {
    this.prohibited.clear();
  }

  possession(model: ModelInfo, action: AccessAction, ctx: RequestContext): Possession | null {
    if (ctx.user?.is_superuser === true) return 'any';
    const resource = this.resourceOf(model);
    if (!this.store.exists(resource, action)) return this.strict ? null : 'any';
    return this.store.possession(ctx.roles, resource, action);
  }

  hiddenFields(model: ModelInfo, ctx: RequestContext): ReadonlySet<string> {
    if (ctx.user?.is_superuser === true) return NOTHING;
    const resource = this.resourceOf(model);
    if (!this.store.exists(resource, 'read')) return NOTHING;
    const fields = Object.keys(model.fields).filter((f) => !model.fields[f].writeOnly);
    const readable = this.store.readableFields(ctx.roles, resource, fields);
    return new Set(fields.filter((f) => !readable.has(f)));
  }

  /** fieldsByRole: a field listed under a role is writable only by holders of that role (decision 39). */
  prohibitedFields(model: ModelInfo, ctx: RequestContext): ReadonlySet<string> {
    if (ctx.user?.is_superuser === true) return NOTHING;
    const held = new Set(ctx.roles);
    const key = `${model.name}\u0001${[...held].sort().join('\u0000')}`;
    let result = this.prohibited.get(key);
    if (!result) {
      const allowed = new Set(Object.entries(model.fieldsByRole).filter(([role]) => held.has(role)).flatMap(([, fields]) => fields));
      result = new Set(Object.values(model.fieldsByRole).flat().filter((f) => !allowed.has(f)));
      this.prohibited.set(key, result);
    }
    return result;
  }

  viewKey(ctx: RequestContext): string {
    if (ctx.user?.is_superuser === true) return '';
    return `${this.store.generation}\u0001${[...new Set(ctx.roles)].sort().join('\u0000')}`;
  }
}
