import { BadRequestError } from '../errors';
import type { ListQuery } from './ast';
import { decodeParam, isAbsent } from './json-param';
import type { RequestParams } from './merge-params';

/**
 * `soft_delete` (decision 36): absent or false excludes trashed records; true or `with` includes
 * them; `only` returns only them. Anything else is a 400 naming the parameter.
 */
export function parseSoftDelete(params: RequestParams): ListQuery['trashed'] {
  const raw = Object.prototype.hasOwnProperty.call(params, 'soft_delete') ? params.soft_delete : undefined;
  const value = typeof raw === 'string' ? raw.trim().toLowerCase() : decodeParam('soft_delete', raw);
  if (isAbsent(value) || value === false || value === 'false' || value === '0' || value === 0) return undefined;
  if (value === true || value === 'true' || value === '1' || value === 1 || value === 'with') return 'with';
  if (value === 'only') return 'only';
  throw new BadRequestError('Parameter "soft_delete" must be false, true, "with" or "only".', 'soft_delete');
}
