import type { Doc } from './values';

/* mingo's path resolution, the one its $sort applies */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const mingoUtil = require('mingo/util') as { resolve: (obj: unknown, path: string) => unknown };

/** Above this many kept documents a full sort is as good. */
export const TOP_K_MAX = 256;

interface Row {
  doc: Doc;
  key: string | number;
  index: number;
}

/**
 * The first `k` documents of `source` passing `test`, in the order mingo's `$sort` on one path
 * gives (which find uses), or undefined when that order is not the simple one reproduced here.
 *
 * mingo sorts a single key natively when every key is a string (code-unit order) or every key is a
 * number, ties in input order, and for -1 reverses the order of the keys but not the ties. Keeping
 * only the best k in a sorted buffer (binary insertion) is O(n log k) instead of mingo's grouping
 * and full sort of n documents, for `find(...).sort({field: ±1}).limit(k)` on a large collection.
 * Any other key (missing, null, mixed types, NaN, -0, arrays, documents) answers undefined, and
 * the caller sorts with mingo as before.
 */
export function topK(source: Iterable<Doc>, test: (doc: Doc) => boolean, path: string, direction: 1 | -1, k: number): Doc[] | undefined {
  if (k <= 0 || k > TOP_K_MAX) return undefined;
  let kind: 'string' | 'number' | undefined;
  const kept: Row[] = [];
  // a row goes before another when its key is smaller (larger for -1), or equal and it came first
  const before = (a: Row, b: Row): boolean => {
    if (a.key !== b.key) return direction === 1 ? a.key < b.key : a.key > b.key;
    return a.index < b.index;
  };
  // a plain field is what mingo's resolve reads for it (its own property lookup)
  const keyOf = path.includes('.') ? (doc: Doc) => mingoUtil.resolve(doc, path) : (doc: Doc) => doc[path];
  let index = 0;
  for (const doc of source) {
    if (!test(doc)) continue;
    const key = keyOf(doc);
    const type = typeof key;
    if (type === 'string') {
      if (kind === 'number') return undefined;
      kind = 'string';
    } else if (type === 'number') {
      if (kind === 'string' || Number.isNaN(key) || Object.is(key, -0)) return undefined;
      kind = 'number';
    } else return undefined;
    const row: Row = { doc, key: key as string | number, index: index++ };
    if (kept.length === k && !before(row, kept[k - 1])) continue;
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (before(row, kept[mid])) hi = mid;
      else lo = mid + 1;
    }
    kept.splice(lo, 0, row);
    if (kept.length > k) kept.pop();
  }
  return kept.map((r) => r.doc);
}
