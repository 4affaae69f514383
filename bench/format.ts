/** The API's timestamp form: ISO 8601 UTC with six fractional digits (decisions.md 21). */
export function isoMicro(value: Date): string {
  return value.toISOString().replace(/Z$/, '000Z');
}
