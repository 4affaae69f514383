import type { RequestContext } from './request-context';

/** The roles field a resource's `grantableRoles` guards (default `roles`). */
export const DEFAULT_ROLES_FIELD = 'roles';

/** What the write path checks for one request: the guarded field, and the message for a value (null: allowed). */
export interface RolesRule {
  field: string;
  check(value: unknown): string | null;
}

/**
 * Decision 68: roles are data a caller can write. With `grantableRoles: {admin: ['viewer', ...]}`
 * a caller may write into the roles field only the names its own roles may grant (the union over
 * the roles it holds); a superuser writes any. null: nothing to check (no declaration, or a superuser).
 * Only the names written are checked: a value that removes a role is not refused for it.
 */
export function rolesRule(grantable: Readonly<Record<string, readonly string[]>> | undefined, field: string | undefined, ctx: RequestContext): RolesRule | null {
  if (!grantable || ctx.user?.is_superuser === true) return null;
  const allowed = new Set<string>();
  for (const role of ctx.roles) {
    if (Object.prototype.hasOwnProperty.call(grantable, role)) for (const name of grantable[role]) allowed.add(name);
  }
  const name = field ?? DEFAULT_ROLES_FIELD;
  return {
    field: name,
    check(value) {
      const written = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
      const refused = [...new Set(written.filter((role) => !allowed.has(role)))];
      if (refused.length === 0) return null;
      return `The ${name} field contains ${refused.length === 1 ? 'a role' : 'roles'} you may not grant: ${refused.join(', ')}.`;
    },
  };
}

/** Start-up check of a declaration's grantableRoles: role -> list of role names. */
export function checkGrantableRoles(grantable: unknown): string | null {
  if (grantable === undefined) return null;
  if (grantable === null || typeof grantable !== 'object' || Array.isArray(grantable)) return 'must be an object from a role to the role names it may grant, e.g. {admin: [\'viewer\', \'editor\']}.';
  for (const [role, names] of Object.entries(grantable)) {
    if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) return `${role}: must be a list of role names.`;
  }
  return null;
}
