import express, { type Router } from 'express';
import type winston from 'winston';
import { ReadCache } from './cache/read-cache';
import { cacheSettingsFromEnv, type CacheSettings } from './cache/settings';
import type { CacheStore } from './cache/store';
import { configFromEnv, type RestConfig } from './config';
import { buildRouter, contextMiddleware, type ContextInit, type RouteMiddlewareFactory } from './http/build-router';
import { exportRoutes } from './export/export-routes';
import { relationExportRoutes } from './export/relation-export-routes';
import { tableTemplate, type PdfTemplate } from './export/pdf-templates';
import { accessLog } from './http/access-log';
import { errorMiddleware } from './http/error-middleware';
import { buildOpenApi, type OpenApiOptions } from './openapi/build-document';
import { docsRouter } from './openapi/docs-router';
import { resourceRoutes, type UpdateMultipleRoute } from './http/resource-routes';
import { RouteTable } from './http/routes';
import { createLoggers, type Loggers } from './log/logger';
import { equalities } from './query/walk';
import type { ResourceDeclaration } from './resource/declaration';
import { Registry } from './resource/registry';
import { QueryPipeline } from './service/query-pipeline';
import { softDeleteScope } from './soft-delete/soft-delete-scope';
import { ResourceService } from './service/resource-service';

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
}

export interface RegisterOptions {
  /** Default: both `PATCH /batch` and `POST /update-multiple`. */
  updateMultipleRoutes?: UpdateMultipleRoute[];
}

export interface RestApi {
  register(declaration: ResourceDeclaration, options?: RegisterOptions): RestApi;
  /** An Express router with every registered resource under `/<name>`; mount it under your prefix. */
  router(): Router;
  /** An OpenAPI 3.1 document of every generated route (call after `router()`). */
  openapi(options?: OpenApiOptions): Record<string, unknown>;
  /** `GET /openapi.json` and a browsable page at `/docs` (swagger-ui-dist, served locally); mount beside `router()`. */
  docsRouter(options?: OpenApiOptions): Router;
  /** The table of every generated route (built by `router()`). */
  routes(): RouteTable;
  /** The service of a registered resource (by MODEL), for application routes; call after `router()`. */
  service(model: string): ResourceService;
  /** Adds a named PDF export template (`template=<name>`); `pdf`, the default table, is built in. */
  registerPdfTemplate(name: string, make: () => PdfTemplate): RestApi;
  /** Puts middleware in front of the generated routes it chooses (permissions, cache, ...). */
  useRouteMiddleware(factory: RouteMiddlewareFactory): RestApi;
  readonly registry: Registry;
  /** The stage between parsing and compiling: scopes and transforms applied to every query. */
  readonly pipeline: QueryPipeline;
  readonly config: RestConfig;
  readonly log: Loggers;
  /** The read cache (always present; inactive unless enabled). `api.cache.bump([MODEL])` after writes made outside the API. */
  readonly cache: ReadCache;
  close(): Promise<void>;
}

/** Entry point: declare resources, then mount `api.router()` in an Express app. */
export function createRestApi(options: RestApiOptions = {}): RestApi {
  const config = configFromEnv(options.config);
  const log = createLoggers(options.logger);
  const registry = new Registry();
  const pipeline = new QueryPipeline(registry);
  const table = new RouteTable();
  const services = new Map<string, ResourceService>();
  const middlewares: RouteMiddlewareFactory[] = [];
  const routeOptions = new Map<string, RegisterOptions>();
  let built: Router | null = null;
  const templates = new Map<string, () => PdfTemplate>([['pdf', tableTemplate]]);
  const cache = new ReadCache(
    cacheSettingsFromEnv(options.cache),
    log,
    (model) => registry.entry(model).declaration.cache,
    pipeline.targetOf,
    options.cacheStore,
  );

  // trashed records are hidden everywhere unless the root query asks for them
  pipeline.addScope(softDeleteScope);
  // a resource's own `scope` hook narrows it everywhere, like any other scope
  pipeline.addScope((model, ctx) => {
    const scope = registry.entry(model.name).declaration.hooks?.scope?.(ctx);
    if (!scope) return null;
    return 'kind' in scope && typeof scope.kind === 'string' ? (scope as never) : equalities(scope as never);
  });

  const api: RestApi = {
    registry,
    pipeline,
    config,
    log,
    cache,
    register(declaration, registerOptions = {}) {
      registry.add(declaration);
      routeOptions.set(declaration.MODEL, registerOptions);
      return api;
    },
    registerPdfTemplate(name, make) {
      templates.set(name, make);
      return api;
    },
    useRouteMiddleware(factory) {
      if (built) throw new Error('Route middleware must be added before router() is called.');
      middlewares.push(factory);
      return api;
    },
    router() {
      if (built) return built;
      registry.build();
      for (const entry of registry.entriesList()) {
        const service = new ResourceService(entry, registry, config, log, pipeline);
        services.set(entry.info.name, service);
        const chosen = routeOptions.get(entry.info.name)?.updateMultipleRoutes ?? ['batch', 'update-multiple'];
        table.add(...resourceRoutes(service, { updateMultipleRoutes: chosen, read: (input, read, run) => cache.serve(input, read, run) }));
        table.add(...exportRoutes(service, { catalog: registry, config, log, templates }));
      }
      for (const service of services.values()) {
        table.add(...relationExportRoutes(service, (model) => services.get(model), { catalog: registry, config, log, templates }));
      }
      const router = express.Router();
      router.use(accessLog(log));
      router.use(express.json({ limit: options.bodyLimit ?? '1mb' }));
      router.use(contextMiddleware(null, options.context));
      router.use(buildRouter(table, middlewares, { beforeRespond: (ctx) => cache.bump(ctx.touched) }));
      router.use(errorMiddleware(log));
      built = router;
      return router;
    },
    routes() {
      return table;
    },
    docsRouter(openApiOptions) {
      return docsRouter(() => api.openapi(openApiOptions), { title: openApiOptions?.title });
    },
    openapi(openApiOptions) {
      if (!built) throw new Error('api.openapi() describes the routes built by router(): call router() first.');
      return buildOpenApi(table, registry, openApiOptions);
    },
    service(model) {
      const service = services.get(model);
      if (!service) throw new Error(`No service for ${model}: is it registered, and was router() called?`);
      return service;
    },
    async close() {
      await cache.close();
      for (const driver of registry.drivers()) await driver.close?.();
    },
  };
  return api;
}
