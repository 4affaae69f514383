import ExcelJS from 'exceljs';
import type { Writable } from 'node:stream';
import type { FieldType } from '../resource/model-info';
import { capText, xmlSafe } from './cell-text';
import { drained } from './drain';
import { loopYielder } from './yield-loop';
import { sheetStream } from './sheet-stream';
import { DATE_FORMAT, SheetRows } from './sheet-xml';
import { zipInlet } from './zip-inlet';

export interface SheetColumn {
  header: string;
  type: FieldType;
}

const WIDTH: Partial<Record<FieldType, number>> = { date: 22, number: 12, integer: 10, boolean: 8, id: 26 };

/** Excel's limit of characters in one cell: a longer text makes Excel repair (cut) the workbook. */
export const EXCEL_CELL_MAX = 32_767;

/** Text as a cell may hold it: no character XML forbids (one made the whole file unreadable), at most EXCEL_CELL_MAX. */
const sheetText = (text: string): string => capText(xmlSafe(text), EXCEL_CELL_MAX);

/** A cell as the spreadsheet should hold it: numbers, dates and booleans typed, the rest as text. */
function cell(value: unknown): ExcelJS.CellValue {
  if (value === null || value === undefined) return null;
  if (value instanceof Date || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return sheetText(value);
  return sheetText(JSON.stringify(value));
}

/** Bytes of row XML gathered before one write into the sheet's stream (exceljs's own block size). */
const FLUSH_AT = 65_536;

/**
 * How the data rows go in: as XML straight into the sheet's stream when exceljs is shaped as
 * expected (sheet-xml.ts says why), else through exceljs's rows. `flush` hands on what is pending.
 *
 * Each row's XML is encoded at once into one reused buffer, which the sheet's stream copies: no
 * string of many rows is built and then encoded again into a Buffer of its own for each write.
 * (Alone this changed no measured figure; the old-space growth was the number-to-string cache,
 * sheet-xml.ts, and promoted arrays, row-batches.ts.)
 */
function rowWriter(workbook: unknown, sheet: ExcelJS.Worksheet, columns: number): { put(values: unknown[]): void; flush(): void } {
  const direct = sheetStream(workbook, sheet);
  if (!direct) return { put: (values) => sheet.addRow(values.map(cell)).commit(), flush: () => undefined };
  const rows = new SheetRows(columns, 2, direct.dateStyle, sheetText);
  const buffer = Buffer.allocUnsafe(FLUSH_AT);
  let used = 0;
  const flush = (): void => {
    if (used > 0) direct.write(buffer.subarray(0, used));
    used = 0;
  };
  return {
    put(values) {
      const xml = rows.row(values);
      // at most 3 UTF-8 bytes a UTF-16 unit: a row that might not fit goes after what is pending
      if (used + xml.length * 3 > FLUSH_AT) {
        flush();
        if (xml.length * 3 > FLUSH_AT) return direct.write(xml);
      }
      used += buffer.write(xml, used);
    },
    flush,
  };
}

/**
 * Streams rows into an xlsx with exceljs's streaming workbook writer: a header row, typed cells,
 * widths from the column types, rows written out as they come, at the pace deflate and the client
 * take them.
 */
export async function writeExcel(out: Writable, columns: SheetColumn[], batches: AsyncIterable<unknown[][]>, signal: AbortSignal): Promise<number> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet('Export', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = columns.map((c, i) => ({
    key: String(i),
    width: Math.max(WIDTH[c.type] ?? 30, Math.min(40, c.header.length + 2)),
    ...(c.type === 'date' ? { style: { numFmt: DATE_FORMAT } } : {}),
  }));
  const header = sheet.addRow(columns.map((c) => sheetText(c.header)));
  header.font = { bold: true };
  header.commit();
  // the response alone cannot hold the writer back: the zip's inlet would buffer the whole sheet
  const inlet = zipInlet(sheet);
  const writer = rowWriter(workbook, sheet, columns.length);
  let count = 0;
  const loop = loopYielder();
  for await (const batch of batches) {
    if (signal.aborted) break;
    for (const values of batch) {
      writer.put(values);
      count += 1;
      if (inlet?.full()) {
        await drained(inlet.stream, signal, inlet.full);
        if (signal.aborted) break;
      }
      const turn = loop.tick();
      if (turn) {
        // the pending bytes go before the wait, so a slow client does not hold them
        writer.flush();
        await turn;
        if (signal.aborted) break;
      }
    }
    writer.flush();
    await drained(out, signal);
  }
  if (signal.aborted) throw new Error('The client went away during the export.');
  writer.flush();
  sheet.commit();
  await workbook.commit();
  return count;
}
