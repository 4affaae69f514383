import type { Row } from '../driver';
import type { ModelInfo } from '../resource/model-info';
import { formatDate } from '../service/reads/serialize';

/** Fields history never lists (decision 83): the key, the timestamps, the version field, write-only fields. */
export function trackedFields(info: ModelInfo): string[] {
  const skipped = new Set([info.key, 'id', 'created_at', 'updated_at', ...(info.versionField ? [info.versionField] : [])]);
  return Object.values(info.fields).filter((f) => !f.writeOnly && !skipped.has(f.name)).map((f) => f.name);
}

/** A value as history stores it: JSON, dates in the API's format. */
export function historyValue(info: ModelInfo, field: string, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return formatDate(value);
  if (info.fields[field]?.type === 'date' && (typeof value === 'string' || typeof value === 'number')) {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? value : formatDate(date);
  }
  if (typeof value === 'object') return JSON.parse(JSON.stringify(value)) as unknown;
  return value;
}

/** Equal as stored values: the same JSON, or the same number written as text (PostgreSQL decimals). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((typeof a === 'number' && typeof b === 'string') || (typeof a === 'string' && typeof b === 'number')) return b !== '' && a !== '' && Number(a) === Number(b);
  return JSON.stringify(a) === JSON.stringify(b);
}

/** What an update changed: each written field whose value differs from the stored one, as [before, after]. */
export function updateChanges(info: ModelInfo, fields: string[], before: Row, written: Record<string, unknown>): Record<string, [unknown, unknown]> {
  const out: Record<string, [unknown, unknown]> = {};
  for (const field of fields) {
    if (!Object.prototype.hasOwnProperty.call(written, field)) continue;
    const was = historyValue(info, field, before[field]);
    const now = historyValue(info, field, written[field]);
    if (!sameValue(was, now)) out[field] = [was, now];
  }
  return out;
}

/** A created record: each field it set to a non-null value, as [null, after]. */
export function createdChanges(info: ModelInfo, fields: string[], record: Record<string, unknown>): Record<string, [unknown, unknown]> {
  const out: Record<string, [unknown, unknown]> = {};
  for (const field of fields) {
    const now = historyValue(info, field, record[field]);
    if (now !== null) out[field] = [null, now];
  }
  return out;
}

/** A record deleted for good: each field it held, as [before, null] (its last stored values stay readable). */
export function removedChanges(info: ModelInfo, fields: string[], row: Row): Record<string, [unknown, unknown]> {
  const out: Record<string, [unknown, unknown]> = {};
  for (const field of fields) {
    const was = historyValue(info, field, row[field]);
    if (was !== null) out[field] = [was, null];
  }
  return out;
}
