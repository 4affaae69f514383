import { checkDepth } from './bounded-depth';
import { checkParams, type AcceptedParams } from './check-params';
import { mergeParams, type RequestParams } from './merge-params';
import { parseQueryString, rawQueryOf } from './parse-query-string';
import { forbiddenKeyError, forbiddenKeyIn, isPlainObject } from './safe-keys';

/** What a route reads its parameters from: the request's URL and parsed JSON body. */
export interface ParamSource {
  url: string;
  body: unknown;
}

/**
 * A route's parameters, checked, from its request: the one call http makes into the parser before
 * the route runs. Read from the URL, so bracket notation means the same whatever the app's
 * `query parser` (decision 64); a write's body is its data, a read's JSON body carries parameters;
 * unknown names are a 400 (`accepted` null: a route the parameter table does not know, not
 * checked, except for prototype names); bounded in depth before anything recurses into client
 * values. A prototype key anywhere in a read's parameters is a 400 naming it (decision 72): in the
 * query string parseQueryString refuses it, in a read's JSON body this does (JSON-encoded values
 * are checked where they are decoded, json-param.ts).
 */
export function readParams(source: ParamSource, accepted: AcceptedParams | null, read: boolean): RequestParams {
  const query = parseQueryString(rawQueryOf(source.url));
  checkParams(query, read ? source.body : undefined, accepted);
  const params = mergeParams(query, source.body);
  checkDepth(params, source.body);
  if (read && isPlainObject(source.body)) refusePrototypeKeys(source.body);
  return params;
}

/** A read body's parameters hold no prototype key at any depth (checked after the depth bound). */
function refusePrototypeKeys(body: Record<string, unknown>): void {
  for (const name of Object.keys(body)) {
    const key = forbiddenKeyIn(body[name]);
    if (key !== null) throw forbiddenKeyError(key, name);
  }
}
