import type { Request, Response } from 'express';
import type { Loggers } from '../log/logger';
import type { RequestContext } from '../service/request-context';

/**
 * One access-log line per request when it ends: method, path, status, duration and the user. The
 * path is logged without its query string (filters may hold personal data) and no header is ever
 * logged, so credentials (Authorization, cookies) never reach a log. Called by the API front
 * (api-front.ts) for every API request.
 */
export function logAccess(log: Loggers, req: Request, res: Response): void {
  const started = performance.now();
  // 'finish' fires once per response: on() without once()'s wrapper
  res.on('finish', () => {
    const level = res.statusCode >= 500 ? 'error' : 'info';
    // winston formats a line before its transports drop it: skip the work when nothing would log it
    if (!log.access.isLevelEnabled(level)) return;
    const ctx = (res.locals as { restContext?: RequestContext }).restContext;
    const status = res.statusCode;
    const line = { method: req.method, path: req.originalUrl.split('?')[0], status, duration_ms: Math.round((performance.now() - started) * 10) / 10, user: ctx?.user?.id ?? null, route: ctx?.route ?? null };
    const text = `${req.method} ${line.path} ${status} ${line.duration_ms} ms`;
    log.access.log(level, text, line);
  });
}
