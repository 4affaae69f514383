import type { Readable } from 'node:stream';
import { BadRequestError } from '../errors';
import { requirePackage } from './optional-packages';
import type { SheetRow } from './sheet-row';

/**
 * The records of an RFC 4180 CSV (UTF-8, a BOM dropped), one array of cells each, parsed as the
 * bytes come (csv-parse, the csv project's streaming parser): pulled one by one, so a slow
 * database holds the upload back instead of buffering it. A row with another number of cells is
 * left to the caller (a row error); bad quoting is a 400 naming the line.
 */
export async function* readCsv(stream: Readable): AsyncGenerator<SheetRow> {
  const { parse } = requirePackage<typeof import('csv-parse')>('csv-parse', 'CSV imports');
  const parser = stream.pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true }));
  stream.on('error', (error) => parser.destroy(error));
  try {
    let row = 0;
    for await (const cells of parser as AsyncIterable<string[]>) yield { row: (row += 1), cells };
  } catch (error) {
    const e = error as Error & { code?: string; lines?: number };
    if (e.code?.startsWith('CSV_')) throw new BadRequestError(`The CSV file is malformed${e.lines ? ` at line ${e.lines}` : ''}: ${e.message}`, 'file');
    throw error;
  }
}
