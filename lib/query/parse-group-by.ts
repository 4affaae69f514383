import { BadRequestError } from '../errors';
import type { Catalog, FieldInfo, FieldType, ModelInfo } from '../resource/model-info';
import { BUCKET_UNITS, type Bucket, type BucketUnit, type GroupKey } from './aggregate-ast';
import { filterField } from './check-field';
import { decodeParam, isAbsent } from './json-param';
import { relationStep } from './relation-path';
import { clientEntries, isPlainObject } from './safe-keys';
import { isTimeZoneName } from './time-zone';

export const MAX_GROUPS = 5;

const SCALAR: FieldType[] = ['string', 'number', 'integer', 'boolean', 'date', 'id'];
const BUCKET_KEYS = ['field', 'bucket', 'tz', 'week_start'];
const P = 'group_by';

/** A group field and its FieldInfo (the answer's `having` types its values by it). */
export interface ParsedGroup {
  key: GroupKey;
  info: FieldInfo;
}

const show = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)));

/** The items of `group_by`: names (a list or a comma-separated string) and bucket objects (decision 84). */
function items(raw: unknown): unknown[] {
  const value = decodeParam(P, raw);
  if (isAbsent(value)) return [];
  if (typeof value === 'string') return value.split(',');
  if (isPlainObject(value)) return [value];
  if (!Array.isArray(value) || value.some((i) => typeof i !== 'string' && !isPlainObject(i))) {
    throw new BadRequestError('Parameter "group_by" must be an array of field names and bucket objects ({"field": ..., "bucket": ...}), or a comma-separated string.', P);
  }
  return value;
}

/** `{"field", "bucket", "tz", "week_start"}`: every key checked, the zone and unit named when refused. */
function bucketItem(item: Record<string, unknown>): { name: string; bucket: Bucket } {
  const entries = Object.fromEntries(clientEntries(item, P));
  for (const key of Object.keys(entries)) {
    if (!BUCKET_KEYS.includes(key)) throw new BadRequestError(`Unknown key "${key}" in a group_by bucket; a bucket takes ${BUCKET_KEYS.join(', ')}.`, P);
  }
  const { field, bucket: unit, tz = 'UTC', week_start } = entries;
  if (typeof field !== 'string' || field.trim() === '') throw new BadRequestError('A group_by bucket needs "field": the name of a date field.', P);
  if (typeof unit !== 'string' || !(BUCKET_UNITS as readonly string[]).includes(unit)) {
    throw new BadRequestError(`Unknown bucket unit "${show(unit)}" in group_by; units: ${BUCKET_UNITS.join(', ')}.`, P);
  }
  if (typeof tz !== 'string' || !isTimeZoneName(tz)) {
    throw new BadRequestError(`Unknown time zone "${show(tz)}" in group_by: use an IANA zone name as the tz database spells it (e.g. "Europe/Berlin") or "UTC".`, P);
  }
  if (week_start !== undefined && unit !== 'week') throw new BadRequestError(`"week_start" in a group_by bucket goes only with the unit "week" (got "${unit}").`, P);
  if (week_start !== undefined && week_start !== 'monday' && week_start !== 'sunday') {
    throw new BadRequestError(`Invalid week_start "${show(week_start)}" in group_by; use monday or sunday.`, P);
  }
  return { name: field.trim(), bucket: { unit: unit as BucketUnit, tz, weekStart: week_start === 'sunday' ? 'sunday' : 'monday' } };
}

/** A field of the root or a `relation.field` path through to-one relations. */
function groupPath(name: string, model: ModelInfo, catalog: Catalog): ParsedGroup {
  const segments = name.split('.').map((s) => s.trim());
  if (segments.some((s) => s === '')) throw new BadRequestError(`Invalid group_by field "${name}".`, P);
  const relations: string[] = [];
  let current = model;
  for (const segment of segments.slice(0, -1)) {
    const step = relationStep(current, segment, catalog, P);
    if (step.relation.kind !== 'belongsTo' && step.relation.kind !== 'hasOne') {
      throw new BadRequestError(`Relation "${segment}" cannot be used in group_by: only to-one relations (belongsTo, hasOne) are group paths.`, P);
    }
    relations.push(segment);
    current = step.target;
  }
  const where = relations.length ? `group_by (relation "${relations.join('.')}")` : P;
  const info = filterField(current, segments[segments.length - 1], where, P);
  if (!SCALAR.includes(info.type)) throw new BadRequestError(`Field "${name}" cannot be grouped: it holds ${info.type === 'array' ? 'a list' : 'an object'}.`, P);
  return { key: { name: segments.join('.'), relations, field: info.name }, info };
}

/**
 * `group_by`: at most 5 items, each a field of the root or a `relation.field` path through to-one
 * relations, or a bucket of a date field (decision 84), whose key in the answer is the field's name.
 */
export function parseGroupBy(raw: unknown, model: ModelInfo, catalog: Catalog): ParsedGroup[] {
  const list = items(raw).filter((i) => typeof i !== 'string' || i.trim() !== '');
  if (list.length > MAX_GROUPS) throw new BadRequestError(`Parameter "group_by" takes at most ${MAX_GROUPS} fields (got ${list.length}).`, P);
  const groups: ParsedGroup[] = [];
  for (const item of list) {
    const bucketed = typeof item === 'string' ? null : bucketItem(item as Record<string, unknown>);
    const group = groupPath(bucketed ? bucketed.name : (item as string).trim(), model, catalog);
    if (bucketed) {
      if (group.info.type !== 'date') throw new BadRequestError(`Field "${group.key.name}" cannot be bucketed: it is a ${group.info.type} field, not a date.`, P);
      group.key.bucket = bucketed.bucket;
    }
    const twin = groups.find((g) => g.key.name === group.key.name);
    if (twin && (twin.key.bucket || group.key.bucket)) throw new BadRequestError(`Field "${group.key.name}" is grouped twice in group_by: its group key would be ambiguous.`, P);
    if (!twin) groups.push(group);
  }
  return groups;
}
