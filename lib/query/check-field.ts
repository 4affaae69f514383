import { BadRequestError } from '../errors';
import type { FieldInfo, ModelInfo } from '../resource/model-info';
import { own } from './safe-keys';

/** Readable fields of a model, for error messages (write-only fields are never listed). */
export function readableFields(model: ModelInfo): string[] {
  return Object.keys(model.fields).filter((name) => !model.fields[name].writeOnly);
}

/**
 * `where` names the parameter (and relation) in messages: `oper`, `select`, `relations (category)`.
 * A write-only field gets the same answer as an unknown one, so it cannot be probed (decision 14).
 */
export function unknownFieldError(model: ModelInfo, name: string, where: string, parameter: string): BadRequestError {
  const allowed = readableFields(model).join(', ');
  return new BadRequestError(`Unknown field "${name}" in ${where}. Allowed fields: ${allowed}.`, parameter);
}

/** A field usable in a filter: unknown or write-only is always a 400 (decision 10). */
export function filterField(model: ModelInfo, name: string, where: string, parameter: string): FieldInfo {
  const field = own(model.fields, name);
  if (!field || field.writeOnly) throw unknownFieldError(model, name, where, parameter);
  return field;
}

export interface ColumnOptions {
  validateColumns: boolean;
  strictColumns: boolean;
}

/**
 * A field in a column list (select, relation columns, orderby): write-only is always a 400;
 * unknown is a 400 under strict validation, otherwise dropped (returns undefined).
 */
export function columnField(model: ModelInfo, name: string, where: string, parameter: string, options: ColumnOptions): FieldInfo | undefined {
  const field = own(model.fields, name);
  if (field && !field.writeOnly) return field;
  if (field?.writeOnly || (options.validateColumns && options.strictColumns)) throw unknownFieldError(model, name, where, parameter);
  return undefined;
}
