import { BadRequestError } from '../errors';
import type { RequestParams } from '../query';
import type { ResourceService } from '../service/resource-service';
import type { ImportOptions } from './run-import';

const text = (params: RequestParams, name: string): string | undefined => {
  const value = params[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new BadRequestError(`Parameter "${name}" must be a string.`, name);
  return value;
};

/** `mode`, `match` and `on_error` of an import (decision 82), each a 400 when it is not one the route takes. */
export function readImportOptions(params: RequestParams, service: ResourceService, atomicRows: number): ImportOptions {
  const mode = text(params, 'mode') ?? 'insert';
  if (mode !== 'insert' && mode !== 'upsert') throw new BadRequestError('Parameter "mode" must be insert or upsert.', 'mode');
  const onError = text(params, 'on_error') ?? 'abort';
  if (onError !== 'abort' && onError !== 'skip') throw new BadRequestError('Parameter "on_error" must be abort or skip.', 'on_error');
  const declared = service.entry.declaration.upsertKeys ?? [];
  const rawMatch = text(params, 'match');
  let keys: string[] = [];
  if (mode === 'upsert') {
    if (declared.length === 0) throw new BadRequestError(`${service.entry.declaration.name} declares no upsert keys: mode=upsert is not available.`, 'mode');
    if (rawMatch === undefined) {
      if (declared.length > 1) throw new BadRequestError(`Parameter "match" is required: one of ${declared.map((k) => k.join(',')).join(' or ')}.`, 'match');
      keys = declared[0];
    } else {
      const named = rawMatch.split(',').map((k) => k.trim()).filter((k) => k !== '');
      const found = declared.find((set) => set.length === named.length && set.every((k) => named.includes(k)));
      if (!found) throw new BadRequestError(`Parameter "match" must name one declared set of match keys: ${declared.map((k) => k.join(',')).join(' or ')}.`, 'match');
      keys = found;
    }
  } else if (rawMatch !== undefined) throw new BadRequestError('Parameter "match" is only taken with mode=upsert.', 'match');
  return { mode, keys, onError, atomicRows };
}
