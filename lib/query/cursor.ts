import { createHash } from 'node:crypto';
import { BadRequestError } from '../errors';
import type { Catalog, FieldInfo, IdType, ModelInfo } from '../resource/model-info';
import type { Filter, ListQuery, OrderKey, Scalar } from './ast';
import { own } from './safe-keys';
import { OBJECT_ID_HEX as OBJECT_ID } from './object-id';

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

/** Decision 78: a well-formed cursor of another query says so, and what to do. */
export const CURSOR_OF_ANOTHER_QUERY =
  'This cursor was made for another filter or order (or another resource): a cursor continues only the query it came from. Send the same oper, attr, eq and orderby with it, or start again without a cursor.';

function anotherQuery(): BadRequestError {
  return new BadRequestError(CURSOR_OF_ANOTHER_QUERY, 'cursor');
}

/** The field an order key sorts on, through its to-one relations, and the model holding it. */
function orderField(model: ModelInfo, key: OrderKey, catalog: Catalog): { field: FieldInfo | undefined; owner: ModelInfo } {
  let current = model;
  for (const name of key.relations) {
    const relation = own(current.relations, name);
    if (!relation) return { field: undefined, owner: current };
    current = catalog.model(relation.target);
  }
  return { field: own(current.fields, key.field), owner: current };
}


/** A JSON value back to the order-key field's type; anything that does not fit is a bad cursor. */
function restore(value: unknown, field: FieldInfo | undefined, idType: IdType): Scalar {
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
      // the fingerprint is not a secret: a forged value must still be an id of the right form
      if ((field?.idType ?? idType) === 'integer') {
        if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalid();
      } else if (typeof value !== 'string' || !OBJECT_ID.test(value)) {
        throw invalid();
      }
      return value;
    default:
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw invalid();
      return value;
  }
}

/**
 * Decodes a client cursor for the current query: malformed, 400 `Invalid cursor.`; made for another
 * model, filter or order, a 400 saying so (decision 78).
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
  if (!Array.isArray(v) || typeof f !== 'string') throw invalid();
  if (f !== fingerprint(model.name, filter, order)) throw anotherQuery();
  if (v.length !== order.length) throw invalid();
  return v.map((value, i) => {
    const { field, owner } = orderField(model, order[i], catalog);
    return restore(value, field, owner.idType);
  });
}
