import { BadRequestError } from '../errors';
import { xmlSafe } from './cell-text';

/**
 * A download name without path, quotes, control characters or line breaks (decision 45), with the
 * format's extension; non-ASCII letters go in `filename*` only.
 */
export function exportFilename(raw: unknown, fallback: string, extension: string): string {
  if (raw === undefined || raw === null || raw === '') return fallback;
  if (typeof raw !== 'string') throw new BadRequestError('Parameter "filename" must be a string.', 'filename');
  const base = raw.split(/[\\/]/).pop() ?? '';
  // lone surrogates (which URI encoding refuses), U+FFFE/U+FFFF and controls go with the rest
  const cleaned = xmlSafe(base)
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029"';<>|*?:`]/g, '')
    .replace(/^\.+/, '')
    .trim()
    .slice(0, 150)
    // a cut between the two halves of a pair leaves a lone surrogate
    .replace(/[\ud800-\udbff]$/, '');
  if (cleaned === '') return fallback;
  return cleaned.toLowerCase().endsWith(`.${extension}`) ? cleaned : `${cleaned}.${extension}`;
}

/** `attachment; filename="ascii"; filename*=UTF-8''encoded`. */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_');
  // RFC 8187's attr-char has no parentheses, which encodeURIComponent leaves as they are
  const encoded = encodeURIComponent(filename).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
