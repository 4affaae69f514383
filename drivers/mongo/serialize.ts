import type { Row } from '../../lib/driver';
import { isObjectId } from './compile-context';
import type { Shape } from './shape';

type Doc = Record<string, unknown>;

/** A stored value as output: ObjectId -> hex, nested values converted, missing -> null. */
export function outputValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (isObjectId(value)) return value.toHexString();
  if (value instanceof Date) return value;
  if (Array.isArray(value)) return value.map(outputValue);
  if (typeof value === 'object') {
    const bsontype = (value as { _bsontype?: unknown })._bsontype;
    if (bsontype === 'Decimal128' || bsontype === 'Long' || bsontype === 'Double' || bsontype === 'Int32') return Number(String(value));
    if (bsontype) return String(value);
    const out: Doc = {};
    for (const [k, v] of Object.entries(value as Doc)) if (k !== '_id' && k !== '__v') out[k] = outputValue(v);
    return out;
  }
  return value;
}

/**
 * A pipeline document -> Row: exactly the shape's fields (`id` from `_id`, null when missing),
 * to-one relations as object or null, to-many as arrays, `pivot` on many-to-many records.
 * Anything else the document holds (helper fields, `__v`) is dropped.
 */
export function serialize(doc: Doc, shape: Shape, pivot: string[] | null = null): Row {
  const row: Row = {};
  for (const f of shape.fields) row[f] = outputValue(f === 'id' ? doc._id : doc[f]);
  for (const rel of shape.relations) {
    const raw = doc[rel.as ?? rel.name];
    const list = Array.isArray(raw) ? (raw as Doc[]) : [];
    row[rel.name] = rel.many ? list.map((d) => serialize(d, rel.shape, rel.pivot)) : list[0] ? serialize(list[0], rel.shape, rel.pivot) : null;
  }
  if (pivot) {
    const source = (doc.pivot ?? {}) as Doc;
    row.pivot = Object.fromEntries(pivot.map((k) => [k, outputValue(source[k])]));
  }
  return row;
}
