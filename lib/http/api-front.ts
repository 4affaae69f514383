import express, { type Request, type RequestHandler } from 'express';
import type { Loggers } from '../log/logger';
import { logAccess } from './access-log';
import { attachContext, type ContextInit } from './request-context-middleware';

export interface FrontOptions {
  log: Loggers;
  /** Body size limit of the JSON parser (default 1mb). */
  bodyLimit?: string | number;
  context?: ContextInit;
}

/** type-is's test: a request has a body when it says how long it is or that it is chunked. */
const hasBody = (req: Request): boolean => req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']));

/**
 * What every API request goes through before its route, as one middleware: the access log, the
 * request context, the JSON body (parsed only when there is one), then `dispatch`. As separate
 * router layers Express walked each with its own `next` and params step: a few percent of a show.
 */
export function apiFront(options: FrontOptions, dispatch: RequestHandler): RequestHandler {
  const json = express.json({ limit: options.bodyLimit ?? '1mb' });
  return (req, res, next) => {
    logAccess(options.log, req, res);
    attachContext(req, res, options.context);
    if (!hasBody(req)) return dispatch(req, res, next);
    json(req, res, (error?: unknown) => (error ? next(error) : dispatch(req, res, next)));
  };
}
