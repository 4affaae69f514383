/** Memoising a `$lookup` sub-pipeline per distinct `let` values (lookup.ts): which pipelines may be memoised, and the memo's key. */
import { EJSON, ObjectId, type Document } from 'bson';
import { isPlain } from './lookup-probe';

/** Operators whose result may differ between two runs on the same input: no memo then. */
const UNREPEATABLE = new Set(['$rand', '$sample', '$sampleRate', '$function', '$accumulator', '$where']);

export function repeatable(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(repeatable);
  if (!isPlain(value)) return true;
  for (const [k, v] of Object.entries(value)) if (UNREPEATABLE.has(k) || !repeatable(v)) return false;
  return true;
}

/**
 * strictKey of ObjectIds met as `let` values: stored documents keep their ObjectId instances across
 * commands, and the same string object each time keeps its hash for the memo's Map.
 */
const idKeys = new WeakMap<ObjectId, string>();
function idKey(id: ObjectId): string {
  let key = idKeys.get(id);
  if (key === undefined) {
    key = `o${id.toHexString()}`;
    idKeys.set(id, key);
  }
  return key;
}

/** A key equal for two values only when mingo cannot tell them apart (types, -0, key order kept). */
export function strictKey(v: unknown): string {
  if (v === undefined) return 'u';
  if (v === null) return 'n';
  if (typeof v === 'number') return Object.is(v, -0) ? 'd-0' : `d${v}`;
  if (typeof v === 'string') return `s${JSON.stringify(v)}`;
  if (typeof v === 'boolean') return v ? 'T' : 'F';
  if (v instanceof Date) return `t${v.getTime()}`;
  if (v instanceof ObjectId) return idKey(v);
  if (v instanceof RegExp) return `r${String(v)}`;
  if (Array.isArray(v)) return `[${v.map(strictKey).join(',')}]`;
  if (isPlain(v)) return `{${Object.keys(v).map((k) => `${JSON.stringify(k)}:${strictKey(v[k])}`).join(',')}}`;
  const name = (v as object).constructor?.name ?? 'object';
  return `${name}${EJSON.stringify(v as Document, { relaxed: false })}`;
}
