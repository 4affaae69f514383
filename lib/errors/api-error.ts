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

  /** Response headers the error answers with (`ETag` of a 412, `Retry-After` of a 409 in progress). */
  headers(): Record<string, string> {
    return {};
  }
}

/**
 * Decision 81: `If-Match` named another version than the record's (nothing written). Carries the
 * current tag in `ETag` when the record exists, and the stale ids of a batch in `error.ids`.
 */
export class PreconditionFailedError extends ApiError {
  constructor(readonly current: string | null, readonly ids?: Array<string | number>) {
    super('precondition_failed', ids ? `The records were changed since they were read: ${ids.join(', ')}.` : 'The record was changed since it was read (If-Match does not name its current version).');
  }

  override body(): Record<string, unknown> {
    return this.ids ? { error: { ids: this.ids } } : {};
  }

  override headers(): Record<string, string> {
    return this.current ? { ETag: this.current } : {};
  }
}

/** Decision 81: `requireIfMatch` and a PUT, PATCH or DELETE without `If-Match`. */
export class PreconditionRequiredError extends ApiError {
  constructor() {
    super('precondition_required', 'This resource requires If-Match with the version read (its ETag) on PUT, PATCH and DELETE.');
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

