import { BadRequestError } from '../errors';

/** How deep a client value may nest; far beyond any real filter, far below a stack overflow. */
export const MAX_PARAMETER_DEPTH = 32;
export const MAX_BODY_DEPTH = 64;

/**
 * True when `value` nests deeper than `limit` arrays/objects. Iterative, so a hostile value of
 * 50,000 levels is measured without recursion, before any parser recurses into it.
 */
export function deeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth >= limit) return true;
    for (const inner of Array.isArray(current) ? current : Object.values(current as Record<string, unknown>)) {
      if (inner !== null && typeof inner === 'object') stack.push([inner, depth + 1]);
    }
  }
  return false;
}

/** Refuses a request whose parameters or body nest too deep, naming the parameter. */
export function checkDepth(params: Record<string, unknown>, body: unknown): void {
  for (const name in params) {
    const value = params[name];
    // query-string values are strings: nothing to walk
    if (value !== null && typeof value === 'object' && deeperThan(value, MAX_PARAMETER_DEPTH)) throw new BadRequestError(`Parameter "${name}" nests deeper than ${MAX_PARAMETER_DEPTH} levels.`, name);
  }
  if (body !== null && typeof body === 'object' && deeperThan(body, MAX_BODY_DEPTH)) throw new BadRequestError(`The request body nests deeper than ${MAX_BODY_DEPTH} levels.`);
}
