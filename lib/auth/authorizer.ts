import type { Request, RequestHandler, Response } from 'express';
import { ForbiddenError, UnauthenticatedError } from '../errors';
import type { Loggers } from '../log/logger';
import type { ModelInfo } from '../resource/model-info';
import type { AccessPolicy } from '../service/policy/access-policy';
import { openPolicy } from '../service/policy/access-policy';
import { createContext, type AuthUser, type RequestContext } from '../service/request-context';
import type { Authenticate, AuthOptions } from './auth-options';
import { derivePermission, permissionTarget, type AuthorizeOverride, type Requirement, type RouteFacts } from './derive-permission';
import { GrantPolicy } from './grant-policy';
import { PermissionStore, type Grants } from './permission-store';

const truthy = (v: string | undefined): boolean => v !== undefined && ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase());
const falsy = (v: string | undefined): boolean => v !== undefined && ['0', 'false', 'no', 'off'].includes(v.trim().toLowerCase());

/** Decision 63: strict unless the application says `strict: false` or PERMISSION_STRICT_MODE is a false value. */
function strictMode(option: boolean | undefined): boolean {
  if (option !== undefined) return option !== false;
  return !falsy(process.env.PERMISSION_STRICT_MODE);
}

/** A generated route as the start-up check reads it (lib/http/routes.ts RouteDefinition). */
export interface DescribedRoute {
  name: string;
  method: string;
  path: string;
  permissions?: string[];
}

/** A user as the application returned it, checked: an id, roles as strings, superuser only when `true`. */
function checkedUser(value: unknown): AuthUser | null {
  if (value === null || value === undefined) return null;
  const user = value as Partial<AuthUser>;
  if (typeof user !== 'object' || (typeof user.id !== 'string' && typeof user.id !== 'number')) {
    throw new Error('authenticate() must return null or a user object with an id (string or number) and roles.');
  }
  const roles = Array.isArray(user.roles) ? user.roles.filter((r): r is string => typeof r === 'string') : [];
  return { ...user, id: user.id, roles, is_superuser: user.is_superuser === true };
}

/**
 * Authentication and the permission middleware (the spec's `auto.authorize`): guards, the
 * required permission derived in the spec's order, 401 before 403, permissions answered in memory.
 */
export class Authorizer {
  private readonly guards = new Map<string, Authenticate>();
  readonly defaultGuard: string;
  readonly store: PermissionStore | null;
  readonly strict: boolean;
  readonly debug: boolean;
  readonly overrides: Readonly<Record<string, string | string[]>>;
  private readonly grantPolicy: GrantPolicy | null;
  private readonly warned = new Set<string>();

  constructor(
    readonly options: AuthOptions,
    private readonly resourceAlias: (name: string) => string,
    resourceOf: (model: ModelInfo) => string,
    private readonly log: Loggers,
  ) {
    if (options.authenticate) this.guards.set('default', options.authenticate);
    for (const [name, guard] of Object.entries(options.guards ?? {})) {
      if (typeof guard !== 'function') throw new Error(`auth.guards.${name} must be a function from a request to a user or null.`);
      this.guards.set(name, guard);
    }
    if (this.guards.size === 0) throw new Error('auth needs an authenticate function or named guards.');
    this.defaultGuard = options.defaultGuard ?? (this.guards.has('default') ? 'default' : [...this.guards.keys()][0]);
    this.requireGuard(this.defaultGuard, 'auth.defaultGuard');
    if (options.guard) this.requireGuard(options.guard, 'auth.guard');
    this.strict = strictMode(options.permissionMap?.strict);
    this.debug = options.debug ?? truthy(process.env.APP_DEBUG);
    this.overrides = options.permissionMap?.overrides ?? {};
    this.store = options.grants ? new PermissionStore(options.grants) : null;
    this.grantPolicy = this.store ? new GrantPolicy(this.store, resourceOf, this.strict) : null;
  }

  /** The field and ownership policy (open when no grants are configured: the feature is inactive). */
  get policy(): AccessPolicy {
    return this.grantPolicy ?? openPolicy;
  }

