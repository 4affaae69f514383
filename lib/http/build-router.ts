import type { Request, RequestHandler, Response } from 'express';
import type { AcceptedParams } from '../query/check-params';
import { readParams } from '../query/read-params';
import { inapplicableParams, type ParamScope } from '../query/inapplicable-params';
import { routeParams } from '../query/route-params';
import { ApiError, BadRequestError } from '../errors';
import type { RequestContext } from '../service/request-context';
import { abortRequest, contextOf } from './request-context-middleware';
import { Reply, type RouteDefinition, type RouteTable } from './routes';
import { dropConditionsOnBypass, sendJson } from './send-json';
import { serialize, toJson } from '../service/reads/serialize';
import { answerHeaders, holdKey, type HeldKey, type IdempotencyGate } from './idempotency';
import { holdFor } from '../service/held-key';

/** Middleware a feature puts in front of some routes (permission checks, cache), chosen per route. */
export type RouteMiddlewareFactory = (route: RouteDefinition) => RequestHandler | null;

/** What the route accepts (null: a route the parameter table does not know, not checked). */
function acceptedBy(route: RouteDefinition, options: RouterOptions): AcceptedParams | null {
  const listed = route.params ?? routeParams(route.action);
  if (!listed) return null;
  const inapplicable = options.scope ? inapplicableParams(listed, options.scope(route)) : new Map<string, string>();
  const own = listed.filter((name) => !inapplicable.has(name));
  return { own, app: new Set(options.allowParams?.(route) ?? []), inapplicable };
}

function handler(route: RouteDefinition, options: RouterOptions): RequestHandler {
  const accepted = acceptedBy(route, options);
  const read = route.access === 'read';
  return async (req: Request, res: Response): Promise<void> => {
    const ctx = contextOf(res);
    let result: unknown;
    let held: HeldKey | null = null;
    let bodyDigest: string | undefined;
    try {
      // parsed from the URL and checked against what the route accepts (query/read-params.ts)
      const params = readParams(req, accepted, read);
      // a write body's keys, checked whole before any of the route's work (decisions 50, 77)
      route.checkBody?.(withoutAppParams(req.body, accepted), params);
      // decision 80: a repeated Idempotency-Key answers what the first request answered
      const key = await holdKey(options.idempotency, route, req, ctx);
      if (key instanceof Reply) result = key;
      else {
        held = key;
        // a streamed body's digest is reported by the handler once read (decision 80, routes.ts StreamedBody)
        const input = { req, res, ctx, params, ...(held && route.streamedBody ? { bodyDigest: (digest: string) => (bodyDigest = digest) } : {}) };
        // the request deadline (armed in `run`) answers for a slow route; the work goes on to its
        // end behind it, so what it commits is still followed by the cache bump below
        if (held) holdFor(ctx, held.mark);
        result = await (options.around ? options.around(route, ctx, () => route.handler(input)) : route.handler(input));
      }
    } catch (error) {
      // nothing stored for a failed request; a store that fails too must not hide the request's own error
      await held?.release().catch(() => undefined);
      throw error;
    } finally {
      // also when a hook failed after a commit: what was written is written
      const after = options.beforeRespond?.(ctx);
      if (after) await after;
    }
    if (route.answers === 'stream') return;
    const json = result instanceof Reply ? result.json : toJson(result);
    // stored also when the deadline answered already: what was written is written
    // a store that fails here leaves the key claimed until it is stale: the answer still goes out
    if (held) await held.complete(result instanceof Reply ? result.status : 200, answerHeaders(res, result instanceof Reply ? result.headers : {}), json ?? JSON.stringify(serialize((result as Reply).body)), bodyDigest).catch(() => undefined);
    // a route that streamed its own answer (an import's progress) ends it now, after the cache bump and the key's store
    const finish = (res.locals as { restFinish?: () => void }).restFinish;
    if (finish) return finish();
    // the deadline answered already (503 timeout): the late result has no one to go to
    if (res.headersSent || deadlinePassed(res)) return;
    if (!(result instanceof Reply)) {
      sendJson(req, res, json!);
      return;
    }
    res.status(result.status).set(result.headers);
    if (result.status !== 304) dropConditionsOnBypass(req);
    if (result.status === 304) res.end();
    else if (result.json !== undefined) res.type('application/json').send(result.json);
    else res.json(serialize(result.body));
  };
}

