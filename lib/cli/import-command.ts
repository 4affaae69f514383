import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import type { CliIo } from './cli-io';
import { UsageError } from './client-command';
import { importFile, type ImportProgress, type ImportSummary } from '../client/import-file';
import { ApiRequestError } from '../client/client';

export const IMPORT_USAGE = `  import --url <API URL> --resource <name> --file <path.csv|path.xlsx> [--token <t>]
         [--mode upsert --match sku] [--on-error skip] [--idempotency-key <k>]
      Sends the file to POST /<resource>/import and shows a progress bar on a terminal (rows,
      rows/s, errors), then the summary. The URL may also be given first: import <URL> --file x.csv
      (then --resource, or the URL's last segment names the resource: .../api/v1/products).
`;

interface ImportArgs {
  url: string;
  resource: string;
  file: string;
  token?: string;
  mode?: 'insert' | 'upsert';
  match?: string[];
  onError?: 'abort' | 'skip';
  idempotencyKey?: string;
}

function parseImportArgs(args: string[]): ImportArgs | null {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, strict: true, options: { url: { type: 'string' }, resource: { type: 'string' }, file: { type: 'string' }, token: { type: 'string' }, mode: { type: 'string' }, match: { type: 'string' }, 'on-error': { type: 'string' }, 'idempotency-key': { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return null;
  let url = values.url ?? positionals[0];
  let resource = values.resource;
  if (!url) throw new UsageError('import: --url <API URL> is missing.');
  if (!values.file) throw new UsageError('import: --file <path> is missing.');
  if (!resource) {
    const parts = url.replace(/\/+$/, '').split('/');
    resource = parts.pop();
    url = parts.join('/');
  }
  if (!resource) throw new UsageError('import: --resource <name> is missing.');
  if (values.mode !== undefined && values.mode !== 'insert' && values.mode !== 'upsert') throw new UsageError('import: --mode is insert or upsert.');
  const onError = values['on-error'];
  if (onError !== undefined && onError !== 'abort' && onError !== 'skip') throw new UsageError('import: --on-error is abort or skip.');
  return { url, resource, file: values.file, token: values.token, mode: values.mode as ImportArgs['mode'], match: values.match?.split(','), onError: onError as ImportArgs['onError'], idempotencyKey: values['idempotency-key'] };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** One line of the bar: the share of the file sent, rows, rows/s, errors. */
export function progressLine(sent: number, size: number, p: ImportProgress, seconds: number, width = 30): string {
  const share = size > 0 ? Math.min(1, sent / size) : 0;
  const done = Math.round(share * width);
  return `[${'#'.repeat(done)}${'.'.repeat(width - done)}] ${String(Math.round(share * 100)).padStart(3)}%  rows ${fmt(p.rows)}  ${fmt(seconds > 0 ? p.rows / seconds : 0)} rows/s  errors ${fmt(p.errors)}`;
}

export function summaryText(s: ImportSummary, seconds: number): string {
  const lines = [`imported ${fmt(s.rows)} rows in ${seconds.toFixed(1)} s: ${fmt(s.created)} created, ${fmt(s.updated)} updated, ${fmt(s.unchanged)} unchanged, ${fmt(s.skipped)} skipped`];
  for (const e of s.errors.slice(0, 20)) lines.push(`  row ${e.row}${e.column ? ` (${e.column})` : ''}: ${e.message}`);
  if (s.skipped > 20) lines.push(`  ... and ${fmt(s.skipped - 20)} more`);
  return lines.join('\n') + '\n';
}

/** `generic-resource-rest import`: the exit code (0 imported, 1 refused or failed). */
export async function runImportCommand(args: string[], io: CliIo, usage: string, tty = Boolean(process.stderr.isTTY)): Promise<number> {
  const options = parseImportArgs(args);
  if (!options) {
    io.out(usage);
    return 0;
  }
  const size = statSync(options.file).size;
  let sent = 0;
  const file = createReadStream(options.file);
  file.on('data', (chunk) => (sent += chunk.length));
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  try {
    const summary = await importFile({ baseUrl: options.url, headers: options.token ? { authorization: `Bearer ${options.token}` } : {} }, options.resource, Readable.toWeb(file) as ReadableStream<Uint8Array>, {
      format: /\.xlsx$/i.test(options.file) ? 'xlsx' : 'csv',
      mode: options.mode,
      match: options.match,
      onError: options.onError,
      idempotencyKey: options.idempotencyKey,
      onProgress: (p) => (tty ? io.err(`\r${progressLine(sent, size, p, seconds())}`) : undefined),
    });
    if (tty) io.err(`\r${progressLine(size, size, { rows: summary.rows, written: summary.created + summary.updated + summary.unchanged, errors: summary.skipped }, seconds())}\n`);
    io.out(summaryText(summary, seconds()));
    return 0;
  } catch (error) {
    if (tty) io.err('\n');
    if (error instanceof ApiRequestError) {
      const rows = (error.body.rows ?? []) as Array<{ row: number; column: string | null; message: string }>;
      io.err(`generic-resource-rest: import refused (${error.status}): ${error.message}\n${rows.slice(0, 20).map((r) => `  row ${r.row}${r.column ? ` (${r.column})` : ''}: ${r.message}\n`).join('')}`);
      return 1;
    }
    throw error;
  } finally {
    file.destroy();
  }
}