  /** Swaps the grants (after the application changed roles or permissions); no restart needed. */
  reload(grants: Grants): void {
    if (!this.store) throw new Error('No grants were configured (auth.grants), so there is nothing to reload.');
    this.store.reload(grants);
    this.grantPolicy?.clear();
  }

  requireGuard(name: string, where: string): void {
    if (!this.guards.has(name)) throw new Error(`${where}: no guard named "${name}" (guards: ${[...this.guards.keys()].join(', ')}).`);
  }

  /**
   * The permission middleware. `facts` describes the route (generated routes: fixed; application
   * routes: from the request); guard priority: route override, middleware parameter, default.
   */
  middleware(facts: RouteFacts | ((req: Request) => RouteFacts), override?: AuthorizeOverride, guardParam?: string): RequestHandler {
    const guard = override?.guard ?? guardParam ?? this.defaultGuard;
    this.requireGuard(guard, 'authorize');
    const fixed = typeof facts === 'function' ? null : derivePermission(facts, override, this.overrides);
    return (req, res, next) => {
      const requirement = fixed ?? derivePermission((facts as (req: Request) => RouteFacts)(req), override, this.overrides);
      this.check(req, res, guard, requirement).then(() => next(), next);
    };
  }

  /** Authenticates with `guard` without requiring a user (public routes still know their caller). */
  async identify(req: Request, res: Response, guard = this.defaultGuard): Promise<RequestContext> {
    const ctx = contextFor(res);
    const user = checkedUser(await this.guards.get(guard)!(req));
    if (user) {
      ctx.user = user;
      ctx.roles = user.roles;
    }
    return ctx;
  }

  private async check(req: Request, res: Response, guard: string, requirement: Requirement): Promise<void> {
    await this.decide(req, await this.identify(req, res, guard), requirement);
  }

  /**
   * Decision 70: a generated route's authentication and permission once more, for a request
   * answered long ago (an open change stream), into `ctx` (a fresh context): throws the 401 or 403
   * a new request would get; a public route only identifies.
   */
  async recheck(req: Request, ctx: RequestContext, route: DescribedRoute, memo?: Map<string, Promise<unknown>>): Promise<void> {
    const override = this.options.routes?.[route.name];
    const open = override === false || this.options.protectRoutes === false;
    const guard = (override === false ? undefined : override?.guard) ?? this.options.guard ?? this.defaultGuard;
    const user = checkedUser(await this.sharedIdentity(req, guard, memo));
    if (user) {
      ctx.user = user;
      ctx.roles = user.roles;
    }
    if (open) return;
    await this.decide(req, ctx, derivePermission({ name: route.name, namedPermissions: route.permissions, httpMethod: route.method, path: route.path }, override || undefined, this.overrides));
  }

  /**
   * The guard's answer, shared through `memo` by requests sending the same `Authorization` and
   * `Cookie` headers (a re-check turn of many streams of one client authenticates once); a request
   * sending neither is authenticated alone (the application may read something else).
   */
  private sharedIdentity(req: Request, guard: string, memo: Map<string, Promise<unknown>> | undefined): Promise<unknown> {
    const { authorization, cookie } = req.headers;
    if (!memo || (authorization === undefined && cookie === undefined)) return Promise.resolve(this.guards.get(guard)!(req));
    const key = `${guard}\u0000${authorization ?? ''}\u0000${cookie ?? ''}`;
    let answer = memo.get(key);
    if (!answer) memo.set(key, (answer = Promise.resolve(this.guards.get(guard)!(req))));
    return answer;
  }

  private async decide(req: Request, ctx: RequestContext, requirement: Requirement): Promise<void> {
    // decision 37: no user is a 401, decided before any permission
    if (!ctx.user) throw new UnauthenticatedError();
    await this.options.beforeCheck?.(req, ctx);
    if (ctx.user.is_superuser === true || !this.store) return;
    // strict: a route whose permission cannot be derived (no name, controller or path segment) is no one's but a superuser's
    if (requirement.permissions.length === 0 && this.strict) throw new ForbiddenError('(no permission derivable)', this.debug);
    const granted = requirement.permissions.map((p) => this.holds(ctx.roles, p));
    if (!satisfied(requirement, granted)) {
      const missing = requirement.permissions.filter((_, i) => !granted[i]);
      throw new ForbiddenError((requirement.mode === 'all' ? missing : requirement.permissions).join('|'), this.debug);
    }
  }

