import { ApiError } from '../errors';
import type { RowError } from './sheet-row';

/** Most row errors an answer lists (all are counted). */
export const LISTED_ERRORS = 1000;

/** Decision 82: an `on_error=abort` import with row errors: a 422 listing them, nothing written. */
export class ImportRowsError extends ApiError {
  constructor(readonly rows: RowError[], readonly total: number) {
    super('validation_error', `${total} row${total === 1 ? '' : 's'} of the file ${total === 1 ? 'has' : 'have'} errors; nothing was written. First: row ${rows[0]?.row}: ${rows[0]?.message}`);
  }

  override body(): Record<string, unknown> {
    return { rows: this.rows, errors_total: this.total };
  }
}

/** Decision 82: more rows than `REST_IMPORT_ATOMIC_ROWS` with `on_error=abort` (nothing written). */
export class ImportTooLargeError extends ApiError {
  constructor(readonly limit: number) {
    super('payload_too_large', `An import with on_error=abort writes at most ${limit} rows all or nothing (REST_IMPORT_ATOMIC_ROWS); send a larger file with on_error=skip.`);
  }

  override body(): Record<string, unknown> {
    return { limit: this.limit, on_error: 'skip' };
  }
}
