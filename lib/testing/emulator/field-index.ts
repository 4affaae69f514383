import { ObjectId } from 'bson';
import { keyOf, type Doc } from './values';

/* mingo's path resolution, the one its query operators apply: an index must see what they see. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const mingoUtil = require('mingo/util') as { resolve: (obj: unknown, path: string) => unknown };

/**
 * Values mingo's equality (isEqual, and the nil rule of its `$eq`) compares exactly as `keyOf` does:
 * two of them are equal for mingo iff their keys are equal (null and missing share the key 'n').
 */
export function isIndexScalar(v: unknown): boolean {
  return v === undefined || v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v instanceof ObjectId || v instanceof Date;
}

/**
 * The committed documents of one collection by the value at one path: `byKey` holds the documents
 * whose value there is a scalar (see isIndexScalar), `other` those whose value is anything else
 * (arrays, documents, other BSON types). A lookup returns `byKey(value) ∪ other`: a superset of the
 * documents an equality on the path matches, in the query language (array elements match) and in
 * `$expr` alike, so the full filter still decides.
 */
export class FieldIndex {
  private readonly byKey = new Map<string, Set<string>>();
  private readonly other = new Set<string>();
  /** Numbers and dates in order, for ranges; built on the first range lookup, then kept up to date. */
  private ranges?: Ranges;

  constructor(readonly path: string) {}

  add(doc: Doc, idKey: string): void {
    const v = mingoUtil.resolve(doc, this.path);
    if (!isIndexScalar(v)) {
      this.other.add(idKey);
      return;
    }
    this.ranges?.add(v, idKey);
    const k = keyOf(v);
    const set = this.byKey.get(k);
    if (set) set.add(idKey);
    else this.byKey.set(k, new Set([idKey]));
  }

  remove(doc: Doc, idKey: string): void {
    const v = mingoUtil.resolve(doc, this.path);
    if (!isIndexScalar(v)) {
      this.other.delete(idKey);
      return;
    }
    this.ranges?.remove(v, idKey);
    const k = keyOf(v);
    const set = this.byKey.get(k);
    if (!set) return;
    set.delete(idKey);
    if (set.size === 0) this.byKey.delete(k);
  }

  /** _id keys of the documents that may equal one of `values` (all scalars), unordered. */
  candidates(values: unknown[]): Set<string> {
    const out = new Set<string>(this.other);
    for (const v of values) for (const id of this.byKey.get(keyOf(v)) ?? []) out.add(id);
    return out;
  }

  /**
   * _id keys of the documents that may lie between `low` and `high` (bounds of one kind, numbers or
   * dates, either may be missing; both inclusive, the filter decides): those in the range, plus
   * every document whose value is not of that kind (type bracketing is the filter's business).
   */
  between(low: Bound, high: Bound, docs: Map<string, Doc>): Set<string> {
    const ranges = this.rangesOf(docs);
    const out = new Set<string>(this.other);
    for (const id of ranges.rest) out.add(id);
    const kind = rangeKind(low ?? high);
    for (const [k, sorted] of ranges.sorted) {
      if (k === kind) for (const id of sorted.between(low === undefined ? -Infinity : +low, high === undefined ? Infinity : +high)) out.add(id);
      else for (const id of sorted.ids) out.add(id);
    }
    return out;
  }

  /** How many documents `between` returns at most. */
  estimateBetween(low: Bound, high: Bound, docs: Map<string, Doc>): number {
    const ranges = this.rangesOf(docs);
    let n = this.other.size + ranges.rest.size;
    const kind = rangeKind(low ?? high);
    for (const [k, sorted] of ranges.sorted) n += k === kind ? sorted.count(low === undefined ? -Infinity : +low, high === undefined ? Infinity : +high) : sorted.ids.length;
    return n;
  }

  private rangesOf(docs: Map<string, Doc>): Ranges {
    if (!this.ranges) {
      const ranges = new Ranges();
      for (const [idKey, doc] of docs) {
        const v = mingoUtil.resolve(doc, this.path);
        if (isIndexScalar(v)) ranges.add(v, idKey);
      }
      ranges.seal();
      this.ranges = ranges;
    }
    return this.ranges;
  }

  /** How many documents a lookup of `values` returns at most (for choosing between indexes). */
  estimate(values: unknown[]): number {
    let n = this.other.size;
    for (const v of values) n += this.byKey.get(keyOf(v))?.size ?? 0;
    return n;
  }
}

