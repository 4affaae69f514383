import { BadRequestError, UnknownFieldsError } from '../../errors';
import type { ModelInfo, PivotInfo } from '../../resource/model-info';
import type { KeyedEntry, NestedKeys } from '../resource-service-types';

export type { KeyedEntry, NestedKeys };
import { isForbiddenKey } from '../../query/safe-keys';
import { addError, type FieldErrors } from './validate-input';

/**
 * Decision 77: the keys of a write body, checked before the route's work (before any database
 * call): a key that is no field of the record's model, no relation the route takes and no
 * envelope key is an `unknown_field` error at its path. Pure walks over the body, no casting.
 */

/** The declaration's `unknownFields: 'ignore'` (decision 77). */
export const lenientEntry = (entry: KeyedEntry): boolean => entry.declaration.unknownFields === 'ignore';

/** How the keys of one record are judged. */
export interface RecordKeys {
  info: ModelInfo;
  /** The declaration's `unknownFields: 'ignore'`: the record's own keys are not checked. */
  lenient: boolean;
  /** Keys a record may carry beside its fields (a link's `pivot` and pivot columns, a bare body's `_scenario`). */
  extra?: readonly string[];
  /**
   * Keys naming a relation of the model, on routes that take nested writes: handed here (the
   * relations the route takes are checked further; the others are refused by name by the write,
   * decision 58). Absent: a relation key is unknown like any other key.
   */
  nested?: (key: string, value: unknown, path: string, errors: FieldErrors) => void;
}

const has = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

export const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function unknownKey(errors: FieldErrors, path: string, key: string): void {
  addError(errors, path, `The ${key} field is unknown.`);
}

/** The keys of one record; `prefix` is its path with a trailing dot (`product.1.`), or ''. Not an object: left to the write. */
export function checkRecord(record: unknown, shape: RecordKeys, prefix: string, errors: FieldErrors): void {
  if (!isRecord(record)) return;
  const { info } = shape;
  for (const key of Object.keys(record)) {
    if (has(info.fields, key) || isForbiddenKey(key)) continue;
    if (shape.nested && (has(info.relations, key) || has(info.hiddenRelations, key))) {
      shape.nested(key, record[key], `${prefix}${key}`, errors);
      continue;
    }
    if (shape.lenient || shape.extra?.includes(key)) continue;
    unknownKey(errors, `${prefix}${key}`, key);
  }
}

/** Each record of an array (`prefix` is the array's path, `reviews`); anything else is left to the write. */
export function checkRecords(value: unknown, shape: RecordKeys, prefix: string, errors: FieldErrors): void {
  if (!Array.isArray(value)) return;
  value.forEach((record, i) => checkRecord(record, shape, `${prefix}${i}.`, errors));
}

/** The keys of an envelope (`{product: [...]}`, `{ids: [...]}`): only those named. */
export function checkEnvelope(body: Record<string, unknown>, allowed: readonly string[], errors: FieldErrors): void {
  for (const key of Object.keys(body)) if (!allowed.includes(key) && !isForbiddenKey(key)) unknownKey(errors, key, key);
}

/** What a many-to-many link item may carry: the related record's fields, `id`, the related key, the pivot columns and `pivot`. */
export function linkKeys(related: ModelInfo, lenient: boolean, pivot: PivotInfo, extra: readonly string[] = []): RecordKeys {
  return { info: related, lenient, extra: ['id', pivot.relatedKey, ...pivot.columns, 'pivot', ...extra] };
}

/** Link items (ids or objects) of an array, or the values of an `{<id>: {pivot columns}}` map. */
export function checkLinks(value: unknown, shape: RecordKeys, pivot: PivotInfo, prefix: string, errors: FieldErrors): void {
  if (Array.isArray(value)) return checkRecords(value, shape, prefix, errors);
  if (!isRecord(value)) return;
  const columns = pivot.columns;
  for (const [id, values] of Object.entries(value)) {
    if (!isRecord(values) || shape.lenient) continue;
    for (const key of Object.keys(values)) if (!columns.includes(key) && !isForbiddenKey(key)) unknownKey(errors, `${prefix}${id}.${key}`, key);
  }
}

/**
 * Decision 50: a body's `_relation` is never obeyed, and `_scenario` only where the route takes
 * it; either elsewhere is a 400 naming it (as in the query string, decision 64).
 */
export function refuseRouteKeys(body: unknown, takesScenario: boolean): void {
  if (!isRecord(body)) return;
  if (has(body, '_relation')) throw new BadRequestError('The _relation parameter is not taken: a relation route is chosen by its path.', '_relation');
  if (!takesScenario && has(body, '_scenario')) throw new BadRequestError('This route takes no _scenario.', '_scenario');
}

/** The errors found, as one 422 `unknown_field`. */
export function throwUnknown(errors: FieldErrors): void {
  if (Object.keys(errors).length > 0) throw new UnknownFieldsError(errors);
}
