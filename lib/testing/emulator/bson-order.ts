/**
 * MongoDB's comparison order of BSON values (manual: "Comparison/Sort Order"), as aggregation
 * expressions and `$sort` use it. Unlike the query language, a missing value (`undefined`) is its own
 * type ranked below null: `{$eq: ['$missing', null]}` is false, `{$lt: ['$missing', null]}` true.
 */
import { Binary, BSONRegExp, BSONSymbol, Code, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'bson';

const isPlain = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

/** Canonical type ranks of the server (missing and undefined share the lowest but MinKey). */
export function typeRank(v: unknown): number {
  if (v === undefined) return 0;
  if (v === null) return 5;
  switch (typeof v) {
    case 'number':
    case 'bigint':
      return 10;
    case 'string':
      return 15;
    case 'boolean':
      return 40;
    default:
      break;
  }
  if (Array.isArray(v)) return 25;
  if (isPlain(v)) return 20;
  if (v instanceof Long || v instanceof Int32 || v instanceof Double || v instanceof Decimal128) return 10;
  if (v instanceof BSONSymbol) return 15;
  if (v instanceof Binary || v instanceof Uint8Array) return 30;
  if (v instanceof ObjectId) return 35;
  if (v instanceof Date) return 45;
  if (v instanceof Timestamp) return 47;
  if (v instanceof RegExp || v instanceof BSONRegExp) return 50;
  if (v instanceof Code) return 60;
  if (v instanceof MinKey) return -1;
  if (v instanceof MaxKey) return 127;
  return 20;
}

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Long) return v.toNumber();
  if (v instanceof Int32 || v instanceof Double) return v.value;
  if (v instanceof Decimal128) return Number(v.toString());
  return NaN;
}

const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return sign(a.length - b.length);
}

function compareStrings(a: string, b: string): number {
  // Binary comparison of the UTF-8 bytes; equal to UTF-16 order unless surrogates are involved.
  if (a === b) return 0;
  return compareBytes(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** -1, 0 or 1 as MongoDB orders `a` and `b` (numbers of any width compare by value, NaN lowest). */
export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a), rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
    case 5:
    case -1:
    case 127:
      return 0;
    case 10: {
      const x = toNumber(a), y = toNumber(b);
      if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
      if (Number.isNaN(y)) return 1;
      return sign(x - y) || 0;
    }
    case 15:
      return compareStrings(String(a instanceof BSONSymbol ? a.value : a), String(b instanceof BSONSymbol ? b.value : b));
    case 20: {
      // Field by field: the value's type, then the field name, then the value; shorter first.
      const ea = Object.entries(a as object).filter(([, v]) => v !== undefined);
      const eb = Object.entries(b as object).filter(([, v]) => v !== undefined);
      for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
        const t = sign(typeRank(ea[i][1]) - typeRank(eb[i][1]));
        if (t) return t;
        const k = compareStrings(ea[i][0], eb[i][0]);
        if (k) return k;
        const c = compareValues(ea[i][1], eb[i][1]);
        if (c) return c;
      }
      return sign(ea.length - eb.length);
    }
    case 25: {
      const xa = a as unknown[], xb = b as unknown[];
      for (let i = 0; i < Math.min(xa.length, xb.length); i++) {
        const c = compareValues(xa[i], xb[i]);
        if (c) return c;
      }
      return sign(xa.length - xb.length);
    }
    case 30: {
      const ba = a instanceof Binary ? a : new Binary(a as Uint8Array);
      const bb = b instanceof Binary ? b : new Binary(b as Uint8Array);
      return sign(ba.position - bb.position) || sign(ba.sub_type - bb.sub_type) || compareBytes(ba.buffer.subarray(0, ba.position), bb.buffer.subarray(0, bb.position));
    }
    case 35:
      return compareBytes((a as ObjectId).id, (b as ObjectId).id);
    case 40:
      return sign(Number(a) - Number(b));
    case 45:
      return sign((a as Date).getTime() - (b as Date).getTime());
    case 47:
      return (a as Timestamp).compare(b as Timestamp) as number;
    case 50: {
      const pa = a instanceof RegExp ? [a.source, a.flags] : [(a as BSONRegExp).pattern, (a as BSONRegExp).options];
      const pb = b instanceof RegExp ? [b.source, b.flags] : [(b as BSONRegExp).pattern, (b as BSONRegExp).options];
      return compareStrings(pa[0], pb[0]) || compareStrings(pa[1], pb[1]);
    }
    default:
      return compareStrings(String(a), String(b));
  }
}

/** Marks an empty array reached by a sort path: it sorts before null and missing. */
const EMPTY_ARRAY: unique symbol = Symbol('emptyArray');
type SortValue = unknown;

function collect(v: unknown, parts: string[], i: number, out: SortValue[]): void {
  if (i === parts.length) {
    if (Array.isArray(v)) {
      if (v.length === 0) out.push(EMPTY_ARRAY);
      else out.push(...v);
    } else {
      out.push(v === undefined ? null : v);
    }
    return;
  }
  const part = parts[i];
  if (Array.isArray(v)) {
    if (/^\d+$/.test(part) && Number(part) < v.length) {
      collect(v[Number(part)], parts, i + 1, out);
      return;
    }
    const before = out.length;
    for (const el of v) if (isPlain(el)) collect(el, parts, i, out);
    if (out.length === before) out.push(null);
    return;
  }
  if (isPlain(v) && part in v) collect(v[part], parts, i + 1, out);
  else out.push(null);
}

function compareSortValues(a: SortValue, b: SortValue): number {
  if (a === EMPTY_ARRAY) return b === EMPTY_ARRAY ? 0 : -1;
  if (b === EMPTY_ARRAY) return 1;
  return compareValues(a, b);
}

/**
 * The value a document sorts by on `path`: the smallest element reached (ascending) or the largest
 * (descending), arrays expanded; missing sorts as null, an empty array before null.
 */
export function sortKey(doc: unknown, path: string, direction: 1 | -1): SortValue {
  const values: SortValue[] = [];
  collect(doc, path.split('.'), 0, values);
  let best = values[0];
  for (let i = 1; i < values.length; i++) {
    const c = compareSortValues(values[i], best);
    if (direction === 1 ? c < 0 : c > 0) best = values[i];
  }
  return best;
}

/** Sorts documents as MongoDB's `$sort` (keys computed once per document; ties keep input order). */
export function sortDocuments<T>(docs: T[], spec: Record<string, 1 | -1>): T[] {
  const keys = Object.entries(spec);
  const rows = docs.map((doc, index) => ({ doc, index, keys: keys.map(([path, dir]) => sortKey(doc, path, dir)) }));
  rows.sort((x, y) => {
    for (let k = 0; k < keys.length; k++) {
      const c = compareSortValues(x.keys[k], y.keys[k]);
      if (c) return keys[k][1] === 1 ? c : -c;
    }
    return x.index - y.index;
  });
  return rows.map((r) => r.doc);
}
