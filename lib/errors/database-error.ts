import { ApiError } from './api-error';

export type DatabaseErrorType =
  | 'unique_violation'
  | 'foreign_key_violation'
  | 'not_null_violation'
  | 'validation_error'
  | 'bad_request'
  | 'connection_error'
  | 'conflict'
  | 'timeout'
  | 'database_error';

/** A database error translated into the API's terms (the original goes to the db-error log). */
export interface DatabaseErrorInfo {
  type: DatabaseErrorType;
  field?: string;
  /** Field -> messages, for validation errors raised by the model layer (mongoose validators). */
  errors?: Record<string, string[]>;
  /** The API's own words for the client when the type's usual message does not say it (never driver text). */
  message?: string;
  /** A delete refused by a restrict rule (decision 78): the relation holding the record, as its model declares it... */
  relation?: string;
  /** ...and how many records hold it, trashed ones included. */
  count?: number;
}

function messageFor(info: DatabaseErrorInfo): string {
  if (info.message) return info.message;
  switch (info.type) {
    case 'unique_violation':
      return `The ${info.field ?? 'value'} has already been taken.`;
    case 'foreign_key_violation':
      if (info.relation !== undefined && info.count !== undefined) {
        const records = info.count === 1 ? 'record' : 'records';
        return `Cannot delete the record: ${info.count} ${records} of its ${info.relation} still reference it (trashed records count too: they hold it until they are deleted for good).`;
      }
      return info.field
        ? `The selected ${info.field} is invalid or the record is referenced by other records.`
        : 'Cannot delete record because it is referenced by other records.';
    case 'not_null_violation':
      return `The ${info.field ?? 'value'} field is required.`;
    case 'validation_error':
      return 'The given data was invalid.';
    case 'bad_request':
      return `Invalid value${info.field ? ` for ${info.field}` : ''}.`;
    case 'connection_error':
      return 'The database is unavailable. Try again later.';
    case 'conflict':
      return 'A concurrent change to the same records won; try again.';
    case 'timeout':
      return 'The database did not answer in time; try again later.';
    default:
      return 'A database error occurred.';
  }
}

/**
 * A database failure in the API's terms. Never carries driver text to the client; the original
 * error travels in `cause` to the database-error log channel.
 */
export class DatabaseError extends ApiError {
  constructor(readonly info: DatabaseErrorInfo, options?: { cause?: unknown; message?: string }) {
    super(info.type, options?.message ?? messageFor(info));
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }

  override body(): Record<string, unknown> {
    const extra: Record<string, unknown> = {};
    if (this.info.field) extra.field = this.info.field;
    if (this.info.errors) extra.errors = this.info.errors;
    if (this.info.relation !== undefined && this.info.count !== undefined) extra.error = { relation: this.info.relation, count: this.info.count };
    return extra;
  }
}
