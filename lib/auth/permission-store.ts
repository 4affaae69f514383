import type { AccessAction, Possession } from '../service/policy/access-policy';

/** accesscontrol's grants: `{role: {resource: {'read:any': ['*', '!cost']}}}` or a list of rows. */
export type Grants = Record<string, unknown> | Array<Record<string, unknown>>;

/** The part of accesscontrol's AccessControl this store uses. */
interface AccessControlLike {
  setGrants(grants: Grants): unknown;
  getGrants(): Record<string, Record<string, Record<string, string[]>>>;
  hasRole(role: string): boolean;
  permission(query: { role: string[]; resource: string; action: string; possession: string }): { granted: boolean; filter(data: object): object };
}

function loadAccessControl(): new () => AccessControlLike {
  try {
    // optional peer: an application without permissions never loads it
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('accesscontrol') as { AccessControl: new () => AccessControlLike }).AccessControl;
  } catch {
    throw new Error('Permissions (auth.grants) need the accesscontrol package: npm install accesscontrol');
  }
}

/**
 * The grants, in memory (accesscontrol), loaded once and answered without any query. `reload`
 * swaps them when the application's grants change; cached answers are dropped with them.
 */
export class PermissionStore {
  private readonly ac: AccessControlLike;
  private known = new Set<string>();
  private resources = new Set<string>();
  private readonly readable = new Map<string, ReadonlySet<string>>();
  private version = 0;

  constructor(grants: Grants) {
    const AccessControl = loadAccessControl();
    this.ac = new AccessControl();
    this.reload(grants);
  }

  /** Replaces every grant (accesscontrol validates them: a malformed grant throws here, not per request). */
  reload(grants: Grants): void {
    this.ac.setGrants(grants);
    this.known = new Set();
    this.resources = new Set();
    for (const resources of Object.values(this.ac.getGrants())) {
      for (const [resource, actions] of Object.entries(resources)) {
        if (resource === '$extend') continue;
        this.resources.add(resource);
        for (const key of Object.keys(actions)) this.known.add(`${resource}:${key.split(':')[0]}`);
      }
    }
    this.readable.clear();
    this.version += 1;
  }

  /** Changes on every reload (views cached over grants key on it). */
  get generation(): number {
    return this.version;
  }

  /** True when some grant names `resource`. */
  hasResource(resource: string): boolean {
    return this.resources.has(resource);
  }

  /** True when some role holds a grant for `action` on `resource` (the spec's "exists in the permission cache"). */
  exists(resource: string, action: AccessAction): boolean {
    return this.known.has(`${resource}:${action}`);
  }

  /** How far the roles' grants for `action` on `resource` reach: any record, only their own, or none. */
  possession(roles: readonly string[], resource: string, action: AccessAction): Possession | null {
    const held = this.held(roles);
    if (held.length === 0) return null;
    if (this.ac.permission({ role: held, resource, action, possession: 'any' }).granted) return 'any';
    if (this.ac.permission({ role: held, resource, action, possession: 'own' }).granted) return 'own';
    return null;
  }

  /** The fields the roles' read grant lets them see (its attributes, globs and negations applied). */
  readableFields(roles: readonly string[], resource: string, fields: readonly string[]): ReadonlySet<string> {
    const held = this.held(roles);
    const key = `${held.join('\u0000')}\u0001${resource}`;
    let result = this.readable.get(key);
    if (!result) {
      const possession = this.possession(held, resource, 'read');
      if (!possession) result = new Set();
      else {
        const permission = this.ac.permission({ role: held, resource, action: 'read', possession });
        result = new Set(Object.keys(permission.filter(Object.fromEntries(fields.map((f) => [f, true])))));
      }
      this.readable.set(key, result);
    }
    return result;
  }

  /** Roles accesscontrol knows, sorted (unknown role names in a user record grant nothing). */
  private held(roles: readonly string[]): string[] {
    return [...new Set(roles)].filter((r) => this.ac.hasRole(r)).sort();
  }
}
