import { checkDepth } from './bounded-depth';
import { checkParams, type AcceptedParams } from './check-params';
import { mergeParams, type RequestParams } from './merge-params';
import { parseQueryString, rawQueryOf } from './parse-query-string';

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
 * checked); bounded in depth before anything recurses into client values.
 */
export function readParams(source: ParamSource, accepted: AcceptedParams | null, read: boolean): RequestParams {
  const query = parseQueryString(rawQueryOf(source.url));
  if (accepted) checkParams(query, read ? source.body : undefined, accepted);
  const params = mergeParams(query, source.body);
  checkDepth(params, source.body);
  return params;
}
