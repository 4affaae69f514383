import type { DatabaseErrorInfo } from '../../lib/driver';

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  codeName?: unknown;
  message?: unknown;
  keyPattern?: unknown;
  keyValue?: unknown;
  errors?: unknown;
  path?: unknown;
  writeErrors?: unknown;
  errorLabels?: unknown;
  errorLabelSet?: unknown;
  errorResponse?: unknown;
  cause?: unknown;
  errmsg?: unknown;
}

const CONNECTION_ERRORS = new Set([
  'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoServerSelectionError', 'MongoTopologyClosedError',
  'MongoNotConnectedError', 'MongoServerClosedError', 'MongoPoolClosedError', 'MongooseServerSelectionError',
  'MongoPoolClearedError', 'MongoWaitQueueTimeoutError',
]);

/**
 * Server answers meaning "no primary to serve this now": an election, a step-down, a shutdown,
 * a node that is not (or no longer) the primary, a host it could not reach. The driver retries
 * reads and retryable writes once on them itself; what is still left is the database being
 * unavailable (503 connection_error), never a 500.
 */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
  10058, // LegacyNotPrimary
  133, // FailedToSatisfyReadPreference
]);
const UNAVAILABLE_NAMES = new Set([
  'HostUnreachable', 'HostNotFound', 'NetworkTimeout', 'ShutdownInProgress', 'PrimarySteppedDown', 'SocketException',
  'NotWritablePrimary', 'NotMaster', 'InterruptedAtShutdown', 'InterruptedDueToReplStateChange', 'NotPrimaryNoSecondaryOk',
  'NotMasterNoSlaveOk', 'NotPrimaryOrSecondary', 'NotMasterOrSecondary', 'LegacyNotPrimary', 'FailedToSatisfyReadPreference',
]);

/** A server error (or a write concern error inside a write result) of the unavailable kind. */
function isUnavailableAnswer(e: ErrorLike, depth = 0): boolean {
  if (depth > 4) return false;
  if ((typeof e.code === 'number' && UNAVAILABLE_CODES.has(e.code)) || (typeof e.codeName === 'string' && UNAVAILABLE_NAMES.has(e.codeName))) return true;
  const concern = (e as { writeConcernError?: unknown }).writeConcernError ?? (e.errorResponse as { writeConcernError?: unknown } | undefined)?.writeConcernError;
  if (concern && typeof concern === 'object' && isUnavailableAnswer(concern as ErrorLike, depth + 1)) return true;
  return !!e.cause && typeof e.cause === 'object' && isUnavailableAnswer(e.cause as ErrorLike, depth + 1);
}

/**
 * A lost or refused connection, however it is wrapped: a bulk write carries the network error as
 * its cause, and mongoose reports a dead connection as a buffering time-out.
 */
function isConnectionError(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  for (let proto = Object.getPrototypeOf(error); proto && proto !== Error.prototype; proto = Object.getPrototypeOf(proto)) {
    if (CONNECTION_ERRORS.has((proto as { constructor: { name: string } }).constructor.name)) return true;
  }
  const e = error as ErrorLike;
  if (typeof e.name === 'string' && CONNECTION_ERRORS.has(e.name)) return true;
  if (typeof e.message === 'string' && /ECONNREFUSED|ECONNRESET|buffering timed out|connection .*closed|connection is not open|client (was|is) closed|topology is closed|Server selection timed out/i.test(e.message)) {
    return true;
  }
  return isConnectionError(e.cause, depth + 1);
}

function firstKey(value: unknown): string | undefined {
  if (value && typeof value === 'object') return Object.keys(value)[0];
  return undefined;
}

/** The field of a duplicate-key error: keyPattern/keyValue, else the index name in the message. */
function duplicateField(e: ErrorLike): string | undefined {
  const field = firstKey(e.keyPattern) ?? firstKey(e.keyValue);
  if (field) return field === '_id' ? 'id' : field;
  const response = e.errorResponse as ErrorLike | undefined;
  if (response && response !== e) {
    const inner = firstKey(response.keyPattern) ?? firstKey(response.keyValue);
    if (inner) return inner;
  }
  const match = typeof e.message === 'string' ? /index: (\w+?)_-?1/.exec(e.message) : null;
  return match?.[1];
}

