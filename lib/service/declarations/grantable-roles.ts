import type { Row } from '../../driver';
import type { ModelInfo } from '../../resource/model-info';
import type { RequestContext } from '../request-context';

/** The roles field a resource's `grantableRoles` guards (default `roles`). */
export const DEFAULT_ROLES_FIELD = 'roles';
/** The field that makes a record of such a resource a superuser, when the model has it and the declaration names none. */
export const DEFAULT_SUPERUSER_FIELD = 'is_superuser';

/** What the write path checks for one request: the guarded field, and the message for a value (null: allowed). */
export interface RolesRule {
  field: string;
  check(value: unknown): string | null;
}

type Grantable = Readonly<Record<string, readonly string[]>>;

/** The role names the caller's roles may grant (the union over the roles it holds). */
function grantableBy(grantable: Grantable, ctx: RequestContext): Set<string> {
  const allowed = new Set<string>();
  for (const role of ctx.roles) {
    if (Object.prototype.hasOwnProperty.call(grantable, role)) for (const name of grantable[role]) allowed.add(name);
  }
  return allowed;
}

/** The role names in a roles value (a string counts as one name). */
function namesIn(value: unknown): string[] {
  return typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Decision 68: roles are data a caller can write. With `grantableRoles: {admin: ['viewer', ...]}`
 * a caller may write into the roles field only the names its own roles may grant (the union over
 * the roles it holds); a superuser writes any. null: nothing to check (no declaration, or a superuser).
 * Only the names written are checked: a value that removes a role is not refused for it.
 */
export function rolesRule(grantable: Grantable | undefined, field: string | undefined, ctx: RequestContext): RolesRule | null {
  if (!grantable || ctx.user?.is_superuser === true) return null;
  const allowed = grantableBy(grantable, ctx);
  const name = field ?? DEFAULT_ROLES_FIELD;
  return {
    field: name,
    check(value) {
      const refused = [...new Set(namesIn(value).filter((role) => !allowed.has(role)))];
      if (refused.length === 0) return null;
      return `The ${name} field contains ${refused.length === 1 ? 'a role' : 'roles'} you may not grant: ${refused.join(', ')}.`;
    },
  };
}

/** Which existing records the caller may update or delete (decision 69); null: every record. */
export interface ChangeGuard {
  /** The fields a record must be read with to be judged (besides its key). */
  fields: string[];
  /** Why the caller may not change `row` (a 403's message), or null when it may. */
  refusal(row: Row): string | null;
}

/**
 * Decision 69: on a resource that declares `grantableRoles`, a caller updates or deletes a record
 * only if it could grant every role the record holds, and a superuser record only as a superuser.
 * A superuser changes any; a caller's own record is theirs to change (what they write into it is
 * still checked by rolesRule and fieldsByRole). Credential fields ride on the same rule: whoever
 * may not change a user writes none of its fields, its token included.
 */
export function changeGuard(declaration: { grantableRoles?: Grantable; rolesField?: string; superuserField?: string }, info: ModelInfo, ctx: RequestContext): ChangeGuard | null {
  const grantable = declaration.grantableRoles;
  if (!grantable || ctx.user?.is_superuser === true) return null;
  const allowed = grantableBy(grantable, ctx);
  const rolesField = declaration.rolesField ?? DEFAULT_ROLES_FIELD;
  const superField = declaration.superuserField ?? (Object.prototype.hasOwnProperty.call(info.fields, DEFAULT_SUPERUSER_FIELD) ? DEFAULT_SUPERUSER_FIELD : null);
  const self = ctx.user ? String(ctx.user.id) : null;
  return {
    fields: superField ? [rolesField, superField] : [rolesField],
    refusal(row) {
      if (self !== null && String(row[info.key]) === self) return null;
      if (superField && row[superField] === true) return `Forbidden: only a superuser may change or delete a ${info.name} who is a superuser.`;
      const held = namesIn(row[rolesField]).filter((role) => !allowed.has(role));
      if (held.length > 0) return `Forbidden: you may change or delete a ${info.name} only if you could grant every role it holds.`;
      return null;
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
