/** Recognising the index probe of a let + pipeline `$lookup` (lookup.ts): the `$match` on `$$var`. */
import { ObjectId } from 'bson';
import type { Doc } from './values';

export interface Probe {
  field: string;
  variable: string;
  op: '$eq' | '$in';
}

export const isPlain = (v: unknown): v is Doc => v !== null && typeof v === 'object' && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

/** Values mingo's isEqual compares exactly as keyOf does. */
export function isScalar(v: unknown): boolean {
  return v === undefined || v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v instanceof ObjectId || v instanceof Date;
}

export const fieldPath = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 1 && v[0] === '$' && v[1] !== '$' ? v.slice(1) : undefined);
const variableName = (v: unknown, names: Set<string>): string | undefined => {
  if (typeof v !== 'string' || !v.startsWith('$$')) return undefined;
  const name = v.slice(2);
  return names.has(name) ? name : undefined;
};

function probeOfExpr(expr: unknown, names: Set<string>): Probe | undefined {
  if (!isPlain(expr) || Object.keys(expr).length !== 1) return undefined;
  const [op] = Object.keys(expr);
  const arg = expr[op];
  if (op === '$and' && Array.isArray(arg)) {
    for (const sub of arg) {
      const p = probeOfExpr(sub, names);
      if (p) return p;
    }
    return undefined;
  }
  if (!Array.isArray(arg) || arg.length !== 2) return undefined;
  if (op === '$eq') {
    const [a, b] = arg;
    const f1 = fieldPath(a), v1 = variableName(b, names);
    if (f1 !== undefined && v1 !== undefined) return { field: f1, variable: v1, op: '$eq' };
    const f2 = fieldPath(b), v2 = variableName(a, names);
    if (f2 !== undefined && v2 !== undefined) return { field: f2, variable: v2, op: '$eq' };
  } else if (op === '$in') {
    const f = fieldPath(arg[0]), v = variableName(arg[1], names);
    if (f !== undefined && v !== undefined) return { field: f, variable: v, op: '$in' };
  }
  return undefined;
}

function probeOfMatch(match: unknown, names: Set<string>): Probe | undefined {
  if (!isPlain(match)) return undefined;
  if ('$expr' in match) {
    const p = probeOfExpr(match.$expr, names);
    if (p) return p;
  }
  if (Array.isArray(match.$and)) {
    for (const sub of match.$and) {
      const p = probeOfMatch(sub, names);
      if (p) return p;
    }
  }
  return undefined;
}

/** The index probe of a let + pipeline lookup, or undefined when it is not recognised. */
export function probeOf(spec: Doc): Probe | undefined {
  if (!isPlain(spec.let) || !Array.isArray(spec.pipeline) || spec.pipeline.length === 0) return undefined;
  const first = spec.pipeline[0];
  if (!isPlain(first) || Object.keys(first).length !== 1 || !('$match' in first)) return undefined;
  return probeOfMatch(first.$match, new Set(Object.keys(spec.let)));
}
