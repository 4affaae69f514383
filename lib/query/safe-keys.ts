import { BadRequestError } from '../errors';

/** Keys that must never reach an object built from client input (prototype pollution). */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN.has(key);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The 400 for a prototype key in a parameter: the same words in the JSON form and in bracket notation (decision 72). */
export function forbiddenKeyError(key: string, parameter: string): BadRequestError {
  return new BadRequestError(`Key "${key}" is not allowed in ${parameter}.`, parameter);
}

/**
 * The first prototype key at any depth of a client value (null: none). Iterative, so a value of
 * any depth is walked without recursion; parsers that read only some keys of an object (a page,
 * a tree's options) would otherwise skip such a key silently and answer wider.
 */
export function forbiddenKeyIn(value: unknown): string | null {
  if (value === null || typeof value !== 'object') return null;
  const stack: object[] = [value];
  while (stack.length > 0) {
    const current = stack.pop() as Record<string, unknown>;
    const array = Array.isArray(current);
    for (const key in current) {
      if (!Object.prototype.hasOwnProperty.call(current, key)) continue;
      if (!array && FORBIDDEN.has(key)) return key;
      const inner = current[key];
      if (inner !== null && typeof inner === 'object') stack.push(inner);
    }
  }
  return null;
}

/** Own entries of a client object; a forbidden key is a 400 naming it and the parameter. */
export function clientEntries(value: Record<string, unknown>, parameter: string): Array<[string, unknown]> {
  return Object.keys(value).map((key) => {
    if (isForbiddenKey(key)) throw forbiddenKeyError(key, parameter);
    return [key, value[key]];
  });
}

/** Lookup in a model record (fields, relations) that never walks the prototype chain. */
export function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}
