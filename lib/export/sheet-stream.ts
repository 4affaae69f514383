import { DATE_FORMAT } from './sheet-xml';

/** A worksheet of exceljs's streaming writer opened for row XML written directly. */
export interface SheetStream {
  /** Appends XML inside `<sheetData>` (the rows); a Buffer is copied before write returns, so it may be reused. */
  write(xml: string | Buffer): void;
  /** The cell style index (xf) of the date format. */
  dateStyle: number;
}

interface SheetInternals {
  startedData?: unknown;
  stream?: { write?: unknown; batch?: unknown; pipes?: unknown };
  _rows?: unknown;
}

interface StylesInternals {
  addStyleModel?: (model: object, cellType?: number) => number;
}

/**
 * The sheet's own XML stream, once its header row is committed (so `<sheetData>` is open and no
 * row is pending), and the date style's index from the workbook's styles; null when exceljs is not
 * shaped as exceljs 4 is (the caller then adds rows through exceljs). exceljs still writes the
 * package, the columns, the header and the end of the sheet.
 */
export function sheetStream(workbook: unknown, sheet: unknown): SheetStream | null {
  const s = sheet as SheetInternals;
  const styles = (workbook as { styles?: StylesInternals }).styles;
  const stream = s.stream;
  if (s.startedData !== true || !Array.isArray(s._rows) || s._rows.length !== 0) return null;
  // batch mode: a write copies its bytes into the stream's own 64 KB blocks at once
  if (!stream || typeof stream.write !== 'function' || stream.batch !== true || typeof styles?.addStyleModel !== 'function') return null;
  const dateStyle = styles.addStyleModel({ numFmt: DATE_FORMAT });
  if (!Number.isInteger(dateStyle)) return null;
  const write = stream.write as (xml: string | Buffer) => unknown;
  return { write: (xml) => void write.call(stream, xml), dateStyle };
}
