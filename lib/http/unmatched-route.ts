import type { RequestHandler } from 'express';
import { NotFoundError } from '../errors';
import type { RouteTable } from './routes';

const SEGMENT = /^:[A-Za-z_][A-Za-z0-9_]*$/;

function pathOf(url: string): string {
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function matches(pattern: string[], parts: string[]): boolean {
  if (pattern.length !== parts.length) return false;
  return pattern.every((p, i) => (SEGMENT.test(p) ? parts[i] !== '' : p.toLowerCase() === parts[i].toLowerCase()));
}

/** The JSON 404 in the error shape for a path no route answers (decision 64). */
export function routeNotFound(method: string, path: string, allowed: string[] = []): NotFoundError {
  const shown = `${method} ${path}`;
  if (allowed.length === 0) return new NotFoundError(`No route for ${shown}.`);
  return new NotFoundError(`No route for ${shown}; this path answers ${allowed.join(', ')}.`);
}

/**
 * After the generated routes: a request under one of the API's resources that no route took is a
 * JSON 404 in the error shape (decision 64), never Express's HTML page; a known path asked with
 * another method says which methods it answers (and sets `Allow`). Paths under other first
 * segments go on to the application (its own routes mounted after the API; `api.notFound()` last).
 */
export function unmatchedRoutes(table: RouteTable): RequestHandler {
  let routes: Array<{ method: string; pattern: string[] }> | null = null;
  let segments: Set<string> | null = null;
  return (req, res, next) => {
    if (!routes || !segments) {
      const all = table.all();
      routes = all.map((r) => ({ method: r.method.toUpperCase(), pattern: r.path.split('/').slice(1) }));
      // a relation route under the caller (`/me/tags`) does not make `me` the API's: only resources do
      segments = new Set(all.filter((r) => !r.action.startsWith('relation.') || r.path.startsWith(`/${r.resource}/:`)).map((r) => r.resource.toLowerCase()));
    }
    const parts = pathOf(req.url).split('/').slice(1);
    if (!segments.has((parts[0] ?? '').toLowerCase())) return next();
    const methods = new Set<string>();
    for (const route of routes) if (matches(route.pattern, parts)) methods.add(route.method);
    if (methods.has('GET')) methods.add('HEAD');
    const allowed = [...methods].sort();
    if (allowed.length > 0) res.set('Allow', allowed.join(', '));
    next(routeNotFound(req.method, req.originalUrl.split('?')[0], allowed));
  };
}

/** `app.use('/api/v1', api.notFound())` after everything under the prefix: the JSON 404 for any path left. */
export function notFound(): RequestHandler {
  // rendered here: it runs outside the API router, whose error middleware would not see it
  return (req, res) => {
    const error = routeNotFound(req.method, req.originalUrl.split('?')[0]);
    res.status(error.status).json({ message: error.message, type: error.type, status: error.status });
  };
}
