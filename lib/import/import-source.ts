import type { Request } from 'express';
import { createHash, type Hash } from 'node:crypto';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ApiError, BadRequestError } from '../errors';
import { requirePackage } from './optional-packages';

export type ImportFormat = 'csv' | 'xlsx';

export interface ImportSource {
  format: ImportFormat;
  /** The file's bytes, counted against the limit as they come. */
  stream: Readable;
  /**
   * The SHA-256 of the file's bytes (the part's, for multipart: boundaries differ between two
   * sends of one file), the rest of the file read first (an xlsx reader may stop before its end).
   */
  digest(): Promise<string>;
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

/** The bytes of `input`, a 413 past `max` (the JSON body limit is not theirs: a file may be large, not endless), hashed as they pass. */
function limited(input: Readable, max: number, hash: Hash | null): Readable {
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > max) return done(new ApiError('payload_too_large', `The import file is larger than ${max} bytes (REST_IMPORT_MAX_BYTES).`));
      hash?.update(chunk);
      done(null, chunk);
    },
  });
  input.on('error', (error) => counter.destroy(error));
  return input.pipe(counter);
}

/** An import source over `input`: its stream, and (when `hashed`) its digest once read to the end. */
function sourceOf(format: ImportFormat, input: Readable, max: number, hashed: boolean): ImportSource {
  const hash = hashed ? createHash('sha256') : null;
  const stream = limited(input, max, hash);
  return { format, stream, digest: () => (hash ? drained(stream).then(() => hash.digest('hex')) : Promise.reject(new Error('The import source was opened without a digest.'))) };
}

async function drained(stream: Readable): Promise<void> {
  if (stream.readableEnded) return;
  stream.resume();
  await finished(stream, { writable: false });
}

/**
 * Decision 82: the file of an import, as the raw body (`text/csv` or the xlsx type) or as the
 * `file` part of `multipart/form-data` (busboy streams it; other parts are ignored: parameters
 * travel in the query). `hashed`: the bytes are hashed as they pass (an Idempotency-Key's digest).
 */
export async function openSource(req: Request, maxBytes: number, hashed = false): Promise<ImportSource> {
  const type = req.headers['content-type'];
  if (!type?.toLowerCase().startsWith('multipart/form-data')) {
    if (SNIFFED.includes((type ?? '').split(';')[0].trim().toLowerCase())) {
      const source = sourceOf('csv', req, maxBytes, hashed);
      return { ...source, format: await sniff(source.stream) };
    }
    const format = formatOf(type);
    if (!format) throw new BadRequestError('An import takes text/csv, an xlsx file (application/vnd.openxmlformats-officedocument.spreadsheetml.sheet) or multipart/form-data with a "file" part.');
    return sourceOf(format, req, maxBytes, hashed);
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
      const format = formatOf(info.mimeType, info.filename);
      const source = sourceOf(format ?? 'csv', out, maxBytes, hashed);
      if (format) resolve(source);
      else sniff(source.stream).then((sniffed) => resolve({ ...source, format: sniffed }), reject);
    });
    parser.on('error', (error: Error) => reject(new BadRequestError(`The multipart body is malformed: ${error.message}`)));
    parser.on('close', () => {
      if (!found) reject(new BadRequestError('The multipart body has no "file" part.', 'file'));
    });
    req.pipe(parser);
  });
}

/**
 * A repeat's file read to its end for its digest (decision 80: compared with the first request's).
 * A file over the limit cannot be the stored one (that one was read whole): it gets a digest of its own.
 */
export async function fileDigest(req: Request, maxBytes: number): Promise<string> {
  try {
    return await (await openSource(req, maxBytes, true)).digest();
  } catch (error) {
    if (error instanceof ApiError && error.type === 'payload_too_large') return 'over-limit';
    throw error;
  }
}
