import type { FieldInfo } from '../resource/model-info';

const BOOLEAN: Record<string, boolean> = { true: true, false: false, '1': true, '0': false };

/**
 * A cell as a JSON body would carry the value (decision 82): an empty cell is null; numbers from
 * text for number fields, `true`/`false`/`1`/`0` (any case) for booleans, ISO text or a date cell
 * for dates, a number cell as its plain text in a text field. A value that does not cast stays as
 * it is, so the store's validation names it. Text is data: `=HYPERLINK(...)` stays that text.
 */
export function castCell(value: unknown, field: FieldInfo): unknown {
  if (value === null || value === undefined || value === '') return null;
  switch (field.type) {
    case 'integer':
    case 'number': {
      if (typeof value !== 'string') return value;
      const text = value.trim();
      const n = Number(text);
      return text !== '' && Number.isFinite(n) ? n : value;
    }
    case 'boolean': {
      const cast = BOOLEAN[String(value).trim().toLowerCase()];
      return cast ?? value;
    }
    case 'date':
      // as a JSON body carries a date: its ISO text (the schema checks text)
      return value instanceof Date ? value.toISOString() : value;
    case 'id':
      if (field.idType === 'integer' && typeof value === 'string' && /^\s*\d+\s*$/.test(value)) return Number(value);
      return typeof value === 'number' && field.idType !== 'integer' ? String(value) : value;
    case 'array':
    case 'object':
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
    default:
      if (value instanceof Date) return value.toISOString();
      return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
  }
}
