import type { Request } from 'express';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { ApiError, BadRequestError } from '../errors';
import { requirePackage } from './optional-packages';

export type ImportFormat = 'csv' | 'xlsx';

export interface ImportSource {
  format: ImportFormat;
  /** The file's bytes, counted against the limit as they come. */
  stream: Readable;
}

const XLSX_TYPES = ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/vnd.ms-excel'];
const CSV_TYPES = ['text/csv', 'application/csv', 'text/plain', 'text/comma-separated-values'];

function formatOf(type: string | undefined, filename?: string): ImportFormat | null {
  const t = (type ?? '').split(';')[0].trim().toLowerCase();
  if (XLSX_TYPES.includes(t) || /\.xlsx$/i.test(filename ?? '')) return 'xlsx';
  if (CSV_TYPES.includes(t) || /\.csv$/i.test(filename ?? '')) return 'csv';
  return null;
}

/** A file sent as `application/octet-stream` (or untyped): an xlsx is a zip (`PK`), anything else is read as CSV. */
function sniff(stream: Readable): Promise<ImportFormat> {
  return new Promise((resolve, reject) => {
    const done = (format: ImportFormat | null, error?: Error) => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', onError);
      if (error) reject(error);
      else resolve(format ?? 'csv');
    };
    const onReadable = () => {
      const chunk = stream.read() as Buffer | null;
      if (chunk === null) return;
      stream.unshift(chunk);
      done(chunk[0] === 0x50 && chunk[1] === 0x4b ? 'xlsx' : 'csv');
    };
    const onEnd = () => done('csv');
    const onError = (error: Error) => done(null, error);
    stream.on('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}

const SNIFFED = ['', 'application/octet-stream', 'binary/octet-stream'];

/** The bytes of `input`, a 413 past `max` (the JSON body limit is not theirs: a file may be large, not endless). */
function limited(input: Readable, max: number): Readable {
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > max) return done(new ApiError('payload_too_large', `The import file is larger than ${max} bytes (REST_IMPORT_MAX_BYTES).`));
      done(null, chunk);
    },
  });
  input.on('error', (error) => counter.destroy(error));
  return input.pipe(counter);
}

/**
 * Decision 82: the file of an import, as the raw body (`text/csv` or the xlsx type) or as the
 * `file` part of `multipart/form-data` (busboy streams it; other parts are ignored: parameters
 * travel in the query).
 */
export async function openSource(req: Request, maxBytes: number): Promise<ImportSource> {
  const type = req.headers['content-type'];
  if (!type?.toLowerCase().startsWith('multipart/form-data')) {
    if (SNIFFED.includes((type ?? '').split(';')[0].trim().toLowerCase())) {
      const stream = limited(req, maxBytes);
      return { format: await sniff(stream), stream };
    }
    const format = formatOf(type);
    if (!format) throw new BadRequestError('An import takes text/csv, an xlsx file (application/vnd.openxmlformats-officedocument.spreadsheetml.sheet) or multipart/form-data with a "file" part.');
    return { format, stream: limited(req, maxBytes) };
  }
  const busboy = requirePackage<typeof import('busboy')>('busboy', 'multipart imports');
  return new Promise<ImportSource>((resolve, reject) => {
    let found = false;
    const parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: maxBytes + 1 } });
    parser.on('file', (name, file, info) => {
      if (name !== 'file' || found) {
        file.resume();
        return;
      }
      found = true;
      const out = new PassThrough();
      file.on('limit', () => out.destroy(new ApiError('payload_too_large', `The import file is larger than ${maxBytes} bytes (REST_IMPORT_MAX_BYTES).`)));
      file.on('error', (error: Error) => out.destroy(error));
      file.pipe(out);
      const stream = limited(out, maxBytes);
      const format = formatOf(info.mimeType, info.filename);
      if (format) resolve({ format, stream });
      else sniff(stream).then((sniffed) => resolve({ format: sniffed, stream }), reject);
    });
    parser.on('error', (error: Error) => reject(new BadRequestError(`The multipart body is malformed: ${error.message}`)));
    parser.on('close', () => {
      if (!found) reject(new BadRequestError('The multipart body has no "file" part.', 'file'));
    });
    req.pipe(parser);
  });
}
