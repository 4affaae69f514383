import { BadRequestError } from '../errors';
import type { RestConfig } from '../config';
import type { Page, Scalar } from './ast';
import { decodeParam, isAbsent } from './json-param';
import { toBoolean } from './read-boolean';
import { isPlainObject, own } from './safe-keys';

const PARAM = 'pagination';

function positiveInteger(name: string, raw: unknown): number {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*[+-]?\d+\s*$/.test(raw) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(n)) {
    const shown = typeof raw === 'string' ? raw : JSON.stringify(raw);
    throw new BadRequestError(`Invalid ${name} "${shown}" in pagination; use a positive integer.`, PARAM);
  }
  if (n < 1) throw new BadRequestError(`The ${name} in pagination must be at least 1.`, PARAM);
  return n;
}

/**
 * `pagination` {page, pageSize|pagesize, infinity, cursor} (decisions 15-16). `decode` turns a
 * cursor into order-key values; it is given by the caller, which knows the filter and order.
 * Absent -> null (every matching record).
 */
export function parsePagination(raw: unknown, config: RestConfig, decode: (cursor: string) => Scalar[]): Page | null {
  const value = decodeParam(PARAM, raw);
  if (isAbsent(value)) return null;
  if (!isPlainObject(value)) throw new BadRequestError('Parameter "pagination" must be an object {page, pageSize, infinity, cursor}.', PARAM);
  const sizeRaw = own(value, 'pageSize') ?? own(value, 'pagesize') ?? own(value, 'page_size');
  const size = isAbsent(sizeRaw) ? config.defaultPageSize : Math.min(positiveInteger('pageSize', sizeRaw), config.maxPageSize);

  const infinityRaw = own(value, 'infinity');
  const infinity = isAbsent(infinityRaw) ? undefined : toBoolean(infinityRaw);
  if (!isAbsent(infinityRaw) && infinity === undefined) {
    throw new BadRequestError('Invalid infinity in pagination; use true, false, 1 or 0.', PARAM);
  }
  const cursorRaw = own(value, 'cursor');
  const hasCursor = !isAbsent(cursorRaw);
  if (hasCursor && typeof cursorRaw !== 'string') throw new BadRequestError('Invalid cursor.', 'cursor');
  if (hasCursor && infinity === false) throw new BadRequestError('A cursor needs infinity: true in pagination.', 'cursor');

  if (infinity === true || hasCursor) {
    return { kind: 'cursor', size, after: hasCursor ? decode(cursorRaw as string) : null };
  }
  const pageRaw = own(value, 'page');
  const page = isAbsent(pageRaw) ? 1 : positiveInteger('page', pageRaw);
  return { kind: 'offset', page, size };
}