/** A body without the application's own parameters (`allowParams`): a body may carry them (decision 1), the library ignores them. */
function withoutAppParams(body: unknown, accepted: AcceptedParams | null): unknown {
  if (!accepted || accepted.app.size === 0 || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  if (!Object.keys(body).some((key) => accepted.app.has(key))) return body;
  return Object.fromEntries(Object.entries(body).filter(([key]) => !accepted.app.has(key)));
}

/** True once the request's deadline answered for it. */
function deadlinePassed(res: Response): boolean {
  return (res.locals as { restDeadlinePassed?: boolean }).restDeadlinePassed === true;
}

/**
 * The request deadline (REST_REQUEST_TIMEOUT_MS) of a JSON route, armed when the route is matched:
 * it covers the whole chain (authentication, which may ask the database, permissions, the cache,
 * the route's work). When it fires before an answer went out, the answer is a 503 `timeout` sent
 * then (with Retry-After), the request's abort signal fires, and whatever the chain does later
 * (a late result, a late error) is dropped. Exports stream and have no deadline.
 */
function armDeadline(res: Response, deadlineMs: number, answer: (error: ApiError) => void): void {
  const locals = res.locals as { restDeadlineArmed?: boolean };
  // once per request (`next('route')` runs another route's chain under the same deadline)
  if (locals.restDeadlineArmed) return;
  locals.restDeadlineArmed = true;
  const timer = setTimeout(() => {
    if (res.headersSent || res.writableEnded) return;
    (res.locals as { restDeadlinePassed?: boolean }).restDeadlinePassed = true;
    const error = new ApiError('timeout', `The request took longer than ${deadlineMs} ms; try again later.`);
    abortRequest(res, error);
    answer(error);
  }, deadlineMs);
  const clear = (): void => clearTimeout(timer);
  res.once('finish', clear);
  res.once('close', clear);
}

export interface RouterOptions {
  /** Runs after a route's work, before its answer is sent (cache versions are bumped here); undefined: nothing to wait for. */
  beforeRespond?: (ctx: RequestContext) => Promise<void> | undefined;
  /** Runs each route's work (read routes may read from replicas there, decision 86). */
  around?: (route: RouteDefinition, ctx: RequestContext, work: () => Promise<unknown>) => Promise<unknown>;
  /** Deadline of JSON routes in ms (REST_REQUEST_TIMEOUT_MS). */
  deadlineMs?: number;
  /** The application's own parameters on a route (`allowParams`): accepted, and ignored by the library. */
  allowParams?: (route: RouteDefinition) => readonly string[];
  /** What a route's records support (soft delete, hierarchy): parameters for what they lack are a 400 saying so. */
  scope?: (route: RouteDefinition) => ParamScope;
  /** Idempotency-Key stores (decision 80), per route. */
  idempotency?: IdempotencyGate;
}

/** A route ready to match: its path split into literal segments (lower case) and `:param` names. */
interface Matcher {
  route: RouteDefinition;
  method: string;
  segments: { literal: string | null; param: string | null }[];
  layers: RequestHandler[];
}

const SEGMENT = /^(?::([A-Za-z_][A-Za-z0-9_]*)|([A-Za-z0-9._~-]+))$/;

function matcherOf(route: RouteDefinition, chain: RequestHandler[], options: RouterOptions): Matcher {
  const parts = route.path.split('/').slice(1);
  const segments = parts.map((part) => {
    const m = SEGMENT.exec(part);
    // the table only holds literal and `:name` segments; anything else would need Express's matcher
    if (!m) throw new Error(`Route ${route.name}: unsupported path segment "${part}" in ${route.path}`);
    return { param: m[1] ?? null, literal: m[2] ? m[2].toLowerCase() : null };
  });
  return { route, method: route.method.toUpperCase(), segments, layers: [...chain, handler(route, options)] };
}

/** Express's matching rules for these paths: case-insensitive literals, decoded params, a trailing slash allowed. */
function match(matcher: Matcher, parts: string[]): Record<string, string> | null {
  const { segments } = matcher;
  if (segments.length !== parts.length) return null;
  let params: Record<string, string> | null = null;
  for (let i = 0; i < segments.length; i += 1) {
    const { literal, param } = segments[i];
    const part = parts[i];
    if (literal !== null) {
      if (part !== literal && part.toLowerCase() !== literal) return null;
    } else if (param !== null) {
      if (part === '') return null;
      (params ??= {})[param] = decodeSegment(part);
    }
  }
  return params ?? {};
}

function decodeSegment(part: string): string {
  if (!part.includes('%')) return part;
  try {
    return decodeURIComponent(part);
  } catch {
    throw new BadRequestError(`The path segment "${part}" is not valid URL encoding.`);
  }
}

/**
 * Every route of the table as one middleware. Express would walk a router per resource, a route
 * layer per route and a layer per middleware, each with its own `next` and params processing;
 * here the request's first path segment picks the resource's routes (in table order), the first
 * whose method and path match runs its chain, and nothing else is visited. The list benchmark's
 * profile had Express's nested routers at a tenth of the library's own time per request.
 * Semantics kept: HEAD runs GET routes, `next('route')` tries the next match, an OPTIONS request
 * no route answers gets 200 with `Allow`, errors and rejected promises go to the error middleware.
 */
export function buildRouter(table: RouteTable, middlewares: RouteMiddlewareFactory[], options: RouterOptions = {}): RequestHandler {
  const deadlineMs = options.deadlineMs;
  const bySegment = new Map<string, Matcher[]>();
  const anySegment: Matcher[] = [];
  const all: Matcher[] = [];
  for (const route of table.all()) {
    const chain = middlewares.map((make) => make(route)).filter((m): m is RequestHandler => m !== null);
    const matcher = matcherOf(route, chain, options);
    all.push(matcher);
    const first = matcher.segments[0]?.literal;
    if (first == null) anySegment.push(matcher);
  }
  // each segment's list keeps the table's order, routes starting with a parameter included
  for (const matcher of all) {
    const first = matcher.segments[0]?.literal;
    if (first != null && !bySegment.has(first)) bySegment.set(first, all.filter((m) => m.segments[0]?.literal === first || m.segments[0]?.literal == null));
  }

  return (req, res, out) => {
    let path = req.path;
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    const parts = path.slice(1).split('/');
    const candidates = bySegment.get(parts[0]) ?? bySegment.get(parts[0].toLowerCase()) ?? anySegment;
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const options = req.method === 'OPTIONS';
    let index = 0;
    let allowed: string[] | null = null;

    const tryNext = (): void => {
      while (index < candidates.length) {
        const matcher = candidates[index];
        index += 1;
        // another method's route only matters to an OPTIONS request (its Allow header)
        if (matcher.method !== method && !options) continue;
        let params: Record<string, string> | null;
        try {
          params = match(matcher, parts);
        } catch (error) {
          out(error);
          return;
        }
        if (!params) continue;
        if (matcher.method !== method) {
          (allowed ??= []).push(matcher.method);
          continue;
        }
        run(matcher, params);
        return;
      }
      if (options && allowed) {
        const methods = [...new Set(allowed.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])))].sort().join(', ');
        res.status(200).set('Allow', methods).type('text/plain').send(methods);
        return;
      }
      out();
    };

    const run = (matcher: Matcher, params: Record<string, string>): void => {
      req.params = params;
      const ctx = (res.locals as { restContext?: RequestContext }).restContext;
      if (ctx) ctx.route = matcher.route.name;
      let layer = 0;
      if (deadlineMs && matcher.route.answers !== 'stream' && !matcher.route.longRunning) armDeadline(res, deadlineMs, out);
      const next = (error?: unknown): void => {
        // the deadline answered: nothing the chain does afterwards reaches the client
        if (deadlinePassed(res)) return;
        if (error === 'route') return tryNext();
        if (error === 'router') return out();
        if (error) return out(error);
        const fn = matcher.layers[layer];
        layer += 1;
        if (!fn) return tryNext();
        try {
          const result: unknown = fn(req, res, next);
          if (result instanceof Promise) result.catch((e: unknown) => next(e ?? new Error('Rejected promise')));
        } catch (e) {
          next(e);
        }
      };
      next();
    };

    tryNext();
  };
}
