import express, { type Router } from 'express';
import { BadRequestError, UnauthenticatedError } from './errors';
import { Authorizer } from './auth/authorizer';
import { ReadCache } from './cache/read-cache';
import { readYourWritesOf } from './cache/write-marks';
import { cacheSettingsFromEnv } from './cache/settings';
import { configFromEnv } from './config';
import { buildRouter, type RouteMiddlewareFactory } from './http/build-router';
import { idempotencyGate } from './service/idempotency-gate';
import { apiFront } from './http/api-front';
import { notFound, unmatchedRoutes } from './http/unmatched-route';
import { exportRoutes } from './export/export-routes';
import { importRoutes } from './import/import-routes';
import { relationExportRoutes } from './export/relation-export-routes';
import { tableTemplate, type PdfTemplate } from './export/pdf-templates';
import { errorMiddleware } from './http/error-middleware';
import { bearerChallenge } from './http/www-authenticate';
import { buildOpenApi, type OpenApiOptions } from './openapi/build-document';
import { docsRouter } from './openapi/docs-router';
import { resourceRoutes } from './http/resource-routes';
import { cachedReads } from './http/cached-reads';
import { NestedWrites } from './service/nested/nested-writes';
import { directRead, RouteTable, type ReadGate } from './http/routes';
import { createLoggers } from './log/logger';
import { Registry } from './service/declarations/registry';
import { QueryPipeline } from './service/policy/query-pipeline';
import { softDeleteScope } from './soft-delete/soft-delete-scope';
import { ResourceService } from './service/resource-service';
import { createContext } from './service/request-context';
import { HierarchyReads } from './hierarchy/hierarchy-reads';
import { resolveRelation } from './relations/relation-config';
import { relationRoutes } from './relations/relation-routes';
import { RelationService } from './relations/relation-service';
import { hookScope, ownershipScope } from './service/policy/scopes';
import { ChangeFeed } from './changes/change-feed';
import { changeSettingsFromEnv } from './changes/types';
import { changesRoute, type Reauthenticate } from './changes/changes-routes';
import { enableHistory } from './history/enable-history';
import { historyRoutes } from './history/history-routes';
import { stopServer } from './http/shutdown';
import type { AuthorizeOptions, RegisterOptions, RestApi, RestApiOptions } from './api-types';
import { unavailable } from './database-unavailable';

export type { AuthorizeOptions, RegisterOptions, RestApi, RestApiOptions } from './api-types';

