import { BadRequestError } from '../errors';
import { deeperThan, MAX_PARAMETER_DEPTH } from './bounded-depth';
import { forbiddenKeyError, forbiddenKeyIn } from './safe-keys';

const JSON_START = /^\s*[[{"]/;
// JSON's own number grammar: `007` is text (JSON.parse would throw on it, a 500)
const JSON_LITERAL = /^\s*(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)\s*$/;

/**
 * A parameter value as the client meant it: query-string values may be JSON-encoded
 * (objects, arrays, strings, booleans, numbers). Anything else stays the string it was.
 * Malformed JSON is a 400 naming the parameter (decision 2); a prototype key at any depth is a
 * 400 naming it (decision 72), also where the parameter's parser would not look at that key.
 */
export function decodeParam(name: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (JSON_START.test(value)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value) as unknown;
    } catch {
      throw new BadRequestError(`Invalid JSON in parameter "${name}".`, name);
    }
    if (deeperThan(parsed, MAX_PARAMETER_DEPTH)) throw new BadRequestError(`Parameter "${name}" nests deeper than ${MAX_PARAMETER_DEPTH} levels.`, name);
    const forbidden = forbiddenKeyIn(parsed);
    if (forbidden !== null) throw forbiddenKeyError(forbidden, name);
    return parsed;
  }
  if (JSON_LITERAL.test(value)) return JSON.parse(value) as unknown;
  return value;
}

/** True when the parameter is absent (missing parameters are null, spec rule 3). */
export function isAbsent(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}
