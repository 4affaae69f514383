/** The public option and handle types of `createRestApi`. */
import type winston from 'winston';
import type { Server } from 'node:http';
import type { RequestHandler, Router } from 'express';
import type { AuthOptions } from './auth/auth-options';
import type { AuthorizeOverride } from './auth/derive-permission';
import type { Grants } from './auth/permission-store';
import type { ReadCache } from './cache/read-cache';
import type { CacheSettings } from './cache/settings';
import type { CacheStore } from './cache/store';
import type { RestConfig } from './config';
import type { RouteMiddlewareFactory } from './http/build-router';
import type { ContextInit } from './http/request-context-middleware';
import type { PdfTemplate } from './export/pdf-templates';
import type { OpenApiOptions } from './openapi/build-document';
import type { DocsOptions } from './openapi/docs-router';
import type { UpdateMultipleRoute } from './http/resource-routes';
import type { RouteTable } from './http/routes';
import type { Loggers } from './log/logger';
import type { ResourceDeclaration } from './declaration';
import type { Registry } from './service/declarations/registry';
import type { QueryPipeline } from './service/policy/query-pipeline';
import type { ResourceService } from './service/resource-service';
import type { RelationRoutesOptions } from './relations/relation-config';
import type { ChangeFeed } from './changes/change-feed';
import type { ChangeFeedSettings } from './changes/types';
import type { StopServerOptions } from './http/shutdown';

export interface RestApiOptions {
  config?: Partial<RestConfig>;
  /** The application's winston logger; the library logs on child channels of it. */
  logger?: winston.Logger;
  /** Body size limit for the JSON parser the router installs (default 1mb). */
  bodyLimit?: string;
  /** Seeds each request's context from the request (e.g. `locals` for hooks). */
  context?: ContextInit;
  /** Read cache settings over the REST_CACHE_* environment; `cacheStore` replaces the built-in stores. */
  cache?: Partial<CacheSettings>;
  cacheStore?: CacheStore;
  /** Authentication (guards), permissions (accesscontrol grants), field policies and ownership (README "Authentication"). */
  auth?: AuthOptions;
  /**
   * The application's own query parameters (a token its middleware reads, ...): every generated
   * route accepts them and the library ignores them; any other unknown name is a 400 (decision 64).
   */
  allowParams?: string[];
  /**
   * The change feed (`GET /{resource}/changes`, decisions 60-62) over the REST_CHANGES_*
   * environment. `redisUrl` fans events out between instances; by default the read cache's Redis
   * when its store is `redis` or REDIS_URL is set, else delivery stays in this process.
   */
  changes?: Partial<ChangeFeedSettings>;
}

/** `api.authorize()` options for an application route: the spec's override, or facts to derive from. */
export interface AuthorizeOptions extends AuthorizeOverride {
  /** A route name for the name convention (`reports.index`) or the permission map. */
  name?: string;
  /** Controller and method for the controller convention (`ReportsController`, `index`). */
  controller?: string;
  method?: string;
}

export interface RegisterOptions {
  /** Default: both `PATCH /batch` and `POST /update-multiple`. */
  updateMultipleRoutes?: UpdateMultipleRoute[];
  /** Relation routes of this resource as parent: the spec's oneToManyConfig / manyToManyConfig (README "Relation routes"). */
  relationRoutes?: RelationRoutesOptions;
  /** The application's own query parameters on this resource's routes (beside the API's `allowParams`). */
  allowParams?: string[];
}

export interface RestApi {
  register(declaration: ResourceDeclaration, options?: RegisterOptions): RestApi;
  /** An Express router with every registered resource under `/<name>`; mount it under your prefix. */
  router(): Router;
  /**
   * An OpenAPI 3.1 document of every generated route (call after `router()`); `roles` gives the
   * document as users holding them see it (fields their read policy hides are absent).
   */
  openapi(options?: OpenApiOptions & { roles?: string[] }): Record<string, unknown>;
  /**
   * `GET /openapi.json` and a browsable page at `/docs` (swagger-ui-dist, served locally); mount
   * beside `router()`. Public by default; `authenticate: true` serves them only to callers the
   * API's authentication accepts (decision 68).
   */
  docsRouter(options?: OpenApiOptions & { roles?: string[] } & DocsOptions): Router;
  /**
   * Builds the router when not yet built, then asks every database whether its driver can serve it
   * (MongoDB: a replica set or mongos, or `transactions: false`; version 5.0 or later; decision 65).
   * Await it before listening: it rejects with the reason and what to do.
   */
  ready(): Promise<void>;
  /** The table of every generated route (built by `router()`). */
  routes(): RouteTable;
  /** The service of a registered resource (by MODEL), for application routes; call after `router()`. */
  service(model: string): ResourceService;
  /** Adds a named PDF export template (`template=<name>`); `pdf`, the default table, is built in. */
  registerPdfTemplate(name: string, make: () => PdfTemplate): RestApi;
  /** The JSON 404 in the error shape: mount it last under the API's prefix, after your own routes there. */
  notFound(): RequestHandler;
  /** Puts middleware in front of the generated routes it chooses (permissions, cache, ...). */
  useRouteMiddleware(factory: RouteMiddlewareFactory): RestApi;
  /**
   * The permission middleware (the spec's `auto.authorize`) for the application's own routes:
   * `api.authorize()`, `api.authorize('session')` (a guard), or `api.authorize({permissions, mode, guard, name})`.
   * The generated routes are behind it already unless `auth.protectRoutes` is false.
   */
  authorize(options?: string | AuthorizeOptions): RequestHandler;
  /** The in-memory grants: `api.permissions.reload(grants)` after they change. */
  readonly permissions: { reload(grants: Grants): void };
  readonly registry: Registry;
  /** The stage between parsing and compiling: scopes and transforms applied to every query. */
  readonly pipeline: QueryPipeline;
  readonly config: RestConfig;
  readonly log: Loggers;
  /** The read cache (always present; inactive unless enabled). `api.cache.bump([MODEL])` after writes made outside the API. */
  readonly cache: ReadCache;
  /**
   * The change feed: `api.changes.close()` ends every open stream (graceful shutdown; `close()`
   * does it too); `api.changes.emit([{model, key, kind}])` publishes writes made outside the API.
   */
  readonly changes: ChangeFeed;
  close(): Promise<void>;
  /**
   * Graceful shutdown (SIGTERM): the server (when given) stops accepting, in-flight requests get
   * `timeoutMs` (default 10 s) to finish, then `close()` ends change-feed streams and closes the
   * cache store, the log files and the drivers' pools. Connections still open at the bound are cut.
   */
  shutdown(server?: Server, options?: StopServerOptions): Promise<void>;
}