/** Entry point: declare resources, then mount `api.router()` in an Express app. */
export function createRestApi(options: RestApiOptions = {}): RestApi {
  const config = configFromEnv(options.config);
  // a 401's WWW-Authenticate (decision 78): where a token comes from, as the application says
  const challenge = (req: express.Request) => bearerChallenge(options.auth?.challenge ?? {}, Boolean(req.headers.authorization));
  const log = createLoggers(options.logger, config);
  const registry = new Registry();
  const pipeline = new QueryPipeline(registry);
  const table = new RouteTable();
  const services = new Map<string, ResourceService>();
  const middlewares: RouteMiddlewareFactory[] = [];
  const routeOptions = new Map<string, RegisterOptions>();
  let built: Router | null = null;
  let historyReady: (() => Promise<void>) | null = null;
  const templates = new Map<string, () => PdfTemplate>([['pdf', tableTemplate]]);
  const auth = options.auth
    ? new Authorizer(
        options.auth,
        (name) => registry.entriesList().find((e) => e.declaration.name === name || e.info.name === name)?.declaration.name ?? name,
        (model) => registry.entry(model.name).declaration.name,
        log,
      )
    : null;
  const cacheSettings = cacheSettingsFromEnv(options.cache);
  const cache = new ReadCache(cacheSettings, log, (model) => registry.entry(model).declaration.cache, pipeline.targetOf, options.cacheStore);
  // with the cache off the routes run their reads directly: no request passes through it
  const reads: ReadGate = cacheSettings.enabled ? cachedReads(cache) : directRead;
  const feedRedis = cacheSettings.redisUrl && (cacheSettings.store === 'redis' || process.env.REDIS_URL) ? cacheSettings.redisUrl : null;
  const ryw = readYourWritesOf(cache, config.readYourWritesMs, feedRedis); // decision 86: the caller's reads go to the primary after their write
  const changes = new ChangeFeed(changeSettingsFromEnv(options.changes ?? {}, feedRedis, cacheSettings.prefix), log);

  // trashed records are hidden everywhere unless the root query asks for them
  pipeline.addScope(softDeleteScope);
  pipeline.addScope(hookScope(registry));

  if (auth) {
    pipeline.setPolicy(auth.policy);
    pipeline.addScope(ownershipScope(auth.policy));
  }

  /** The permission middleware (or, for public routes, authentication alone) in front of each generated route. */
  const protect: RouteMiddlewareFactory = (route) => {
    if (!auth) return null;
    const override = options.auth?.routes?.[route.name];
    if (override === false || options.auth?.protectRoutes === false) {
      return (req, res, next) => void auth.identify(req, res, options.auth?.guard).then(() => next(), next);
    }
    return auth.middleware({ name: route.name, namedPermissions: route.permissions, httpMethod: route.method, path: route.path }, override, options.auth?.guard);
  };

  /** Decision 70: a change stream's request authenticated and authorized again, on a fresh context. */
  const reauthenticate: Reauthenticate = async (route, req, memo) => {
    const ctx = createContext({ ...options.context?.(req), route: route.name });
    await auth?.recheck(req, ctx, route, memo);
    return ctx;
  };

  /** The configured relation routes of one parent resource, checked at start. */
  const buildRelationRoutes = (parent: ResourceService) => {
    const configured = routeOptions.get(parent.name)?.relationRoutes;
    if (!configured) return [];
    const resource = parent.entry.declaration.name;
    const implicit = configured.implicitParent;
    const all = [
      ...Object.entries(configured.oneToMany ?? {}).map(([segment, c]) => resolveRelation(parent, segment, 'oneToMany', c, (m) => services.get(m))),
      ...Object.entries(configured.manyToMany ?? {}).map(([segment, c]) => resolveRelation(parent, segment, 'manyToMany', c, (m) => services.get(m))),
    ];
    const exporting = { catalog: registry, config, log, templates };
    // each form's exports beside its list: a relation list and its exports are served (or refused) together
    return all.flatMap((resolved) => {
      const explicit = implicit?.explicit === false ? null : new RelationService(resolved, (id) => `/${resource}/${id}/${resolved.segment}`);
      const own = implicit ? new RelationService(resolved, () => `/${implicit.prefix}/${resolved.segment}`) : null;
      return [
        ...(explicit ? [...relationRoutes(explicit, { kind: 'explicit' }), ...relationExportRoutes(explicit, { kind: 'explicit' }, exporting)] : []),
        ...(own && implicit ? [...relationRoutes(own, { kind: 'implicit', prefix: implicit.prefix }), ...relationExportRoutes(own, { kind: 'implicit', prefix: implicit.prefix }, exporting)] : []),
      ];
    });
  };

  /**
   * `/{parent}/{id}/{segment}` with a segment the parent's relation routes do not configure: a 400
   * naming the relation and the parent (spec, Errors), after authentication like every route.
   */
  const unconfiguredRelations = (): Router => {
    const router = express.Router();
    for (const service of services.values()) {
      const configured = routeOptions.get(service.name)?.relationRoutes;
      if (!configured) continue;
      const segments = [...Object.keys(configured.oneToMany ?? {}), ...Object.keys(configured.manyToMany ?? {})];
      const resource = service.entry.declaration.name;
      // implicitParent.explicit false: the relations are served under the prefix only, never under /{resource}/{id}
      const implicitOnly = configured.implicitParent?.explicit === false ? configured.implicitParent.prefix : null;
      router.all(`/${resource}/:parent_id/:relation{/*rest}`, (req, res, next) => {
        // restore and force are resource routes (of soft-deletable resources): elsewhere simply absent
        if ((['restore', 'force'].includes(String(req.params.relation)) && !req.params.rest) || req.params.relation === 'history') return next();
        const answer = () => {
          const relation = String(req.params.relation);
          if (implicitOnly && segments.includes(relation)) {
            next(new BadRequestError(`Relation "${relation}" of ${resource} is served for the authenticated user only, at /${implicitOnly}/${relation}; /${resource}/{id}/${relation} is not a route.`, relation));
            return;
          }
          if (implicitOnly) {
            next(new BadRequestError(`Relation "${relation}" is not configured on ${resource} (configured, under /${implicitOnly} only: ${segments.join(', ')}).`, relation));
            return;
          }
          next(new BadRequestError(`Relation "${relation}" is not configured on ${resource} (configured: ${segments.join(', ')}).`, relation));
        };
        if (!auth) return answer();
        auth.identify(req, res).then((ctx) => (ctx.user ? answer() : next(new UnauthenticatedError())), next);
      });
    }
    return router;
  };

  let closing: Promise<void> | null = null;
  const api: RestApi = {
    registry,
    pipeline,
    config,
    log,
    cache,
    changes,
    register(declaration, registerOptions = {}) {
      registry.add(declaration);
      routeOptions.set(declaration.MODEL, registerOptions);
      return api;
    },
    registerPdfTemplate(name, make) {
      templates.set(name, make);
      return api;
    },
    authorize(arg) {
      if (!auth) throw new Error('api.authorize() needs the auth option (createRestApi({auth: {authenticate, grants}})).');
      const opts: AuthorizeOptions = typeof arg === 'string' ? {} : (arg ?? {});
      const guard = typeof arg === 'string' ? arg : undefined;
      const { name, controller, method, ...override } = opts;
      return auth.middleware((req) => ({ name, controller, method, httpMethod: req.method, path: req.path }), override, guard);
    },
    permissions: {
      reload(grants) {
        if (!auth) throw new Error('permissions.reload() needs the auth option with grants.');
        auth.reload(grants);
        pipeline.clearViews();
      },
    },
    notFound() {
      return notFound();
    },
    useRouteMiddleware(factory) {
      if (built) throw new Error('Route middleware must be added before router() is called.');
      middlewares.push(factory);
      return api;
    },
    router() {
      if (built) return built;
      registry.build();
      // decision 83: history's driver beneath the change feed's recording, so its writes are the write's
      historyReady = enableHistory(registry);
      // every write through a resource's driver reaches the change feed after its commit
      changes.attach(registry);
      for (const entry of registry.entriesList()) {
        const service = new ResourceService(entry, registry, config, log, pipeline);
        services.set(entry.info.name, service);
        // before `/:id`, so `changes` is never taken for an id
        table.add(changesRoute(service, changes, pipeline, config, reauthenticate));
        table.add(...historyRoutes(service, config));
        const chosen = routeOptions.get(entry.info.name)?.updateMultipleRoutes ?? ['batch', 'update-multiple'];
        const hierarchy = new HierarchyReads(service, config);
        table.add(...resourceRoutes(service, { updateMultipleRoutes: chosen, read: reads, hierarchy }));
        table.add(...exportRoutes(service, { catalog: registry, config, log, templates }), ...importRoutes(service, { config, serviceOf: (model) => services.get(model) }));
      }
      // decision 58: each resource's nestedWrites resolved against the other services (start-up errors name the key)
      for (const service of services.values()) service.enableNestedWrites(new NestedWrites(service, (m) => services.get(m)));
      for (const service of services.values()) table.add(...buildRelationRoutes(service));
      // decision 63: in lenient mode, say at start which routes any authenticated user passes
      auth?.warnOpenRoutes(table.all());
      const router = express.Router();
      // after a write's after-hooks: streams held by a write to their user are re-checked, caches bumped
      const settled = (touched: Set<string>) => (changes.settled(touched), cacheSettings.enabled ? cache.bump(touched) : undefined);
      // the application's own parameters: API-wide, plus those of the resource a route belongs to
      const allowOf = new Map<string, string[]>();
      for (const [model, registered] of routeOptions) if (registered.allowParams) allowOf.set(registry.entry(model).declaration.name, registered.allowParams);
      const allowParams = (route: { resource: string }) => [...(options.allowParams ?? []), ...(allowOf.get(route.resource) ?? [])];
      // soft_delete and hierarchy only where the route's records have them (the related resource's on relation routes)
      const paramScope = (route: { model: string }) => {
        const entry = registry.entry(route.model);
        return { resource: entry.declaration.name, softDelete: Boolean(entry.info.softDelete), hierarchy: Boolean(entry.info.hierarchyField) };
      };
      const dispatch = buildRouter(table, [protect, ...middlewares], { beforeRespond: (ctx) => (ctx.touched.size > 0 ? Promise.all([settled(ctx.touched), ryw.wrote(ctx.user)]).then(() => undefined) : undefined), around: ryw.around, deadlineMs: config.requestTimeoutMs, allowParams, scope: paramScope, idempotency: idempotencyGate((model) => services.get(model)) });
      router.use(apiFront({ log, bodyLimit: options.bodyLimit, context: options.context }, dispatch));
      router.use(unconfiguredRelations());
      router.use(unmatchedRoutes(table));
      // a database that is down or too slow answers 503 wherever it was asked (an auth hook too)
      router.use(errorMiddleware(log, (error) => unavailable(registry, error), challenge));
      built = router;
      return router;
    },
    async ready() {
      api.router();
      for (const driver of registry.drivers()) await driver.ready?.();
      await historyReady?.();
    },
    routes() {
      return table;
    },
    docsRouter(docsOptions = {}) {
      const { authenticate, ...openApiOptions } = docsOptions;
      if (authenticate && !auth) throw new Error('docsRouter({authenticate: true}) needs the auth option (createRestApi({auth: {authenticate}})).');
      const accepts = authenticate && auth ? async (req: express.Request, res: express.Response) => (await auth.identify(req, res, options.auth?.guard)).user !== null : undefined;
      return docsRouter(() => api.openapi(openApiOptions), { title: openApiOptions.title, authenticate: accepts, challenge });
    },
    openapi(openApiOptions = {}) {
      if (!built) throw new Error('api.openapi() describes the routes built by router(): call router() first.');
      const { roles, ...rest } = openApiOptions;
      const described: OpenApiOptions = { ...rest };
      // with authentication on, every operation needs a credential: a bearer token unless the app says otherwise
      if (auth && !described.security) {
        // routes opened by `auth.routes[name] === false` (or protectRoutes: false) take a credential but do not need one
        const isPublic = (name: string) => options.auth?.protectRoutes === false || options.auth?.routes?.[name] === false;
        described.security = { schemes: { bearerAuth: { type: 'http', scheme: 'bearer' } }, requirement: [{ bearerAuth: [] }], isPublic };
      }
      // a role's document: the fields its read policy hides are absent from its schemas (a viewer's has no cost)
      if (roles && !described.hiddenFields) {
        const ctx = createContext({ user: { id: 'openapi', roles }, roles });
        described.hiddenFields = (model) => pipeline.policy.hiddenFields(registry.model(model), ctx);
      }
      return buildOpenApi(table, registry, described);
    },
    service(model) {
      const service = services.get(model);
      if (!service) throw new Error(`No service for ${model}: is it registered, and was router() called?`);
      return service;
    },
    async shutdown(server, shutdownOptions) {
      // change-feed streams never end by themselves: ended first (at once), so the server can close
      changes.close().catch(() => undefined);
      if (server) {
        const { forced } = await stopServer(server, shutdownOptions);
        if (forced) log.app.warn(`shutdown: requests still running after ${shutdownOptions?.timeoutMs ?? 10_000} ms were cut`);
      }
      await api.close();
    },
    close() {
      // once: shutdown() closes, and the application's own close may call it again
      closing ??= (async () => {
        await changes.close();
        await Promise.all([cache.close(), ryw.close()]);
        await log.close();
        for (const driver of registry.drivers()) await driver.close?.();
      })();
      return closing;
    },
  };
  return api;
}
