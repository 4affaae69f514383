/** One row of an import file: its number in the sheet (the header is row 1) and its cells. */
export interface SheetRow {
  row: number;
  cells: unknown[];
}

/** One row error of an import (decision 82). */
export interface RowError {
  row: number;
  column: string | null;
  field: string | null;
  code: string;
  message: string;
}
