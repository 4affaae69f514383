import type { Request } from 'express';
import type { AuthUser, RequestContext } from '../service/request-context';
import type { AuthorizeOverride } from './derive-permission';
import type { Grants } from './permission-store';

/**
 * Who is calling: the application's answer from the request (a bearer token it looks up, a
 * session, ...). null or undefined: nobody. The library never issues, stores or logs credentials.
 */
export type Authenticate = (req: Request) => AuthUser | null | undefined | Promise<AuthUser | null | undefined>;

export interface AuthOptions {
  /** One authenticate function (the guard named "default"). */
  authenticate?: Authenticate;
  /** Named guards (e.g. `{api: bearerGuard, session: sessionGuard}`), beside or instead of `authenticate`. */
  guards?: Record<string, Authenticate>;
  /** The application's default guard (default: "default", else the only named guard). */
  defaultGuard?: string;
  /**
   * accesscontrol grants (roles -> resources -> actions with any/own and attributes), loaded once.
   * Absent: authentication only; permission checks pass and field policies are off.
   */
  grants?: Grants;
  /**
   * The spec's permission map: route name -> permission overrides, and `strict` (default true,
   * decision 63: a permission no grant names is denied). `strict: false` (or env
   * PERMISSION_STRICT_MODE=false) lets such permissions pass and logs the routes it opens at start.
   */
  permissionMap?: { strict?: boolean; overrides?: Record<string, string | string[]> };
  /** Route overrides of generated routes by name; `false` makes a route public. */
  routes?: Record<string, AuthorizeOverride | false>;
  /** Put the permission middleware in front of every generated route (default true). */
  protectRoutes?: boolean;
  /** The guard generated routes use (the middleware parameter); default: the default guard. */
  guard?: string;
  /**
   * Runs after authentication, before the permission check: set the current team or tenant here
   * (e.g. replace `ctx.roles` with the user's roles in the team named by a header).
   */
  beforeCheck?: (req: Request, ctx: RequestContext) => void | Promise<void>;
  /** `Forbidden: <permission>` instead of `Forbidden` (env APP_DEBUG). */
  debug?: boolean;
  /**
   * The `WWW-Authenticate` header of every 401 (RFC 6750): `Bearer realm="<realm>"` (default
   * `api`), `error="invalid_token"` when credentials were sent and refused, and `hint` (where a
   * client gets a token) as `error_description`. The 401 body stays `{message: "Unauthenticated."}`.
   */
  challenge?: { realm?: string; hint?: string };
}
