import { BadRequestError } from '../errors';

/**
 * A download name without path, quotes, control characters or line breaks (decision 45), with the
 * format's extension; non-ASCII letters go in `filename*` only.
 */
export function exportFilename(raw: unknown, fallback: string, extension: string): string {
  if (raw === undefined || raw === null || raw === '') return fallback;
  if (typeof raw !== 'string') throw new BadRequestError('Parameter "filename" must be a string.', 'filename');
  const base = raw.split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .replace(/[\u0000-\u001f\u007f"';<>|*?:`]/g, '')
    .replace(/^\.+/, '')
    .trim()
    .slice(0, 150);
  if (cleaned === '') return fallback;
  return cleaned.toLowerCase().endsWith(`.${extension}`) ? cleaned : `${cleaned}.${extension}`;
}

/** `attachment; filename="ascii"; filename*=UTF-8''encoded`. */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
