import { isDeepStrictEqual } from 'node:util';

interface ListBody {
  total: number;
  data: { id: unknown }[];
}

/** Sorts object keys recursively, so two bodies compare by content and not by key order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

/**
 * Throws unless both list answers hold the same ids in the same order and the same total; returns
 * whether the whole bodies (relations included) are equal too, key order aside.
 */
export function sameList(label: string, library: unknown, baseline: unknown): { identical: boolean; rows: number; total: number } {
  const a = library as ListBody;
  const b = baseline as ListBody;
  const idsA = a.data.map((r) => r.id);
  const idsB = b.data.map((r) => r.id);
  if (a.total !== b.total || !isDeepStrictEqual(idsA, idsB)) {
    throw new Error(`${label}: library and baseline disagree: total ${a.total} vs ${b.total}, ids ${JSON.stringify(idsA)} vs ${JSON.stringify(idsB)}`);
  }
  if (idsA.length === 0) throw new Error(`${label}: the benchmark query returned an empty page`);
  return { identical: isDeepStrictEqual(canonical(a), canonical(b)), rows: idsA.length, total: a.total };
}

/** The first path where two JSON values differ (for the log when bodies are not identical). */
export function firstDifference(a: unknown, b: unknown, path = '$'): string | null {
  if (isDeepStrictEqual(canonical(a), canonical(b))) return null;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    for (const key of new Set([...Object.keys(ra), ...Object.keys(rb)])) {
      const found = firstDifference(ra[key], rb[key], `${path}.${key}`);
      if (found) return found;
    }
  }
  return `${path}: ${JSON.stringify(a)?.slice(0, 120)} vs ${JSON.stringify(b)?.slice(0, 120)}`;
}
