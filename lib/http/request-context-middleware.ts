import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { createContext, type RequestContext } from '../service/request-context';
import type { RouteDefinition } from './routes';

/** The request context of a request that came through a generated route (or `api.context()`). */
export function contextOf(res: Response): RequestContext {
  const ctx = (res.locals as { restContext?: RequestContext }).restContext;
  if (!ctx) throw new Error('No request context: the request did not come through the API router.');
  return ctx;
}

/** What the application adds to each request's context (its own locals, a user it authenticated itself). */
export type ContextInit = (req: Request) => Partial<Pick<RequestContext, 'user' | 'roles' | 'locals'>>;

/**
 * The request's abort signal, made when first asked for: it fires when the client goes away
 * before the answer is sent (already aborted if that happened before it was asked for).
 */
function responseSignal(res: Response): AbortSignal {
  const controller = new AbortController();
  const locals = res.locals as { restAbort?: AbortController; restAborted?: unknown };
  locals.restAbort = controller;
  if (locals.restAborted !== undefined) controller.abort(locals.restAborted);
  else if (res.destroyed && !res.writableFinished) controller.abort();
  else {
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
  }
  return controller.signal;
}

/**
 * Aborts the request's signal (the request deadline passed): work that watches it stops, and a
 * signal first asked for later is born aborted.
 */
export function abortRequest(res: Response, reason: unknown): void {
  const locals = res.locals as { restAbort?: AbortController; restAborted?: unknown };
  locals.restAborted = reason;
  locals.restAbort?.abort(reason);
}

/** Builds the context once per request: its abort signal fires when the client goes away. */
export function contextMiddleware(route: RouteDefinition | null, init?: ContextInit): RequestHandler {
  return (req, res, next) => {
    attachContext(req, res, init, route);
    next();
  };
}

/** The request's context in `res.locals` (made once; a later route only names itself in it). */
export function attachContext(req: Request, res: Response, init?: ContextInit, route: RouteDefinition | null = null): void {
  const locals = res.locals as { restContext?: RequestContext };
  if (!locals.restContext) {
    locals.restContext = createContext({ ...init?.(req), route: route?.name ?? null, requestId: requestIdOf(req, res) }, () => responseSignal(res));
  } else if (route) {
    locals.restContext.route = route.name;
  }
}

/** A client's `X-Request-Id` of 1-128 safe characters is kept; otherwise one is made. Answered in the same header. */
const SAFE_ID = /^[A-Za-z0-9._:\-]{1,128}$/;

function requestIdOf(req: Request, res: Response): string {
  const sent = req.headers['x-request-id'];
  const id = typeof sent === 'string' && SAFE_ID.test(sent) ? sent : randomUUID();
  if (!res.headersSent) res.setHeader('X-Request-Id', id);
  return id;
}
