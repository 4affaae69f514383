import type { FieldType } from '../../lib/resource/model-info';

/**
 * pg hands back NUMERIC and BIGINT as strings and may hand back dates as strings; the API
 * promises JSON numbers and Date objects, the same as the MongoDB driver.
 */
export function convertValue(value: unknown, type: FieldType | undefined, itemType?: FieldType): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'number':
    case 'integer':
    case 'id':
      return typeof value === 'string' || typeof value === 'bigint' ? Number(value) : value;
    case 'date':
      return value instanceof Date ? value : new Date(value as string);
    case 'array':
      return Array.isArray(value) ? value.map((v) => convertValue(v, itemType)) : value;
    default:
      return value;
  }
}
