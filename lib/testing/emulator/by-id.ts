import type { Scope } from './transactions';
import type { Collection } from './store';
import { isPlainObject, keyOf, type Doc } from './values';

/** A plain value usable as an exact `_id` (no operators, no regular expressions). */
function plainId(value: unknown): boolean {
  if (value instanceof RegExp) return false;
  if (isPlainObject(value)) return !Object.keys(value).some((k) => k.startsWith('$'));
  return true;
}

/**
 * The documents a filter can match when it pins `_id` (`{_id: v}` or `{_id: {$in: [...]}}` with
 * plain values), found by key like the server's _id index, and the filter left to test on them.
 * null when the filter does not pin `_id`. Without this every by-id read, update and delete
 * scanned the collection and tested each document against the whole `$in` list: a bulk write of n
 * records on a collection of n was n^2 work on the event loop, which also starved the driver's
 * heartbeats.
 */
export function byId(scope: Scope, coll: Collection | undefined, filter: unknown): { docs: Doc[]; rest: Doc } | null {
  if (!coll || !isPlainObject(filter) || !Object.prototype.hasOwnProperty.call(filter, '_id')) return null;
  const condition = filter._id;
  let values: unknown[];
  if (isPlainObject(condition) && Object.keys(condition).length === 1 && Array.isArray(condition.$in)) values = condition.$in;
  else if (isPlainObject(condition) && Object.keys(condition).some((k) => k.startsWith('$'))) return null;
  else values = [condition];
  if (!values.every(plainId)) return null;
  const seen = new Set<string>();
  const docs: Doc[] = [];
  for (const value of values) {
    const key = keyOf(value);
    if (seen.has(key)) continue;
    seen.add(key);
    const doc = scope.visible(coll, key);
    if (doc) docs.push(doc);
  }
  // natural order, as a collection scan would give
  const order = new Map<string, number>();
  let i = 0;
  for (const key of coll.docs.keys()) order.set(key, i++);
  docs.sort((a, b) => (order.get(keyOf(a._id)) ?? Infinity) - (order.get(keyOf(b._id)) ?? Infinity));
  const { _id: _ignored, ...rest } = filter;
  return { docs, rest };
}
