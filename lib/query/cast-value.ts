import { BadRequestError } from '../errors';
import type { FieldInfo, FieldType, IdType } from '../resource/model-info';
import type { Scalar } from './ast';
import { toBoolean } from './read-boolean';
import { OBJECT_ID_HEX as OBJECT_ID } from './object-id';

const INTEGER = /^[+-]?\d+$/;

export interface CastContext {
  /** Parameter named in the 400 (`oper`, `attr`). */
  parameter: string;
  /** Default id representation of the model (for id fields without their own idType). */
  idType: IdType;
}

function bad(field: FieldInfo, raw: unknown, kind: string, ctx: CastContext): BadRequestError {
  const shown = typeof raw === 'string' ? raw : JSON.stringify(raw);
  return new BadRequestError(`Invalid ${kind} "${shown}" for field "${field.name}" in ${ctx.parameter}.`, ctx.parameter);
}

function toNumber(field: FieldInfo, raw: unknown, ctx: CastContext, integer: boolean): number {
  let n = NaN;
  if (typeof raw === 'number') n = raw;
  else if (typeof raw === 'string' && raw.trim() !== '') n = Number(raw.trim());
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) throw bad(field, raw, integer ? 'integer' : 'number', ctx);
  return n;
}

function castAs(type: FieldType, field: FieldInfo, raw: unknown, ctx: CastContext): Scalar {
  switch (type) {
    case 'number':
      return toNumber(field, raw, ctx, false);
    case 'integer':
      return toNumber(field, raw, ctx, true);
    case 'boolean': {
      const b = toBoolean(raw);
      if (b === undefined) throw bad(field, raw, 'boolean', ctx);
      return b;
    }
    case 'date': {
      const d = typeof raw === 'string' && raw.trim() !== '' ? new Date(raw.trim()) : typeof raw === 'number' ? new Date(raw) : null;
      if (!d || Number.isNaN(d.getTime())) throw bad(field, raw, 'date', ctx);
      return d;
    }
    case 'id': {
      const idType = field.idType ?? ctx.idType;
      if (idType === 'integer') {
        if (typeof raw === 'number' ? Number.isSafeInteger(raw) : typeof raw === 'string' && INTEGER.test(raw.trim())) {
          const n = Number(typeof raw === 'string' ? raw.trim() : raw);
          if (Number.isSafeInteger(n)) return n;
        }
        throw bad(field, raw, 'id', ctx);
      }
      if (typeof raw === 'string' && OBJECT_ID.test(raw.trim())) return raw.trim().toLowerCase();
      throw bad(field, raw, 'id', ctx);
    }
    case 'string':
    case 'object':
    case 'array':
      if (typeof raw === 'string') return raw;
      if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
      throw bad(field, raw, 'value', ctx);
  }
}

/**
 * Casts one client value (a string from a condition, or a JSON scalar from attr) to the field's
 * declared type (decision 5). Array fields are cast by their item type: `=` means "contains".
 */
export function castValue(field: FieldInfo, raw: unknown, ctx: CastContext): Scalar {
  const type = field.type === 'array' ? (field.itemType ?? 'string') : field.type;
  return castAs(type, field, raw, ctx);
}
