import { BadRequestError } from '../errors';

/** How deep a client value may nest; far beyond any real filter, far below a stack overflow. */
export const MAX_PARAMETER_DEPTH = 32;
export const MAX_BODY_DEPTH = 64;

/**
 * True when `value` nests deeper than `limit` arrays/objects. Iterative, so a hostile value of
 * 50,000 levels is measured without recursion, before any parser recurses into it.
 */
export function deeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  // two parallel stacks and for-in: no tuple or key array allocated per node (a 1,000-item bulk body)
  const values: object[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const current = values.pop() as Record<string, unknown>;
    const depth = depths.pop() as number;
    if (depth >= limit) return true;
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i += 1) {
        const inner: unknown = current[i];
        if (inner !== null && typeof inner === 'object') {
          values.push(inner);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    for (const key in current) {
      if (!Object.prototype.hasOwnProperty.call(current, key)) continue;
      const inner = current[key];
      if (inner !== null && typeof inner === 'object') {
        values.push(inner);
        depths.push(depth + 1);
      }
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
