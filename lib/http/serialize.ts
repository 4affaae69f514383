/**
 * Makes a driver row JSON-ready: dates become ISO 8601 UTC with six fractional digits
 * (`2026-11-22T06:10:00.123000Z`), the same on every driver.
 */
export function formatDate(date: Date): string {
  // toISOString always ends in `.mmmZ`: append the three digits a JS Date cannot hold (no regex per date)
  const iso = date.toISOString();
  return `${iso.slice(0, -1)}000Z`;
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
