import { isForbiddenKey, isPlainObject } from './safe-keys';

export type RequestParams = Record<string, unknown>;

/**
 * Merges query string (as parseQueryString reads it: bracket notation nested, decision 64) and
 * JSON body into one parameter bag (decision 1); the body wins.
 * Values stay raw (strings may be JSON-encoded); each parser decodes its own parameter so an
 * error can name it. Prototype keys are dropped, and the bag has no prototype.
 */
export function mergeParams(query: Record<string, unknown>, body: unknown): RequestParams {
  const params: RequestParams = Object.create(null) as RequestParams;
  const copy = (source: Record<string, unknown>) => {
    for (const key of Object.keys(source)) {
      if (!isForbiddenKey(key) && source[key] !== undefined) params[key] = source[key];
    }
  };
  if (query && typeof query === 'object') copy(query);
  // Only an object body carries parameters; arrays and scalars are write payloads, not options.
  if (isPlainObject(body)) copy(body);
  return params;
}
