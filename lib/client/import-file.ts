import { ApiRequestError, type ClientOptions } from './client';
import { SseParser } from './changes';

/** One row error of an import (decision 82). */
export interface ImportRowError {
  row: number;
  column: string | null;
  field: string | null;
  code: string;
  message: string;
}

/** The answer of `POST /{resource}/import`. */
export interface ImportSummary {
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  errors: ImportRowError[];
}

export interface ImportProgress {
  rows: number;
  written: number;
  errors: number;
}

export interface ImportFileOptions {
  /** `insert` (default) or `upsert` by `match` (decision 79). */
  mode?: 'insert' | 'upsert';
  match?: string[];
  /** `abort` (default: all or nothing) or `skip` (bad rows listed, the rest committed). */
  onError?: 'abort' | 'skip';
  /** `csv` or `xlsx`; default from the file's name or type, else csv. */
  format?: 'csv' | 'xlsx';
  /** Called with `{rows, written, errors}` at least every second (the answer is then a progress stream). */
  onProgress?: (progress: ImportProgress) => void;
  /** Makes a retried import safe (decision 80). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

const TYPES = { csv: 'text/csv', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' } as const;

/** What the client sends as the file: bytes, text, a Blob/File, or a stream of bytes (Node's `fs.createReadStream` converted with `Readable.toWeb`). */
export type ImportBody = Blob | Uint8Array | ArrayBuffer | string | ReadableStream<Uint8Array>;

function formatOf(file: ImportBody, given?: 'csv' | 'xlsx'): 'csv' | 'xlsx' {
  if (given) return given;
  const name = typeof Blob !== 'undefined' && file instanceof Blob ? ((file as { name?: string }).name ?? file.type) : '';
  return /xlsx|spreadsheetml/i.test(name) ? 'xlsx' : 'csv';
}

/**
 * `POST /{resource}/import` (decision 82): the file as the raw body; with `onProgress` the answer
 * is read as a progress stream (`Accept: text/event-stream`) and `onProgress` gets each
 * `progress` event. Resolves to the summary; rejects with an ApiRequestError (the 422's `rows`
 * in its body) when the import failed.
 */
export async function importFile(options: ClientOptions, resource: string, file: ImportBody, extra: ImportFileOptions = {}): Promise<ImportSummary> {
  const url = new URL(`${options.baseUrl.replace(/\/$/, '')}/${resource}/import`);
  if (extra.mode) url.searchParams.set('mode', extra.mode);
  if (extra.match) url.searchParams.set('match', extra.match.join(','));
  if (extra.onError) url.searchParams.set('on_error', extra.onError);
  const streamed = typeof ReadableStream !== 'undefined' && file instanceof ReadableStream;
  const res = await (options.fetch ?? fetch)(url, {
    method: 'POST',
    headers: {
      accept: extra.onProgress ? 'text/event-stream' : 'application/json',
      'content-type': TYPES[formatOf(file, extra.format)],
      ...(extra.idempotencyKey ? { 'idempotency-key': extra.idempotencyKey } : {}),
      ...options.headers,
    },
    body: file as NonNullable<RequestInit['body']>,
    signal: extra.signal,
    ...(streamed ? { duplex: 'half' } : {}),
  } as RequestInit);
  const type = res.headers.get('content-type') ?? '';
  if (!type.includes('text/event-stream') || !res.body) {
    const text = await res.text();
    const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    if (!res.ok) throw new ApiRequestError(res.status, parsed as ApiRequestError['body']);
    return parsed as unknown as ImportSummary;
  }
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    for (const event of parser.push(decoder.decode(value, { stream: true }))) {
      const data = JSON.parse(event.data) as Record<string, unknown>;
      if (event.type === 'progress') extra.onProgress?.(data as unknown as ImportProgress);
      else if (event.type === 'done') return data as unknown as ImportSummary;
      else if (event.type === 'failed') {
        const error = (data.error ?? data) as ApiRequestError['body'] & { status?: number };
        throw new ApiRequestError(error.status ?? 500, error);
      }
    }
  }
  throw new ApiRequestError(502, { message: 'The import stream ended without a done or failed event.' });
}
