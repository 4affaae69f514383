import { BadRequestError } from '../errors';
import type { RestConfig } from '../config';
import type { ModelInfo } from '../resource/model-info';
import { columnField } from './check-field';
import { decodeParam, isAbsent } from './json-param';

/** A list of names: an array of strings, a JSON array, or a comma-separated string. */
export function readNameList(name: string, raw: unknown): string[] | null {
  const value = decodeParam(name, raw);
  if (isAbsent(value)) return null;
  const items = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(items) || items.some((i) => typeof i !== 'string')) {
    throw new BadRequestError(`Parameter "${name}" must be an array of strings or a comma-separated string.`, name);
  }
  return (items as string[]).map((i) => i.trim()).filter((i) => i !== '');
}

/** Checks and de-duplicates a column list of `model` (decision 10); unknown ones dropped when not strict. */
export function checkColumns(model: ModelInfo, columns: string[], where: string, parameter: string, config: RestConfig): string[] {
  const out: string[] = [];
  for (const column of columns) {
    const field = columnField(model, column, where, parameter, config);
    if (field && !out.includes(field.name)) out.push(field.name);
  }
  return out;
}

/** `select` -> root columns (before key columns are added); null = all readable fields. */
export function parseSelect(raw: unknown, model: ModelInfo, config: RestConfig): string[] | null {
  const names = readNameList('select', raw);
  if (names === null || names.length === 0) return null;
  // `*` means every readable field, but the names beside it are still checked (`*,api_token` is a 400)
  const columns = checkColumns(model, names.filter((n) => n !== '*'), 'select', 'select', config);
  return names.includes('*') ? null : columns;
}
