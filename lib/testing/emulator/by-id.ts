import type { Scope } from './scope';
import type { Collection } from './store';
import { isIndexScalar, rangeKind, type Bound } from './field-index';
import { isPlainObject, keyOf, type Doc } from './values';

/**
 * The index planner. MongoDB answers a filter that pins an indexed path from the index; so does the
 * emulator, without changing any answer: an index only picks candidate documents (a superset of
 * the matches, in natural order) and the whole filter or pipeline still runs over them.
 * Without it every by-id read, update and delete scanned the collection (a bulk write of n records
 * on a collection of n was n^2 work on the event loop, which also starved the driver's heartbeats)
 * and the library's relation joins cloned and hashed whole collections per request.
 */

/** A plain value usable as an exact `_id` (no operators, no regular expressions). */
function plainId(value: unknown): boolean {
  if (value instanceof RegExp) return false;
  if (isPlainObject(value)) return !Object.keys(value).some((k) => k.startsWith('$'));
  return true;
}

/** The command's view of `coll` is its committed state, so committed structures may answer. */
export function readsCommitted(scope: Scope, coll: Collection): boolean {
  const s = scope as unknown as { readsCommitted?: (c: Collection) => boolean; txn?: unknown };
  return typeof s.readsCommitted === 'function' ? s.readsCommitted(coll) : !s.txn;
}

/** Paths with an index the planner may use: `_id` and the leading field of each declared index. */
function indexed(coll: Collection, path: string): boolean {
  if (path === '_id') return true;
  for (const index of coll.indexes) {
    const [first] = index.fields;
    const direction = index.spec.key[first];
    if (first === path && (direction === 1 || direction === -1 || direction === 'hashed')) return true;
  }
  return false;
}

/** The scalar values an equality condition (`v`, `{$eq: v}`, `{$in: [...]}`, among other operators) pins, or undefined. */
function pinned(condition: unknown): unknown[] | undefined {
  if (isIndexScalar(condition) && condition !== undefined) return [condition];
  if (!isPlainObject(condition)) return undefined;
  const keys = Object.keys(condition);
  if (keys.length === 0 || !keys.every((k) => k.startsWith('$'))) return undefined;
  if ('$eq' in condition && isIndexScalar(condition.$eq) && condition.$eq !== undefined) return [condition.$eq];
  if (Array.isArray(condition.$in) && condition.$in.every((v) => isIndexScalar(v) && v !== undefined)) return condition.$in;
  return undefined;
}

/** The bounds a range condition (`$gt`/`$gte`/`$lt`/`$lte` on numbers or dates, among other operators) sets, or undefined. */
function bounded(condition: unknown): { low: Bound; high: Bound } | undefined {
  if (!isPlainObject(condition)) return undefined;
  const keys = Object.keys(condition);
  if (keys.length === 0 || !keys.every((k) => k.startsWith('$'))) return undefined;
  let low: Bound;
  let high: Bound;
  let kind: string | undefined;
  for (const [op, value] of Object.entries(condition)) {
    const k = rangeKind(value);
    if (!k || (kind && k !== kind)) continue; // another kind of bound only narrows further: ignoring it widens
    if (op === '$gt' || op === '$gte') low = value as number | Date;
    else if (op === '$lt' || op === '$lte') high = value as number | Date;
    else continue;
    kind = k;
  }
  return kind ? { low, high } : undefined;
}

/** One way to pick candidates: an equality/`$in` or a range on an indexed path. */
type Plan = { path: string; values: unknown[] } | { path: string; low: Bound; high: Bound };

/** Every equality and range the filter requires: top-level fields and those of `$and` members. */
function plans(filter: Doc, out: Plan[] = []): Plan[] {
  for (const [path, condition] of Object.entries(filter)) {
    if (path === '$and' && Array.isArray(condition)) {
      for (const sub of condition) if (isPlainObject(sub)) plans(sub, out);
    } else if (!path.startsWith('$')) {
      const values = pinned(condition);
      if (values) out.push({ path, values });
      else {
        const range = bounded(condition);
        if (range) out.push({ path, ...range });
      }
    }
  }
  return out;
}

function estimate(coll: Collection, plan: Plan): number {
  const index = coll.access.field(plan.path, coll.docs);
  return 'values' in plan ? index.estimate(plan.values) : index.estimateBetween(plan.low, plan.high, coll.docs);
}

