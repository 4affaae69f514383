import type { FieldInfo, FieldType, ModelInfo } from '../../resource/model-info';
import { toBoolean } from '../../query/read-boolean';
import { addError, type FieldErrors } from './validate-input';

const NUMERIC = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const label = (field: string): string => field.replace(/_/g, ' ');

const isScalar = (v: unknown): boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** Plain JSON data a document store can hold as a literal: no `$`/dotted/prototype keys at any depth. */
function safeJson(value: unknown, depth = 0): boolean {
  if (depth > 32) return false;
  if (typeof value === 'string') return !value.includes('\u0000');
  if (value === null || isScalar(value)) return true;
  if (Array.isArray(value)) return value.every((v) => safeJson(v, depth + 1));
  if (typeof value !== 'object') return false;
  return Object.entries(value as Record<string, unknown>).every(
    ([k, v]) => !k.startsWith('$') && !k.includes('.') && !FORBIDDEN_KEYS.has(k) && safeJson(v, depth + 1),
  );
}

/** Why a value does not fit a field type; null when it fits. */
function mismatch(type: FieldType, value: unknown): string | null {
  // PostgreSQL text cannot hold NUL and BSON keys and patterns cannot either: refused everywhere alike
  if (typeof value === 'string' && value.includes('\u0000')) return 'must not contain NUL characters';
  // a one-element array is not a number or an id (`[1]` would otherwise be cast to 1)
  if (type !== 'array' && type !== 'object' && (Array.isArray(value) || (typeof value === 'object' && value !== null && !(value instanceof Date)))) {
    return 'must be a single value, not a list or an object';
  }
  switch (type) {
    case 'string':
      return isScalar(value) ? null : 'must be a string';
    case 'number':
    case 'integer': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && NUMERIC.test(value) ? Number(value) : NaN;
      if (!Number.isFinite(n)) return type === 'integer' ? 'must be an integer' : 'must be a number';
      return type === 'integer' && !Number.isInteger(n) ? 'must be an integer' : null;
    }
    case 'boolean':
      return toBoolean(value) === undefined ? 'must be true or false' : null;
    case 'date': {
      const d = value instanceof Date ? value : typeof value === 'string' || typeof value === 'number' ? new Date(value) : null;
      return d && !Number.isNaN(d.getTime()) ? null : 'must be a valid date';
    }
    case 'id':
      // Existence and exact form of foreign keys are checked by check-references.ts.
      return typeof value === 'string' || typeof value === 'number' ? null : 'must be a valid id';
    case 'array':
    case 'object':
      return safeJson(value) ? null : 'must not contain keys starting with "$" or containing ".", nor NUL characters';
  }
}

/**
 * Checks every written value against its field's type before a driver sees it, whatever the
 * application's validation schema: a scalar field takes a scalar (never an object such as
 * `{"$gt": ""}`), an array field an array of its item type, an object field plain data without
 * operator-like keys. The same 422 on both drivers instead of a driver-specific cast.
 */
export function checkValues(model: ModelInfo, record: Record<string, unknown>, prefix: string, errors: FieldErrors): void {
  // a bulk write checks thousands of values: no key string is built unless some error exists
  let anyErrors = false;
  for (const _ in errors) {
    anyErrors = true;
    break;
  }
  // for-in over a plain record: no array of its keys per record (a bulk write checks each twice)
  for (const name in record) {
    if (!Object.prototype.hasOwnProperty.call(record, name)) continue;
    const value = record[name];
    const field: FieldInfo | undefined = Object.prototype.hasOwnProperty.call(model.fields, name) ? model.fields[name] : undefined;
    if (!field || value === null || value === undefined || (anyErrors && errors[`${prefix}${name}`])) continue;
    let problem: string | null;
    if (field.type === 'array') {
      const itemType = field.itemType ?? 'object';
      problem = !Array.isArray(value)
        ? 'must be an array'
        : value.some((item) => item !== null && mismatch(itemType, item) !== null)
          ? `must contain only ${itemType === 'object' ? 'plain values' : `${itemType} values`}`
          : mismatch('array', value);
    } else {
      problem = mismatch(field.type, value);
    }
    if (problem) addError(errors, `${prefix}${name}`, `The ${label(name)} ${problem}.`);
  }
}
