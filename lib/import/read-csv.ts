import type { Readable } from 'node:stream';
import { BadRequestError } from '../errors';
import { requirePackage } from './optional-packages';
import type { SheetRow } from './sheet-row';

/** Most records handed on at once (what the parser has ready, up to this). */
const BATCH = 1000;

/**
 * The records of an RFC 4180 CSV (UTF-8, a BOM dropped), one array of cells each, parsed as the
 * bytes come (csv-parse, the csv project's streaming parser) and pulled in batches of what the
 * parser holds ready: one await per batch, not per record (per-record promises were a third of an
 * import's garbage), and a slow database still holds the upload back instead of buffering it. A
 * row with another number of cells is left to the caller (a row error); bad quoting is a 400
 * naming the line.
 */
export async function* readCsv(stream: Readable): AsyncGenerator<SheetRow[]> {
  const { parse } = requirePackage<typeof import('csv-parse')>('csv-parse', 'CSV imports');
  const parser = stream.pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true }));
  stream.on('error', (error) => parser.destroy(error));
  try {
    let row = 0;
    for await (const cells of parser as AsyncIterable<string[]>) {
      const batch: SheetRow[] = [{ row: (row += 1), cells }];
      // the records already parsed, taken synchronously (the iterator reads the same way)
      for (let more: string[] | null; batch.length < BATCH && (more = parser.read() as string[] | null) !== null; ) batch.push({ row: (row += 1), cells: more });
      yield batch;
    }
  } catch (error) {
    const e = error as Error & { code?: string; lines?: number };
    if (e.code?.startsWith('CSV_')) throw new BadRequestError(`The CSV file is malformed${e.lines ? ` at line ${e.lines}` : ''}: ${e.message}`, 'file');
    throw error;
  }
}
