import { BadRequestError } from '../../errors';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A plain JSON object from a request, rebuilt without prototype-polluting keys. */
export function plainObject(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new BadRequestError(`${what} must be a JSON object.`);
  }
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (!FORBIDDEN_KEYS.has(key)) out[key] = inner;
  }
  return out;
}

/**
 * The records of a store request: a single attributes object, `{<MODEL>: [...]}`, or a bare array.
 * `many` tells which envelope to answer with.
 */
export function readStoreBody(body: unknown, MODEL: string): { items: unknown[]; many: boolean } {
  if (Array.isArray(body)) return { items: body, many: true };
  const obj = plainObject(body ?? {}, 'The request body');
  if (MODEL in obj && Array.isArray(obj[MODEL])) return { items: obj[MODEL] as unknown[], many: true };
  return { items: [obj], many: false };
}

/** Ids of a deleteById request: `{ids: [...]}` or a bare array. */
export function readIdList(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (body && typeof body === 'object' && Array.isArray((body as { ids?: unknown }).ids)) {
    return (body as { ids: unknown[] }).ids;
  }
  throw new BadRequestError('The "ids" parameter is required and must be an array of ids.', 'ids');
}