/** A range bound: a finite number or a date (compared by time). */
export type Bound = number | Date | undefined;

/** The kind a range bound or value sorts with: numbers and dates only (strings' order is the filter's). */
export function rangeKind(v: unknown): 'number' | 'date' | undefined {
  if (typeof v === 'number') return Number.isNaN(v) ? undefined : 'number';
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? undefined : 'date';
  return undefined;
}

/** Values of one kind in ascending order with their _id keys (parallel arrays, binary search). */
class Sorted {
  keys: number[] = [];
  ids: string[] = [];

  /** First position whose key is >= `x` (or > `x` when `after`). */
  private bound(x: number, after: boolean): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.keys[mid] < x || (after && this.keys[mid] === x)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(x: number, id: string): void {
    const at = this.bound(x, true);
    this.keys.splice(at, 0, x);
    this.ids.splice(at, 0, id);
  }

  delete(x: number, id: string): void {
    for (let i = this.bound(x, false); i < this.keys.length && this.keys[i] === x; i++) {
      if (this.ids[i] === id) {
        this.keys.splice(i, 1);
        this.ids.splice(i, 1);
        return;
      }
    }
  }

  between(low: number, high: number): string[] {
    return this.ids.slice(this.bound(low, false), this.bound(high, true));
  }

  count(low: number, high: number): number {
    return Math.max(0, this.bound(high, true) - this.bound(low, false));
  }
}

/** A FieldIndex's range part: numbers and dates sorted, every other scalar (null, missing, strings, ...) in `rest`. */
class Ranges {
  readonly sorted = new Map<'number' | 'date', Sorted>([
    ['number', new Sorted()],
    ['date', new Sorted()],
  ]);
  readonly rest = new Set<string>();
  private building = true;
  private readonly pending: Array<[number, string, 'number' | 'date']> = [];

  add(v: unknown, id: string): void {
    const kind = rangeKind(v);
    if (!kind) {
      this.rest.add(id);
      return;
    }
    const x = +(v as number | Date);
    if (this.building) this.pending.push([x, id, kind]);
    else (this.sorted.get(kind) as Sorted).insert(x, id);
  }

  remove(v: unknown, id: string): void {
    const kind = rangeKind(v);
    if (!kind) this.rest.delete(id);
    else (this.sorted.get(kind) as Sorted).delete(+(v as number | Date), id);
  }

  /** Ends the initial build: one sort instead of n insertions. */
  seal(): void {
    this.pending.sort((a, b) => a[0] - b[0]);
    for (const [x, id, kind] of this.pending) {
      const s = this.sorted.get(kind) as Sorted;
      s.keys.push(x);
      s.ids.push(id);
    }
    this.pending.length = 0;
    this.building = false;
  }
}

/**
 * What the planner keeps per collection beside the declared indexes, in step with every committed
 * write (Collection.put): each document's natural-order position (insertion order, which Map
 * iteration gives but cannot look up), and FieldIndexes built on first use for the paths queries
 * use (declared index fields and `_id`).
 */
export class AccessPaths {
  private readonly ordinals = new Map<string, number>();
  private nextOrdinal = 0;
  private readonly fields = new Map<string, FieldIndex>();
  /** Documents examined through this collection's access paths; tests read it to prove a plan did not scan. */
  examined = 0;

  onPut(idKey: string, prev: Doc | undefined, next: Doc | null): void {
    if (!prev && next) this.ordinals.set(idKey, this.nextOrdinal++);
    else if (prev && !next) this.ordinals.delete(idKey);
    for (const index of this.fields.values()) {
      if (prev) index.remove(prev, idKey);
      if (next) index.add(next, idKey);
    }
  }

  /** Natural-order position of a committed document (Infinity for one only a transaction sees). */
  ordinal(idKey: string): number {
    return this.ordinals.get(idKey) ?? Infinity;
  }

  /** The FieldIndex of `path`, built from `docs` (the committed documents) on first use. */
  field(path: string, docs: Map<string, Doc>): FieldIndex {
    let index = this.fields.get(path);
    if (!index) {
      index = new FieldIndex(path);
      for (const [idKey, doc] of docs) index.add(doc, idKey);
      this.fields.set(path, index);
    }
    return index;
  }

  /** `idKeys` in natural order. */
  sorted(idKeys: Iterable<string>): string[] {
    return [...idKeys].sort((a, b) => this.ordinal(a) - this.ordinal(b));
  }
}
