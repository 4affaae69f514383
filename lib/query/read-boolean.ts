import { BadRequestError } from '../errors';
import type { RequestParams } from './merge-params';

const TRUE = new Set(['true', '1']);
const FALSE = new Set(['false', '0']);

/** A boolean value (true/false/1/0 as JSON or string, decision 1); undefined when not one. */
export function toBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value === 'string') {
    const text = value.trim().replace(/^"(.*)"$/, '$1').trim().toLowerCase();
    if (TRUE.has(text)) return true;
    if (FALSE.has(text)) return false;
  }
  return undefined;
}

/** Boolean parameter; undefined when absent (missing, null or empty), 400 naming it otherwise. */
export function readBoolean(params: RequestParams, name: string): boolean | undefined {
  const value = Object.prototype.hasOwnProperty.call(params, name) ? params[name] : undefined;
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return undefined;
  const result = toBoolean(value);
  if (result === undefined) {
    throw new BadRequestError(`Invalid boolean in parameter "${name}"; use true, false, 1 or 0.`, name);
  }
  return result;
}
