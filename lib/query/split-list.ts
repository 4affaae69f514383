/**
 * The values of an in/between operand: `[a,b,c]`, `a,b,c`, or a JSON array (`["a","b"]`).
 * Elements are trimmed; the brackets are optional (decision 5).
 */
export function splitList(raw: string): unknown[] {
  const text = raw.trim();
  if (text.startsWith('[') && text.endsWith(']')) {
    try {
      const parsed = JSON.parse(text) as unknown;
      if (Array.isArray(parsed) && parsed.every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v))) {
        return parsed as unknown[];
      }
    } catch {
      // not JSON: the plain bracket form [a,b,c]
    }
    const inner = text.slice(1, -1).trim();
    return inner === '' ? [] : inner.split(',').map((v) => v.trim());
  }
  return text === '' ? [] : text.split(',').map((v) => v.trim());
}