/** The committed documents a plan picks, in natural order; counts them as examined. */
function fromPlan(coll: Collection, plan: Plan): Doc[] {
  const index = coll.access.field(plan.path, coll.docs);
  return pick(coll, 'values' in plan ? index.candidates(plan.values) : index.between(plan.low, plan.high, coll.docs));
}

/** The committed documents that may have one of `values` at `path`, in natural order; counts them as examined. */
function fromIndex(coll: Collection, path: string, values: unknown[]): Doc[] {
  return pick(coll, coll.access.field(path, coll.docs).candidates(values));
}

function pick(coll: Collection, ids: Set<string>): Doc[] {
  const access = coll.access;
  const keys = access.sorted(ids);
  access.examined += keys.length;
  const out: Doc[] = [];
  for (const k of keys) {
    const doc = coll.docs.get(k);
    if (doc) out.push(doc);
  }
  return out;
}

/**
 * A probe of an indexed path of `coll` for $lookup: the committed documents that may equal one of
 * the given scalar values there, in natural order. undefined when the path has no index or the
 * scope does not read committed state (then the caller scans).
 */
export function indexProbe(scope: Scope, coll: Collection | undefined, path: string): ((values: unknown[]) => Doc[]) | undefined {
  if (!coll || !indexed(coll, path) || !readsCommitted(scope, coll)) return undefined;
  return (values) => fromIndex(coll, path, values);
}

/**
 * The documents a filter can match, picked by index, and the filter left to test on them; null
 * when no index applies (the caller scans). `_id` equality or `$in` of plain values is read by key
 * (in a transaction too) and leaves the rest of the filter; an equality or `$in` of scalars, or a
 * range of numbers or dates, on another indexed path leaves the whole filter (the plan that picks
 * the fewest documents wins).
 */
export function byId(scope: Scope, coll: Collection | undefined, filter: unknown): { docs: Doc[]; rest: Doc } | null {
  if (!coll || !isPlainObject(filter)) return null;
  if (Object.prototype.hasOwnProperty.call(filter, '_id')) {
    const condition = filter._id;
    let values: unknown[] | undefined;
    if (isPlainObject(condition) && Object.keys(condition).length === 1 && Array.isArray(condition.$in)) values = condition.$in;
    else if (!(isPlainObject(condition) && Object.keys(condition).some((k) => k.startsWith('$')))) values = [condition];
    if (values && values.every(plainId)) {
      const seen = new Set<string>();
      const found: Array<[string, Doc]> = [];
      for (const value of values) {
        const key = keyOf(value);
        if (seen.has(key)) continue;
        seen.add(key);
        const doc = scope.visible(coll, key);
        if (doc) found.push([key, doc]);
      }
      coll.access.examined += found.length;
      // natural order, as a collection scan would give
      found.sort((a, b) => coll.access.ordinal(a[0]) - coll.access.ordinal(b[0]));
      const { _id: _ignored, ...rest } = filter;
      return { docs: found.map(([, d]) => d), rest };
    }
  }
  if (!readsCommitted(scope, coll)) return null;
  let best: Plan | undefined;
  let bestSize = Infinity;
  for (const plan of plans(filter)) {
    if (!indexed(coll, plan.path)) continue;
    const size = estimate(coll, plan);
    if (size < bestSize) {
      best = plan;
      bestSize = size;
    }
  }
  // a range that keeps most of the collection is cheaper to scan than to pick and order
  if (!best || ('low' in best && bestSize > coll.docs.size / 2)) return null;
  return { docs: fromPlan(coll, best), rest: filter };
}

/**
 * What a find scans when no index applies: a live view of the committed documents (natural
 * order; a later batch sees later writes, as a MongoDB cursor yielding between batches does) when
 * the command reads current committed state outside any transaction or snapshot, else the scope's
 * materialised view, which keeps a transaction's snapshot for the cursor's whole life.
 */
export function scanSource(scope: Scope, coll: Collection | undefined): Iterable<Doc> {
  if (!coll) return [];
  const s = scope as unknown as { txn?: unknown; readAt?: unknown };
  if (s.txn === undefined && s.readAt === undefined && readsCommitted(scope, coll)) return { [Symbol.iterator]: () => coll.docs.values() };
  return scope.list(coll);
}

/** How many documents the scope sees in `coll`, without listing them when it reads committed state. */
export function visibleCount(scope: Scope, coll: Collection | undefined): number | undefined {
  if (!coll || !readsCommitted(scope, coll)) return undefined;
  const s = scope as unknown as { txn?: unknown; readAt?: unknown };
  return s.txn === undefined && s.readAt === undefined ? coll.docs.size : undefined;
}