  /**
   * Decision 63, lenient mode only: the generated routes a caller holding no role at all passes
   * (their permission is named by no grant), logged once at start as a warning. Public routes
   * (`auth.routes[name] = false`, `protectRoutes: false`) are not in the list: they need no user.
   */
  openRoutes(routes: readonly DescribedRoute[]): Array<{ route: DescribedRoute; permissions: string[] }> {
    if (!this.store || this.strict || this.options.protectRoutes === false) return [];
    const open: Array<{ route: DescribedRoute; permissions: string[] }> = [];
    for (const route of routes) {
      const override = this.options.routes?.[route.name];
      if (override === false) continue;
      const requirement = derivePermission({ name: route.name, namedPermissions: route.permissions, httpMethod: route.method, path: route.path }, override, this.overrides);
      if (satisfied(requirement, requirement.permissions.map((p) => !this.known(p)))) open.push({ route, permissions: requirement.permissions.filter((p) => !this.known(p)) });
    }
    return open;
  }

  /** Logs `openRoutes` (lenient mode): every route open to any authenticated user, with the permission no grant names. */
  warnOpenRoutes(routes: readonly DescribedRoute[]): void {
    const open = this.openRoutes(routes);
    if (open.length === 0) return;
    const lines = open.map(({ route, permissions }) => `${route.method.toUpperCase()} ${route.path} (${route.name}: ${permissions.join(', ') || 'no permission'})`);
    this.log.app.warn(
      `permissions are not strict (permissionMap.strict false / PERMISSION_STRICT_MODE=false): ${open.length} route(s) need a permission no grant names and are open to any authenticated user: ${lines.join('; ')}`,
      { openRoutes: open.map(({ route, permissions }) => ({ name: route.name, method: route.method.toUpperCase(), path: route.path, permissions })) },
    );
  }

  /** True when some grant names the permission's resource and action (the spec's "exists in the permission cache"). */
  private known(permission: string): boolean {
    const target = permissionTarget(permission);
    const resource = target ? this.grantResource(target.resource) : null;
    return target !== null && resource !== null && this.store!.exists(resource, target.action);
  }

  /** One permission against the grants: a permission no grant names is denied unless lenient (decision 63). */
  private holds(roles: readonly string[], permission: string): boolean {
    if (!this.known(permission)) {
      if (!this.warned.has(permission)) {
        this.warned.add(permission);
        this.log.app.warn(`permission "${permission}" is not in the grants: ${this.strict ? 'denied (strict mode; only a superuser passes)' : 'not enforced (lenient mode: set PERMISSION_STRICT_MODE=true or drop permissionMap.strict=false to deny)'}`);
      }
      return !this.strict;
    }
    const target = permissionTarget(permission)!;
    return this.store!.possession(roles, this.grantResource(target.resource), target.action) !== null;
  }

  /** The grants' name of a permission's resource: as written, a registered resource's MODEL, or a plural (`report` -> `reports`). */
  private grantResource(name: string): string {
    const store = this.store!;
    if (store.hasResource(name)) return name;
    const alias = this.resourceAlias(name);
    if (store.hasResource(alias)) return alias;
    const plurals = [`${name}s`, `${name}es`, name.endsWith('y') ? `${name.slice(0, -1)}ies` : null];
    return plurals.find((p): p is string => p !== null && store.hasResource(p)) ?? alias;
  }
}

/** Whether a requirement passes given which of its permissions are held. */
function satisfied(requirement: Requirement, granted: boolean[]): boolean {
  return requirement.permissions.length === 0 || (requirement.mode === 'all' ? granted.every(Boolean) : granted.some(Boolean));
}

/** The request's context, created when an application route is authorized outside the API router. */
function contextFor(res: Response): RequestContext {
  const locals = res.locals as { restContext?: RequestContext };
  locals.restContext ??= createContext();
  return locals.restContext;
}
