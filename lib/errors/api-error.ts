import { statusOf, type ErrorType } from './catalogue';

/**
 * Typed errors with an HTTP status and a stable `type`. Thrown anywhere below the HTTP layer and
 * rendered in one place (lib/http/error-middleware.ts) as `{message, type, status, ...body()}`.
 */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly type: ErrorType,
    message: string,
  ) {
    super(message);
    this.status = statusOf(type);
    this.name = new.target.name;
  }

  /** Extra members of the error body beyond message, type and status. */
  body(): Record<string, unknown> {
    return {};
  }
}

export class BadRequestError extends ApiError {
  constructor(message: string, readonly parameter?: string) {
    super('bad_request', message);
  }
}

export class NotFoundError extends ApiError {
  constructor(message: string) {
    super('not_found', message);
  }
}

/** A 404 listing the ids that do not exist (bulk update / delete). */
export class MissingIdsError extends ApiError {
  constructor(readonly model: string, readonly ids: Array<string | number>) {
    super('not_found', `No ${model} records found for ids: ${ids.join(', ')}.`);
  }

  override body(): Record<string, unknown> {
    return { ids: this.ids };
  }
}

/** A 403 whose message says why: a record the caller may not change (decision 69). */
export class RefusedChangeError extends ApiError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

export class UnauthenticatedError extends ApiError {
  constructor() {
    super('unauthenticated', 'Unauthenticated.');
  }
}

export class ForbiddenError extends ApiError {
  constructor(readonly permission?: string, debug = false) {
    super('forbidden', debug && permission ? `Forbidden: ${permission}` : 'Forbidden');
  }
}

