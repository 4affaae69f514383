import type { Readable } from 'node:stream';
import { BadRequestError } from '../errors';
import { requirePackage } from './optional-packages';
import type { SheetRow } from './sheet-row';

/** A cell as data: a formula's cached result (never evaluated), rich text and hyperlinks as their text. */
export function cellData(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || value instanceof Date) return value;
  const cell = value as { result?: unknown; formula?: string; sharedFormula?: string; richText?: Array<{ text: string }>; text?: unknown; error?: string };
  if ('formula' in cell || 'sharedFormula' in cell) return cellData(cell.result ?? null);
  if (Array.isArray(cell.richText)) return cell.richText.map((r) => r.text).join('');
  if ('text' in cell) return cellData(cell.text);
  if ('error' in cell) return cell.error ?? null;
  return null;
}

/**
 * The rows of the first sheet of an xlsx, one array of cells each (exceljs's streaming reader:
 * the sheet is read as it is inflated, never held whole), each a batch of one (as readCsv's
 * batches). Empty rows are skipped.
 */
export async function* readXlsx(stream: Readable): AsyncGenerator<SheetRow[]> {
  const ExcelJS = requirePackage<typeof import('exceljs')>('exceljs', 'XLSX imports');
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(stream, { worksheets: 'emit', sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'cache', entries: 'emit' });
  try {
    let first = true;
    for await (const sheet of reader as AsyncIterable<AsyncIterable<{ number: number; values: unknown[] }>>) {
      if (!first) {
        // only the first sheet is read; the rest of the file is drained
        for await (const _ of sheet) void _;
        continue;
      }
      first = false;
      for await (const row of sheet) {
        const values = Array.isArray(row.values) ? row.values.slice(1) : [];
        const cells = Array.from(values, (v) => cellData(v));
        // one row a batch: exceljs hands rows on one at a time
        if (cells.some((c) => c !== null && c !== '')) yield [{ row: row.number, cells }];
      }
    }
  } catch (error) {
    if (error instanceof BadRequestError) throw error;
    const message = (error as Error).message ?? String(error);
    if (/zip|signature|end of central|invalid|corrupt/i.test(message)) throw new BadRequestError(`The XLSX file cannot be read: ${message}`, 'file');
    throw error;
  }
}
