import type { AccessAction } from '../service/policy/access-policy';

export type PermissionMode = 'any' | 'all';

/** The spec's route override (`authorize` in the route defaults). */
export interface AuthorizeOverride {
  /** A permission, a list, or a pipe-separated string (`products.update|products.store`). */
  permissions?: string | string[];
  /** any (default): one of them suffices; all: every one is needed. */
  mode?: PermissionMode;
  /** The guard that authenticates this route. */
  guard?: string;
}

/** What the middleware knows about the route it protects (Express equivalents of the spec's steps). */
export interface RouteFacts {
  /** Route name (generated routes always have one; an application route may pass one). */
  name?: string;
  /** Controller and method of an application route (`ProductController`, `store`). */
  controller?: string;
  method?: string;
  /** Permissions the route's name stands for when the name alone cannot say (relation routes). */
  namedPermissions?: string[];
  httpMethod: string;
  /** Path relative to where the middleware is mounted: its first segment names the entity. */
  path: string;
}

export interface Requirement {
  permissions: string[];
  mode: PermissionMode;
  /** Which of the spec's four steps decided it. */
  source: 'override' | 'route name' | 'controller' | 'verb';
}

/** `a|b`, `['a', 'b|c']` -> ['a', 'b', 'c']: trimmed, empty parts dropped. */
export function splitPermissions(value: string | string[]): string[] {
  const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split('|'));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

/** Route name suffix -> permission suffix: the spec's five, then every other generated route's action. */
const NAME_CONVENTION: Record<string, string> = {
  index: 'index',
  show: 'view',
  store: 'store',
  update: 'update',
  destroy: 'delete',
  first: 'index',
  aggregate: 'index',
  changes: 'index',
  exportExcel: 'index',
  exportPdf: 'index',
  validate: 'store',
  updatePatch: 'update',
  updateMultiple: 'update',
  updateMultipleAlias: 'update',
  restore: 'update',
  deleteById: 'delete',
  forceDelete: 'delete',
};

const METHOD_CONVENTION: Record<string, string> = { index: 'view', show: 'view', store: 'create', update: 'update', destroy: 'delete' };
const VERB_CONVENTION: Record<string, string> = { GET: 'view', HEAD: 'view', POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' };

/** English singular of a plural segment, enough for resource names (categories -> category). */
export function singular(word: string): string {
  if (/ies$/i.test(word)) return word.slice(0, -3) + 'y';
  if (/(ss|x|ch|sh)es$/i.test(word)) return word.slice(0, -2);
  if (/[^su]s$/i.test(word)) return word.slice(0, -1); // status, campus: not plurals
  return word;
}

/** Step 2: the route name convention, with the permission map's overrides first. */
export function routeNamePermissions(name: string, overrides: Readonly<Record<string, string | string[]>>, named?: string[]): string[] | null {
  if (Object.prototype.hasOwnProperty.call(overrides, name)) return splitPermissions(overrides[name]);
  if (named && named.length > 0) return named;
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return null;
  const suffix = NAME_CONVENTION[name.slice(dot + 1)];
  return suffix ? [`${name.slice(0, dot)}.${suffix}`] : null;
}

/** Step 3: `ProductsController@store` -> `product.create`. */
export function controllerPermission(controller: string, method: string): string | null {
  const suffix = Object.prototype.hasOwnProperty.call(METHOD_CONVENTION, method) ? METHOD_CONVENTION[method] : undefined;
  const base = controller.replace(/Controller$/, '');
  if (!suffix || base === '') return null;
  return `${singular(base.charAt(0).toLowerCase() + base.slice(1))}.${suffix}`;
}

/** Step 4: `GET /reports/7` -> `report.view`. */
export function verbPermission(httpMethod: string, path: string): string | null {
  const segment = path.split('/').find((s) => s !== '');
  const suffix = VERB_CONVENTION[httpMethod.toUpperCase()];
  return segment && suffix ? `${singular(segment)}.${suffix}` : null;
}

/** The required permission(s) of a route, in the spec's priority order. */
export function derivePermission(facts: RouteFacts, override: AuthorizeOverride | undefined, overrides: Readonly<Record<string, string | string[]>>): Requirement {
  const mode = override?.mode ?? 'any';
  if (override?.permissions !== undefined) {
    const permissions = splitPermissions(override.permissions);
    if (permissions.length > 0) return { permissions, mode, source: 'override' };
  }
  const byName = facts.name ? routeNamePermissions(facts.name, overrides, facts.namedPermissions) : null;
  // a relation route's rights (on the related resource and the parent) are all needed (decision 54)
  if (byName) return { permissions: byName, mode: facts.namedPermissions && !Object.prototype.hasOwnProperty.call(overrides, facts.name!) ? 'all' : mode, source: 'route name' };
  const byController = facts.controller && facts.method ? controllerPermission(facts.controller, facts.method) : null;
  if (byController) return { permissions: [byController], mode, source: 'controller' };
  const byVerb = verbPermission(facts.httpMethod, facts.path);
  return { permissions: byVerb ? [byVerb] : [], mode, source: 'verb' };
}

const ACTIONS: Record<string, AccessAction> = {
  index: 'read', view: 'read', show: 'read', read: 'read', list: 'read', export: 'read',
  store: 'create', create: 'create',
  update: 'update', edit: 'update',
  delete: 'delete', destroy: 'delete',
};

/** `products.view` -> {resource: products, action: read}; null when the verb is not one of a grant's actions. */
export function permissionTarget(permission: string): { resource: string; action: AccessAction } | null {
  const dot = permission.lastIndexOf('.');
  if (dot <= 0) return null;
  const verb = permission.slice(dot + 1);
  const action = Object.prototype.hasOwnProperty.call(ACTIONS, verb) ? ACTIONS[verb] : undefined;
  return action ? { resource: permission.slice(0, dot), action } : null;
}
