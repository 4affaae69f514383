import type { ErrorRequestHandler, Request } from 'express';
import { ApiError, DatabaseError } from '../errors';
import type { DatabaseErrorInfo } from '../driver';
import type { Loggers } from '../log/logger';
import { bearerChallenge } from './www-authenticate';

/**
 * The drivers' view of an error raised outside the service (an authentication hook or an
 * application hook asking the database itself): the database being unavailable or too slow
 * there is a 503 as well, never a 500.
 */
export type Unavailability = (error: unknown) => DatabaseErrorInfo | null;

interface BodyParserError {
  type?: string;
  status?: number;
}

/**
 * The one place errors become responses: `{message, type, status, ...}`. Typed errors render
 * themselves; database errors are logged in full on the database channel; anything else is a 500
 * whose details stay in the log. No stack trace or driver text reaches a client. A 401 carries
 * `WWW-Authenticate` (`challenge`, by default a plain bearer challenge).
 */
export function errorMiddleware(log: Loggers, unavailability?: Unavailability, challenge?: (req: Request) => string): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    if (!(err instanceof ApiError) && unavailability) {
      const info = unavailability(err);
      if (info && (info.type === 'connection_error' || info.type === 'timeout')) err = new DatabaseError(info, { cause: err });
    }
    if (err instanceof ApiError) {
      if (err instanceof DatabaseError) {
        const cause = (err as { cause?: unknown }).cause;
        // a 4xx the database raised (duplicate, reference, not null) is the client's mistake: warn, no stack
        if (err.status < 500) log.db.warn(`${req.method} ${req.originalUrl}: ${err.type}`, { error: describe(cause ?? err, false), field: err.info.field });
        else log.db.error(`${req.method} ${req.originalUrl}: ${err.type}`, { error: describe(cause ?? err) });
      }
      // unavailable, too slow, or the caller's share taken: a client may come back, a little later
      if (err.status === 503 || err.status === 429) res.set('Retry-After', '2');
      // a 401 says how to authenticate (RFC 6750); the body stays decision 26's
      if (err.status === 401) res.set('WWW-Authenticate', challenge ? challenge(req) : bearerChallenge({}, Boolean(req.headers.authorization)));
      res.set(err.headers());
      res.status(err.status).json({ message: err.message, type: err.type, status: err.status, ...err.body() });
      return;
    }
    const parserError = err as BodyParserError;
    if (parserError && parserError.type === 'entity.parse.failed') {
      res.status(400).json({ message: 'Malformed JSON in the request body.', type: 'bad_request', status: 400 });
      return;
    }
    if (parserError && parserError.type === 'entity.too.large') {
      res.status(413).json({ message: 'The request body is too large.', type: 'payload_too_large', status: 413 });
      return;
    }
    if (parserError && typeof parserError.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
      res.status(parserError.status).json({ message: 'The request could not be read.', type: 'bad_request', status: parserError.status });
      return;
    }
    log.app.error(`${req.method} ${req.originalUrl}: unexpected error`, { error: describe(err) });
    res.status(500).json({ message: 'Internal server error.', type: 'internal_error', status: 500 });
  };
}

function describe(error: unknown, withStack = true): Record<string, unknown> {
  if (error instanceof Error) {
    const extra = error as Error & { code?: unknown; parent?: unknown; errorResponse?: unknown; cause?: unknown };
    return {
      name: error.name,
      message: error.message,
      code: extra.code,
      stack: withStack ? error.stack : undefined,
      parent: extra.parent instanceof Error ? extra.parent.message : undefined,
      cause: extra.cause instanceof Error ? describe(extra.cause, withStack) : undefined,
    };
  }
  return { value: String(error) };
}
