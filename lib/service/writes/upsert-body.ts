import { BadRequestError, ValidationError } from '../../errors';
import type { Filter, Scalar } from '../../query/ast';
import type { ResourceEntry } from '../declarations/registry';
import { addError, type FieldErrors } from './validate-input';

/**
 * Decision 79's request body: `{"match": [...], "<MODEL>": record or [records]}`, checked before
 * anything is read: `match` equals a declared set (or is left out when one set is declared),
 * every record gives every match field, and no two records share match values.
 */
export interface UpsertRequest {
  keys: string[];
  items: Record<string, unknown>[];
  many: boolean;
  /** Error path prefix of item `i`: `product.<i>.` (`product.` for one record). */
  prefix(index: number): string;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((f) => b.includes(f));

export function readUpsertBody(body: unknown, entry: ResourceEntry): UpsertRequest {
  const MODEL = entry.info.name;
  const declared = entry.declaration.upsertKeys ?? [];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestError(`The request body must be a JSON object with "${MODEL}" (a record or an array of records).`, MODEL);
  const obj = body as Record<string, unknown>;
  const errors: FieldErrors = {};
  let keys: string[] | undefined;
  if (obj.match === undefined) {
    if (declared.length === 1) keys = declared[0];
    else addError(errors, 'match', `The match field is required: one of ${declared.map((k) => `[${k.join(', ')}]`).join(', ')}.`);
  } else if (!Array.isArray(obj.match) || !obj.match.every((f) => typeof f === 'string')) {
    addError(errors, 'match', 'The match must be an array of field names.');
  } else {
    keys = declared.find((set) => sameSet(set, obj.match as string[]));
    if (!keys) addError(errors, 'match', `The match must name one declared set of match keys: ${declared.map((k) => `[${k.join(', ')}]`).join(', ')}.`);
  }
  const raw = obj[MODEL];
  if (raw === undefined || raw === null || typeof raw !== 'object') throw new BadRequestError(`The "${MODEL}" key is required: a record or an array of records.`, MODEL);
  const many = Array.isArray(raw);
  const list = many ? (raw as unknown[]) : [raw];
  if (list.length === 0) throw new BadRequestError(`The "${MODEL}" array must contain at least one record.`, MODEL);
  const prefix = (i: number) => (many ? `${MODEL}.${i}.` : `${MODEL}.`);
  const items: Record<string, unknown>[] = [];
  const seen = new Map<string, number>();
  list.forEach((item, i) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      addError(errors, prefix(i).slice(0, -1), 'Each record must be a JSON object.');
      items.push({});
      return;
    }
    const record = item as Record<string, unknown>;
    items.push(record);
    if (!keys) return;
    const missing = keys.filter((k) => record[k] === undefined || record[k] === null || record[k] === '');
    for (const k of missing) addError(errors, `${prefix(i)}${k}`, `The ${k.replace(/_/g, ' ')} field is required to match records.`);
    if (missing.length > 0) return;
    const tuple = tupleOf(keys, record);
    if (seen.has(tuple)) addError(errors, `${prefix(i)}${keys[0]}`, `The record repeats the match values of ${MODEL}.${seen.get(tuple)} (${keys.join(', ')}).`);
    else seen.set(tuple, i);
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { keys: keys!, items, many, prefix };
}

/** A filter matching the records whose match values are those of `items` (one `in` for one key). */
export function matchFilter(entry: ResourceEntry, keys: string[], values: Array<Record<string, unknown>>): Filter {
  const cast = (field: string, value: unknown): Scalar => {
    const type = entry.info.fields[field]?.type;
    if ((type === 'integer' || type === 'number') && typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
    return value as Scalar;
  };
  if (keys.length === 1) return { kind: 'condition', field: keys[0], operator: 'in', value: values.map((v) => cast(keys[0], v[keys[0]])) };
  return { kind: 'or', filters: values.map((v) => ({ kind: 'and', filters: keys.map((k) => ({ kind: 'condition', field: k, operator: '=', value: cast(k, v[k]) })) })) };
}

/** The match values of a record as one comparable text (one key: its value as text). */
export function tupleOf(keys: string[], record: Record<string, unknown>): string {
  return keys.length === 1 ? String(record[keys[0]]) : JSON.stringify(keys.map((k) => String(record[k])));
}