/** The E11000 inside an error: itself, a bulk write's first write error, or its cause. */
function duplicateKeyError(e: ErrorLike): ErrorLike | null {
  if (e.code === 11000 || e.code === 11001) return e;
  if (Array.isArray(e.writeErrors)) {
    for (const w of e.writeErrors as ErrorLike[]) {
      const inner = (w as { err?: ErrorLike }).err ?? w;
      if (inner.code === 11000 || inner.code === 11001) return { ...inner, ...(inner.errmsg ? { message: inner.errmsg } : {}) } as ErrorLike;
    }
  }
  return null;
}

/**
 * The API's own words for a mongoose validator failure: mongoose messages quote the rejected value
 * and the schema internals ("Cast to Number failed for value ... at path ..."), driver text that
 * must not reach a client (decision 25). The full error still goes to the database-error log.
 */
function validatorMessage(path: string, kind: unknown, name: unknown): string {
  const field = path.replace(/_/g, ' ');
  if (kind === 'required') return `The ${field} field is required.`;
  if (kind === 'enum') return `The selected ${field} is invalid.`;
  if (kind === 'min' || kind === 'max') return `The ${field} is out of range.`;
  if (kind === 'minlength' || kind === 'maxlength') return `The ${field} has an invalid length.`;
  if (name === 'CastError') return `The ${field} has an invalid type.`;
  return `The ${field} is invalid.`;
}

const TOO_LARGE = 'The answer is larger than the database can return in one document (16 MB): load fewer or shallower relations, select fewer fields or ask for a smaller page.';

/** mongoose / MongoDB errors in the API's terms; null when not a database error. */
export function translateMongoError(error: unknown): DatabaseErrorInfo | null {
  if (!error || typeof error !== 'object') return null;
  const e = error as ErrorLike;
  const dup = duplicateKeyError(e);
  if (dup) {
    const field = duplicateField(dup) ?? duplicateField(e);
    return field ? { type: 'unique_violation', field } : { type: 'unique_violation' };
  }
  const name = typeof e.name === 'string' ? e.name : '';
  if (name === 'ValidationError' && e.errors && typeof e.errors === 'object') {
    // a required path left out or null is what PostgreSQL calls a not-null violation: the same
    // answer on both drivers (`not_null_violation` naming the field), the first such path
    const required = Object.entries(e.errors as Record<string, { kind?: unknown }>).find(([path, inner]) => inner?.kind === 'required' && path !== '__proto__');
    if (required) return { type: 'not_null_violation', field: required[0] };
    const errors: Record<string, string[]> = {};
    for (const [path, inner] of Object.entries(e.errors as Record<string, ErrorLike & { kind?: unknown }>)) {
      if (path === '__proto__' || path === 'constructor' || path === 'prototype') continue;
      errors[path] = [validatorMessage(path, inner?.kind, inner?.name)];
    }
    return { type: 'validation_error', errors };
  }
  if (name === 'CastError') return typeof e.path === 'string' ? { type: 'bad_request', field: e.path } : { type: 'bad_request' };
  if (isConnectionError(e) || isUnavailableAnswer(e)) return { type: 'connection_error' };
  // mongoose's withTransaction already retried it: what is left is a conflict the caller may retry
  if (e.codeName === 'WriteConflict' || e.code === 112) return { type: 'conflict' };
  if (e.codeName === 'MaxTimeMSExpired' || e.code === 50 || e.codeName === 'ExceededTimeLimit' || e.code === 262) return { type: 'timeout' };
  // a result document over the BSON limit (a cursor reply, a $lookup's array, a $facet page): the
  // request asked for too much at once, which its sender can change
  if (e.codeName === 'BSONObjectTooLarge' || e.code === 10334 || e.code === 4568 || e.code === 4031700) {
    return { type: 'bad_request', message: TOO_LARGE };
  }
  // a document the collection's validator refuses (DocumentValidationFailure): the sender's data, as
  // PostgreSQL's CHECK violation (23514) is a bad_request
  const written = Array.isArray(e.writeErrors) ? ((e.writeErrors[0] as { err?: ErrorLike } | undefined)?.err ?? (e.writeErrors[0] as ErrorLike | undefined)) : undefined;
  if (e.code === 121 || e.codeName === 'DocumentValidationFailure' || written?.code === 121) return { type: 'bad_request', message: 'A record does not pass the collection\'s validation rules.' };
  if (name.startsWith('Mongo')) return { type: 'database_error' };
  return null;
}
