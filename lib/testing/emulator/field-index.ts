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

  constructor(readonly path: string) {}

  add(doc: Doc, idKey: string): void {
    const v = mingoUtil.resolve(doc, this.path);
    if (!isIndexScalar(v)) {
      this.other.add(idKey);
      return;
    }
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

  /** How many documents a lookup of `values` returns at most (for choosing between indexes). */
  estimate(values: unknown[]): number {
    let n = this.other.size;
    for (const v of values) n += this.byKey.get(keyOf(v))?.size ?? 0;
    return n;
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
