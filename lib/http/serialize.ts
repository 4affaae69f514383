/**
 * Makes a driver row JSON-ready: dates become ISO 8601 UTC with six fractional digits
 * (`2026-11-22T06:10:00.123000Z`), the same on every driver.
 */
export function formatDate(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function serialize(value: unknown): unknown {
  if (value instanceof Date) return formatDate(value);
  if (Array.isArray(value)) return value.map(serialize);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = serialize(inner);
    return out;
  }
  return value;
}
