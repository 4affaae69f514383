import { EJSON, ObjectId, type Document } from 'bson';

export type Doc = Record<string, unknown>;

function isPlainObject(v: unknown): v is Doc {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Canonical string for a value, used as map key for _id and index entries. Numbers of any BSON
 * width are the same JS number after decoding, so 1 (int32) and 1.0 (double) collide as in MongoDB.
 */
export function keyOf(value: unknown): string {
  if (value === undefined || value === null) return 'n';
  switch (typeof value) {
    case 'string':
      return 's' + value;
    case 'number':
      return 'd' + (Object.is(value, -0) ? 0 : value);
    case 'boolean':
      return value ? 'bt' : 'bf';
    default:
      break;
  }
  if (value instanceof ObjectId) return 'o' + value.toHexString();
  if (value instanceof Date) return 't' + value.getTime();
  return 'j' + EJSON.stringify(value as Document, { relaxed: false });
}

/** Deep copy of plain objects/arrays/Dates; bson value classes are immutable and shared. */
export function cloneDeep<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => cloneDeep(v)) as unknown as T;
  if (value instanceof Date) return new Date(value.getTime()) as unknown as T;
  if (isPlainObject(value)) {
    const out: Doc = {};
    for (const k of Object.keys(value)) out[k] = cloneDeep(value[k]);
    return out as T;
  }
  return value;
}

/**
 * All values reachable at a dotted path, expanding arrays the way MongoDB index keys do
 * (multikey). Missing paths yield no values.
 */
export function pathValues(doc: unknown, path: string): unknown[] {
  const parts = path.split('.');
  let current: unknown[] = [doc];
  for (const part of parts) {
    const next: unknown[] = [];
    for (const v of current) {
      if (Array.isArray(v)) {
        if (/^\d+$/.test(part) && Number(part) < v.length) next.push(v[Number(part)]);
        else for (const el of v) if (isPlainObject(el) && part in el) next.push(el[part]);
      } else if (isPlainObject(v) && part in v) {
        next.push(v[part]);
      }
    }
    current = next;
  }
  const out: unknown[] = [];
  for (const v of current) {
    if (Array.isArray(v)) out.push(...v);
    else out.push(v);
  }
  return out;
}

/** Render a value as the server does in E11000 messages: `{ sku: "x" }`. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof ObjectId) return `ObjectId('${value.toHexString()}')`;
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (Array.isArray(value)) return `[ ${value.map(formatValue).join(', ')} ]`;
  if (isPlainObject(value)) {
    const entries = Object.entries(value).map(([k, v]) => `${k}: ${formatValue(v)}`);
    return entries.length ? `{ ${entries.join(', ')} }` : '{}';
  }
  return EJSON.stringify(value as Document);
}

export function isOperatorObject(value: unknown): value is Doc {
  return isPlainObject(value) && Object.keys(value).length > 0 && Object.keys(value).every((k) => k.startsWith('$'));
}

export { isPlainObject };
