/**
 * Every error `type` the API can answer, with its HTTP status: a closed list, rendered by the one
 * error middleware. The README's error table is checked against it by a test.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unique_violation: 409,
  foreign_key_violation: 409,
  idempotency_key_in_progress: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  validation_error: 422,
  unknown_field: 422,
  idempotency_key_reused: 422,
  precondition_required: 428,
  too_many_requests: 429,
  not_null_violation: 422,
  internal_error: 500,
  not_implemented: 501,
  database_error: 500,
  connection_error: 503,
  timeout: 503,
} as const;

export type ErrorType = keyof typeof ERROR_STATUS;

export function statusOf(type: ErrorType): number {
  return ERROR_STATUS[type];
}
