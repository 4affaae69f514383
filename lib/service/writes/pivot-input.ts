import { BadRequestError, ValidationError } from '../../errors';
import type { FieldType, PivotInfo } from '../../resource/model-info';
import { addError, type FieldErrors } from './validate-input';

/** One related id with the pivot values sent for it (allowed columns only). */
export interface PivotEntry {
  rawId: string | number;
  values: Record<string, unknown>;
  /** Where it came from in the body, for error keys (`tags.1`). */
  path: string;
}

const MAX_ITEMS = 10_000;
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

function fits(type: FieldType | undefined, value: unknown): string | null {
  if (value === null) return null;
  switch (type) {
    case 'integer':
      // one range on both drivers: what a PostgreSQL INTEGER column holds (2^31 would be stored by
      // MongoDB and refused by PostgreSQL's write as an unnamed 400)
      if (!Number.isSafeInteger(value)) return 'must be an integer';
      return (value as number) >= INT32_MIN && (value as number) <= INT32_MAX ? null : `must be an integer between ${INT32_MIN} and ${INT32_MAX}`;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? null : 'must be a date';
    case 'string':
      return typeof value === 'string' && !value.includes('\u0000') ? (value.length <= 10_000 ? null : 'may not be longer than 10000 characters') : 'must be a string';
    default:
      return typeof value === 'object' ? 'must be a scalar value' : null;
  }
}

/** Pivot columns of one entry: allowlisted columns kept (others ignored, spec), each value checked against its column type. */
function pivotValues(source: Record<string, unknown>, pivot: PivotInfo, allowed: readonly string[], path: string, errors: FieldErrors): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const column of allowed) {
    if (!Object.prototype.hasOwnProperty.call(source, column) || source[column] === undefined) continue;
    const problem = fits(pivot.columnTypes[column], source[column]);
    if (problem) addError(errors, path ? `${path}.${column}` : column, `The ${column} ${problem}.`);
    else values[column] = source[column];
  }
  return values;
}

const isId = (v: unknown): v is string | number => (typeof v === 'string' && v !== '') || (typeof v === 'number' && Number.isFinite(v));

/**
 * The spec's three pivot input shapes, normalized: `[id, id]`, `[{<relatedKey>: id, col: v}]`, and
 * `{<id>: {col: v}}`. `where` names the body key in messages. An id given twice is a 400.
 */
export function readPivotInput(raw: unknown, pivot: PivotInfo, allowed: readonly string[], where: string): PivotEntry[] {
  const errors: FieldErrors = {};
  const entries: PivotEntry[] = [];
  if (Array.isArray(raw)) {
    if (raw.length > MAX_ITEMS) throw new BadRequestError(`"${where}" may hold at most ${MAX_ITEMS} ids.`, where);
    raw.forEach((item, i) => {
      const path = `${where}.${i}`;
      if (isId(item)) entries.push({ rawId: item, values: {}, path });
      else if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
        const obj = item as Record<string, unknown>;
        // decision 75: the record is named by `id` or by the related key; both naming different records is an error
        const sent = (k: string) => obj[k] !== undefined && obj[k] !== null;
        const key = sent(pivot.relatedKey) || !sent('id') ? pivot.relatedKey : 'id';
        const named = obj[key];
        if (!isId(named)) addError(errors, `${path}.${key}`, `The ${key} field is required and must be an id.`);
        else if (key !== 'id' && sent('id') && String(obj.id) !== String(named)) addError(errors, path, `The id and ${pivot.relatedKey} name different records; send one of them.`);
        else entries.push({ rawId: named, values: pivotValues(obj, pivot, allowed, path, errors), path });
      } else addError(errors, path, `Each item must be an id or an object with ${pivot.relatedKey}.`);
    });
  } else if (raw !== null && typeof raw === 'object') {
    const map = Object.entries(raw as Record<string, unknown>);
    if (map.length > MAX_ITEMS) throw new BadRequestError(`"${where}" may hold at most ${MAX_ITEMS} ids.`, where);
    for (const [id, values] of map) {
      const path = `${where}.${id}`;
      if (values !== null && (typeof values !== 'object' || Array.isArray(values))) addError(errors, path, 'Pivot values must be an object of pivot columns.');
      else entries.push({ rawId: id, values: pivotValues((values ?? {}) as Record<string, unknown>, pivot, allowed, path, errors), path });
    }
  } else {
    throw new BadRequestError(`"${where}" must be an array of ids, an array of objects with ${pivot.relatedKey}, or an object of id -> pivot values.`, where);
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  const seen = new Set<string>();
  for (const entry of entries) {
    const key = String(entry.rawId).toLowerCase();
    if (seen.has(key)) throw new BadRequestError(`The id ${entry.rawId} appears more than once in "${where}".`, where);
    seen.add(key);
  }
  return entries;
}

/** Pivot columns of a single attach or pivot update body (`{<relatedKey>: id, col: v}` / `{col: v}`). */
export function readPivotObject(raw: unknown, pivot: PivotInfo, allowed: readonly string[], where: string): Record<string, unknown> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new BadRequestError(`${where} must be an object of pivot columns.`, where);
  const errors: FieldErrors = {};
  const values = pivotValues(raw as Record<string, unknown>, pivot, allowed, '', errors);
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return values;
}
