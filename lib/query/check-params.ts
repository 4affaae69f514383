import { BadRequestError } from '../errors';
import { isForbiddenKey, isPlainObject } from './safe-keys';

/** The names one route accepts: its own parameters and the application's (`allowParams`), which it ignores. */
export interface AcceptedParams {
  own: readonly string[];
  app: ReadonlySet<string>;
  /** Names the route's kind takes but its records do not support, with the 400's message (lib/query/inapplicable-params.ts). */
  inapplicable?: ReadonlyMap<string, string>;
}

function refuseInapplicable(source: Record<string, unknown>, accepted: AcceptedParams): void {
  if (!accepted.inapplicable) return;
  for (const name of Object.keys(source)) {
    const reason = accepted.inapplicable.get(name);
    if (reason !== undefined && !accepted.app.has(name)) throw new BadRequestError(reason, name);
  }
}

function unknownIn(source: Record<string, unknown>, accepted: AcceptedParams | null, found: string[]): void {
  for (const name of Object.keys(source)) {
    // a prototype name is never a parameter (decision 72), even where the route is not checked
    const known = accepted ? accepted.own.includes(name) || accepted.app.has(name) : !isForbiddenKey(name);
    if (!known && !found.includes(name)) found.push(name);
  }
}

/**
 * A 400 naming a parameter the route's records do not support (`soft_delete`, `hierarchy`), else
 * naming every parameter the route does not know and listing the accepted ones (decision 64).
 * `query` is the parsed query string; `body` is checked only for reads, whose JSON body carries
 * parameters (a write's body is its data). `accepted` null: a route the parameter table does not
 * know; only prototype names (`__proto__`, `constructor`, `prototype`) are refused there, since
 * mergeParams would drop them silently.
 */
export function checkParams(query: Record<string, unknown>, body: unknown, accepted: AcceptedParams | null): void {
  if (accepted) {
    refuseInapplicable(query, accepted);
    if (body !== undefined && isPlainObject(body)) refuseInapplicable(body, accepted);
  }
  const found: string[] = [];
  unknownIn(query, accepted, found);
  if (body !== undefined && isPlainObject(body)) unknownIn(body, accepted, found);
  if (found.length === 0) return;
  const names = found.map((n) => `"${n}"`).join(', ');
  const list = accepted ? [...accepted.own, ...accepted.app] : [];
  const what = !accepted ? 'It is not a parameter.' : list.length === 0 ? 'This route takes no query parameters.' : `Accepted: ${list.join(', ')}.`;
  throw new BadRequestError(`Unknown parameter${found.length > 1 ? 's' : ''} ${names}. ${what}`, found[0]);
}
