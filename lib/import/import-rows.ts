import type { ModelInfo } from '../resource/model-info';
import { castCell } from './cast-cell';
import type { ImportColumn } from './import-columns';
import type { RowError, SheetRow } from './sheet-row';

/** A data row read into a record; lookups wait for the chunk's one query per relation column. */
export interface BuiltRow {
  row: number;
  record: Record<string, unknown>;
  /** Relation column index -> the cell naming the related record. */
  lookups: Map<number, unknown> | null;
  error: RowError | null;
}

/**
 * One row's cells as a record: each writable column cast like a JSON body's value (decision 82),
 * ignored columns dropped, the owner column compared with the caller (`owner`: the value every
 * record is stamped with, null when the caller may write any).
 */
export function buildRow(sheet: SheetRow, columns: ImportColumn[], model: ModelInfo, owner: unknown): BuiltRow {
  const { row, cells } = sheet;
  const record: Record<string, unknown> = {};
  let lookups: Map<number, unknown> | null = null;
  if (cells.length > columns.length && cells.slice(columns.length).some((c) => c !== null && c !== '')) {
    return { row, record, lookups, error: { row, column: null, field: null, code: 'too_many_cells', message: `Row ${row} has ${cells.length} cells for ${columns.length} columns.` } };
  }
  for (const column of columns) {
    const cell = cells[column.index];
    if (column.kind === 'ignored') continue;
    if (column.kind === 'relation') {
      if (cell === null || cell === undefined || cell === '') record[column.foreignKey.name] = null;
      else (lookups ??= new Map()).set(column.index, typeof cell === 'string' ? cell : String(cell instanceof Date ? cell.toISOString() : cell));
      continue;
    }
    const value = castCell(cell, column.field);
    if (column.kind === 'owner') {
      if (value !== null && owner !== null && owner !== undefined && String(value) !== String(owner)) {
        return { row, record, lookups, error: { row, column: column.header, field: column.field.name, code: 'owner', message: `The ${column.header} of row ${row} is not yours.` } };
      }
      continue;
    }
    record[column.field.name] = value;
  }
  if (owner !== null && owner !== undefined && model.owner && record[model.owner] !== undefined && record[model.owner] !== null && String(record[model.owner]) !== String(owner)) {
    return { row, record, lookups, error: { row, column: model.owner, field: model.owner, code: 'owner', message: `The ${model.owner} of row ${row} is not yours.` } };
  }
  return { row, record, lookups, error: null };
}
