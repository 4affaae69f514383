import type { Row } from '../../driver';
import type { ModelInfo } from '../../resource/model-info';

/**
 * Decision 67 for upserts: whether a matched record's given values already are the stored ones,
 * so it is not written at all. Dates compare as instants, arrays and objects as JSON, ids and
 * numbers by value; a field the record does not give, or one of `skipped` (the match keys), is not compared.
 */
export function unchangedBy(info: ModelInfo, changes: Record<string, unknown>, stored: Row, skipped: readonly string[] = []): boolean {
  for (const field in changes) {
    if (!Object.prototype.hasOwnProperty.call(changes, field) || skipped.includes(field)) continue;
    if (!sameValue(info.fields[field]?.type, changes[field], stored[field])) return false;
  }
  return true;
}

function sameValue(type: string | undefined, given: unknown, stored: unknown): boolean {
  if (given === undefined) return true;
  if (given === null || stored === null || stored === undefined) return given === (stored ?? null);
  if (type === 'date' || given instanceof Date || stored instanceof Date) {
    const a = new Date(given as string).getTime();
    const b = new Date(stored as string).getTime();
    return !Number.isNaN(a) && a === b;
  }
  if (typeof given === 'object' || typeof stored === 'object') return JSON.stringify(given) === JSON.stringify(stored);
  if ((type === 'integer' || type === 'number' || type === 'id') && typeof given !== typeof stored) return String(given) === String(stored);
  return given === stored;
}
