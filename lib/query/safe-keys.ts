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

/** Own entries of a client object; a forbidden key is a 400 naming it and the parameter. */
export function clientEntries(value: Record<string, unknown>, parameter: string): Array<[string, unknown]> {
  return Object.keys(value).map((key) => {
    if (isForbiddenKey(key)) throw new BadRequestError(`Key "${key}" is not allowed in ${parameter}.`, parameter);
    return [key, value[key]];
  });
}

/** Lookup in a model record (fields, relations) that never walks the prototype chain. */
export function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}
