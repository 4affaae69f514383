import { BadRequestError } from '../errors';
import type { ResourceService } from '../service/resource-service';
import type { RequestContext } from '../service/request-context';
import { importColumns, type ImportColumn } from './import-columns';
import { ImportRowsError, ImportTooLargeError, LISTED_ERRORS } from './import-errors';
import { buildRow, type BuiltRow } from './import-rows';
import { resolveLookups } from './resolve-lookups';
import type { RowError, SheetRow } from './sheet-row';
import { markDuplicates, validateOnly, writeChunk, type ChunkPlan } from './write-chunk';

/** Rows per committed chunk with `on_error=skip` (one bulk write, one lookup query per relation column). */
export const IMPORT_CHUNK = 1000;

export interface ImportOptions {
  mode: 'insert' | 'upsert';
  keys: string[];
  onError: 'abort' | 'skip';
  atomicRows: number;
}

export interface ImportSummary {
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  errors: RowError[];
}

export interface ImportProgress {
  rows: number;
  written: number;
  errors: number;
}

export interface ImportTarget {
  service: ResourceService;
  serviceOf(model: string): ResourceService | undefined;
  /** The caller's view of the catalog and the fields they may not write. */
  columnRules: Parameters<typeof importColumns>[2];
  /** The owner value every record is stamped with (null: the caller may write any). */
  owner: unknown;
}

/**
 * Decision 82's loop: the header row checked into columns (4xx before any row is read), then rows
 * built as they are parsed and written in chunks. `skip`: each chunk committed on its own, bad
 * rows listed; `abort`: every row held (at most `atomicRows`) and written in one transaction only
 * when none has an error. `onColumns` runs once the header is accepted (the progress stream opens then).
 */
export async function runImport(rows: AsyncIterable<SheetRow[]>, target: ImportTarget, options: ImportOptions, ctx: RequestContext, onColumns: () => void, onProgress: (p: ImportProgress) => void): Promise<ImportSummary> {
  const iterator = rows[Symbol.asyncIterator]();
  const first = await iterator.next();
  const header = first.done ? undefined : first.value.shift();
  if (!header) throw new BadRequestError('The import file is empty: it needs a header row.', 'file');
  const columns: ImportColumn[] = importColumns(header.cells, target.service.entry.info, target.columnRules);
  if (options.mode === 'upsert') for (const key of options.keys) if (!columns.some((c) => (c.kind === 'field' && c.field.name === key) || (c.kind === 'relation' && c.foreignKey.name === key))) throw new BadRequestError(`The upsert match key "${key}" needs a column of its own.`, 'match');
  onColumns();
  const plan: ChunkPlan = { service: target.service, mode: options.mode, keys: options.keys, columns, ctx };
  const summary: ImportSummary = { rows: 0, created: 0, updated: 0, unchanged: 0, skipped: 0, errors: [] };
  let errorsTotal = 0;
  const skip = options.onError === 'skip';
  const progress = () => onProgress({ rows: summary.rows, written: summary.created + summary.updated + summary.unchanged, errors: errorsTotal });
  const settle = (chunk: BuiltRow[]) => {
    for (const r of chunk.filter((c) => c.error).sort((a, b) => a.row - b.row)) {
      errorsTotal += 1;
      if (summary.errors.length < LISTED_ERRORS) summary.errors.push(r.error!);
    }
  };
  let pending: BuiltRow[] = [];
  const flush = async () => {
    const chunk = pending;
    pending = [];
    for (let from = 0; from < chunk.length; from += IMPORT_CHUNK) await resolveLookups(chunk.slice(from, from + IMPORT_CHUNK), columns, target.serviceOf, ctx);
    checkOwners(chunk, target);
    // skip: checked only when a chunk's write meets a unique value (write-chunk.ts), not read for every
    // chunk, unless a refused write may be half done (no transactions): then before it
    if (!skip || options.mode === 'upsert' || !target.service.database.capabilities.transactions) await markDuplicates(chunk, plan);
    if (!skip && chunk.some((r) => r.error)) {
      await validateOnly(chunk, plan);
      return settle(chunk);
    }
    const outcome = await writeChunk(chunk, plan, skip);
    summary.created += outcome.created;
    summary.updated += outcome.updated;
    summary.unchanged += outcome.unchanged;
    settle(chunk);
    // emptied: a promoted dead array would keep the next rows alive through young collections (row-batches.ts)
    chunk.length = 0;
    progress();
  };
  // skip: the next chunk is parsed while the previous one is written (one write at a time)
  let writing: Promise<void> | null = null;
  const launch = async () => {
    if (writing) await writing;
    writing = flush();
    // awaited before the next launch or at the end; a failure is thrown there
    writing.catch(() => undefined);
  };
  // the rows come in batches (one await a batch, not a row: read-csv.ts)
  for (let batch: SheetRow[] = first.value!; ; ) {
    for (let i = 0; i < batch.length; i += 1) {
      summary.rows += 1;
      pending.push(buildRow(batch[i], columns, target.service.entry.info, target.owner));
      // its cells are garbage now: not kept alive by the batch while a write is awaited below
      batch[i] = undefined as unknown as SheetRow;
      if (!skip && summary.rows > options.atomicRows) {
        await iterator.return?.();
        throw new ImportTooLargeError(options.atomicRows);
      }
      if (skip && pending.length >= IMPORT_CHUNK) await launch();
      else if (summary.rows % IMPORT_CHUNK === 0) progress();
    }
    const next = await iterator.next();
    if (next.done) break;
    batch = next.value;
  }
  if (writing) await writing;
  await flush();
  if (!skip && errorsTotal > 0) throw new ImportRowsError(summary.errors, errorsTotal);
  summary.skipped = errorsTotal;
  progress();
  return summary;
}

/** After the lookups: an owner a relation column (`user.email`) named that is not the caller, for a caller who may write only their own, is a row error. */
function checkOwners(rows: BuiltRow[], target: ImportTarget): void {
  const field = target.service.entry.info.owner;
  if (!field || target.owner === null || target.owner === undefined) return;
  for (const r of rows) {
    const value = r.record[field];
    if (r.error || value === null || value === undefined || String(value) === String(target.owner)) continue;
    r.error = { row: r.row, column: field, field, code: 'owner', message: `The ${field} of row ${r.row} is not yours.` };
  }
}
