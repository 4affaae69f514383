import ExcelJS from 'exceljs';
import type { Writable } from 'node:stream';
import type { FieldType } from '../resource/model-info';
import { capText, xmlSafe } from './cell-text';
import { drained } from './drain';
import { loopYielder } from './yield-loop';
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

/**
 * Streams rows into an xlsx with exceljs's streaming workbook writer: a header row, typed cells,
 * widths from the column types, each row committed (written out) as it comes.
 */
export async function writeExcel(out: Writable, columns: SheetColumn[], batches: AsyncIterable<unknown[][]>, signal: AbortSignal): Promise<number> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet('Export', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = columns.map((c, i) => ({
    key: String(i),
    width: Math.max(WIDTH[c.type] ?? 30, Math.min(40, c.header.length + 2)),
    ...(c.type === 'date' ? { style: { numFmt: 'yyyy-mm-dd hh:mm:ss' } } : {}),
  }));
  const header = sheet.addRow(columns.map((c) => sheetText(c.header)));
  header.font = { bold: true };
  header.commit();
  // the response alone cannot hold the writer back: the zip's inlet would buffer the whole sheet
  const inlet = zipInlet(sheet);
  let count = 0;
  const loop = loopYielder();
  for await (const batch of batches) {
    if (signal.aborted) break;
    for (const values of batch) {
      sheet.addRow(values.map(cell)).commit();
      count += 1;
      if (inlet?.full()) {
        await drained(inlet.stream, signal, inlet.full);
        if (signal.aborted) break;
      }
      const turn = loop.tick();
      if (turn) {
        await turn;
        if (signal.aborted) break;
      }
    }
    await drained(out, signal);
  }
  if (signal.aborted) throw new Error('The client went away during the export.');
  sheet.commit();
  await workbook.commit();
  return count;
}
