import { createHash } from 'node:crypto';
import { BadRequestError } from '../errors';
import type { Catalog, FieldInfo, ModelInfo } from '../resource/model-info';
import type { Filter, ListQuery, OrderKey, Scalar } from './ast';
import { own } from './safe-keys';

const TOKEN = /^[A-Za-z0-9_-]+$/;

/** Binds a cursor to the query it was made for: model, filter and order (decision 16). */
export function fingerprint(model: string, filter: Filter | null, order: OrderKey[]): string {
  const text = JSON.stringify({ m: model, f: filter, o: order });
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/** Opaque base64url token: the order-key values of the last row seen and the query fingerprint. */
export function encodeCursor(values: Scalar[], query: ListQuery): string {
  const v = values.map((value) => (value instanceof Date ? value.toISOString() : value));
  const payload = { v, f: fingerprint(query.model, query.filter, query.order) };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

function invalid(): BadRequestError {
  return new BadRequestError('Invalid cursor.', 'cursor');
}

/** The field an order key sorts on, through its to-one relations. */
function orderField(model: ModelInfo, key: OrderKey, catalog: Catalog): FieldInfo | undefined {
  let current = model;
  for (const name of key.relations) {
    const relation = own(current.relations, name);
    if (!relation) return undefined;
    current = catalog.model(relation.target);
  }
  return own(current.fields, key.field);
}

/** A JSON value back to the order-key field's type; anything that does not fit is a bad cursor. */
function restore(value: unknown, field: FieldInfo | undefined): Scalar {
  if (value === null) return null;
  const type = field ? (field.type === 'array' ? (field.itemType ?? 'string') : field.type) : undefined;
  switch (type) {
    case 'date': {
      const d = typeof value === 'string' ? new Date(value) : null;
      if (!d || Number.isNaN(d.getTime())) throw invalid();
      return d;
    }
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid();
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw invalid();
      return value;
    case 'id':
      if (typeof value !== 'string' && !(typeof value === 'number' && Number.isSafeInteger(value))) throw invalid();
      return value;
    default:
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw invalid();
      return value;
  }
}

/**
 * Decodes a client cursor for the current query; malformed, or made for another
 * model/filter/order: 400 `Invalid cursor.`
 */
export function decodeCursor(token: string, model: ModelInfo, filter: Filter | null, order: OrderKey[], catalog: Catalog): Scalar[] {
  if (!TOKEN.test(token)) throw invalid();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw invalid();
  const { v, f } = payload as { v?: unknown; f?: unknown };
  if (!Array.isArray(v) || v.length !== order.length || f !== fingerprint(model.name, filter, order)) throw invalid();
  return v.map((value, i) => restore(value, orderField(model, order[i], catalog)));
}
