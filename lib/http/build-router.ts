import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { mergeParams } from '../query';
import { checkDepth } from '../query/bounded-depth';
import { ApiError } from '../errors';
import { createContext, type RequestContext } from '../service/request-context';
import { Reply, type RouteDefinition, type RouteTable } from './routes';
import { serialize, toJson } from './serialize';

/** Middleware a feature puts in front of some routes (permission checks, cache), chosen per route. */
export type RouteMiddlewareFactory = (route: RouteDefinition) => RequestHandler | null;

/** The request context of a request that came through a generated route (or `api.context()`). */
export function contextOf(res: Response): RequestContext {
  const ctx = (res.locals as { restContext?: RequestContext }).restContext;
  if (!ctx) throw new Error('No request context: the request did not come through the API router.');
  return ctx;
}

/** What the application adds to each request's context (its own locals, a user it authenticated itself). */
export type ContextInit = (req: Request) => Partial<Pick<RequestContext, 'user' | 'roles' | 'locals'>>;

/** Builds the context once per request: the abort signal fires when the client goes away. */
export function contextMiddleware(route: RouteDefinition | null, init?: ContextInit): RequestHandler {
  return (req, res, next) => {
    const locals = res.locals as { restContext?: RequestContext };
    if (!locals.restContext) {
      const controller = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) controller.abort();
      });
      locals.restContext = createContext({ ...init?.(req), signal: controller.signal, route: route?.name ?? null });
    } else if (route) {
      locals.restContext.route = route.name;
    }
    next();
  };
}

function handler(route: RouteDefinition, options: RouterOptions): RequestHandler {
  return async (req: Request, res: Response): Promise<void> => {
    const ctx = contextOf(res);
    let result: unknown;
    let timer: NodeJS.Timeout | undefined;
    try {
      const params = mergeParams(req.query as Record<string, unknown>, req.body);
      // bounded before anything recurses into client values (JSON-encoded ones are bounded when decoded)
      checkDepth(params, req.body);
      const work = route.handler({ req, res, ctx, params });
      if (route.answers === 'stream' || !options.deadlineMs) result = await work;
      else {
        // the deadline answers for the request; the database's own time limits end the work behind it
        work.catch(() => undefined);
        const deadline = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new ApiError('timeout', `The request took longer than ${options.deadlineMs} ms; try again later.`)), options.deadlineMs);
        });
        result = await Promise.race([work, deadline]);
      }
    } finally {
      clearTimeout(timer);
      // also when a hook failed after a commit: what was written is written
      await options.beforeRespond?.(ctx);
    }
    if (route.answers === 'stream') return;
    if (!(result instanceof Reply)) {
      res.status(200).type('application/json').send(toJson(result));
      return;
    }
    res.status(result.status).set(result.headers);
    if (result.status === 304) res.end();
    else if (result.json !== undefined) res.type('application/json').send(result.json);
    else res.json(serialize(result.body));
  };
}

export interface RouterOptions {
  /** Runs after a route's work, before its answer is sent (cache versions are bumped here). */
  beforeRespond?: (ctx: RequestContext) => Promise<void>;
  /** Deadline of JSON routes in ms (REST_REQUEST_TIMEOUT_MS). */
  deadlineMs?: number;
}

/**
 * One Express router with every route of the table, each behind the context and the features'
 * middleware. Routes are grouped under their first path segment (`/products`, `/me`), one router
 * each, so a request is matched against its resource's routes only, not against every route.
 */
export function buildRouter(table: RouteTable, middlewares: RouteMiddlewareFactory[], options: RouterOptions = {}): Router {
  const router = express.Router();
  const groups = new Map<string, Router>();
  for (const route of table.all()) {
    const chain = middlewares.map((make) => make(route)).filter((m): m is RequestHandler => m !== null);
    const segment = /^\/([^/:*?()]+)(\/.*)?$/.exec(route.path);
    let target = router;
    let path = route.path;
    if (segment) {
      let group = groups.get(segment[1]);
      if (!group) {
        group = express.Router({ mergeParams: true });
        groups.set(segment[1], group);
        router.use(`/${segment[1]}`, group);
      }
      target = group;
      path = segment[2] ?? '/';
    }
    target[route.method](path, contextMiddleware(route), ...chain, handler(route, options));
  }
  return router;
}
