import type { AnyObject, ObjectSchema, ValidationError as YupValidationError } from 'yup';
import { quickCheck } from './yup-quick-check';
import type { YupLikeSchema } from '../../resource/yup-like';

/** yup's ValidationError from any copy of yup (a linked install may hold two): no instanceof. */
function isYupError(error: unknown): error is YupValidationError {
  return error instanceof Error && error.name === 'ValidationError' && Array.isArray((error as { inner?: unknown }).inner);
}

export type FieldErrors = Record<string, string[]>;

/** Adds `message` under `path`, once: two checks that say the same thing (the type check and a schema) say it once. */
export function addError(errors: FieldErrors, path: string, message: string): void {
  const messages = (errors[path] ??= []);
  if (!messages.includes(message)) messages.push(message);
}

/** Keeps the attributes a client may write: fillable only, never the key or timestamps. */
export function pickFillable(item: Record<string, unknown>, fillable: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fillable) {
    if (Object.prototype.hasOwnProperty.call(item, field) && item[field] !== undefined) out[field] = item[field];
  }
  return out;
}

/** True when a schema's output holds fillable values only (usual: its input did), so needs no copy. */
function onlyFillable(record: Record<string, unknown>, fillable: readonly string[]): boolean {
  for (const key in record) if (record[key] === undefined || !Object.prototype.hasOwnProperty.call(record, key) || !fillable.includes(key)) return false;
  return true;
}

/**
 * Validates (and casts) one item with the resource's yup schema. Errors are keyed by
 * `prefix + path` (e.g. `product.1.sku`), every failing rule reported. A record the schema's
 * quick check proves valid and unchanged skips yup (yup-quick-check.ts): yup would return it as
 * is, and the answer is then synchronous (no promise per record of a bulk write or an import).
 */
export function validateItem(
  published: YupLikeSchema | undefined,
  attributes: Record<string, unknown>,
  fillable: readonly string[],
  prefix: string,
  errors: FieldErrors,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  // the published structural type is yup's own object schema at run time
  const schema = published as ObjectSchema<AnyObject> | undefined;
  if (!schema) return attributes;
  if (quickCheck(schema)?.(attributes)) return onlyFillable(attributes, fillable) ? attributes : pickFillable(attributes, fillable);
  return validateWithYup(schema, attributes, fillable, prefix, errors);
}

async function validateWithYup(schema: ObjectSchema<AnyObject>, attributes: Record<string, unknown>, fillable: readonly string[], prefix: string, errors: FieldErrors): Promise<Record<string, unknown>> {
  try {
    const cast = (await schema.validate(attributes, { abortEarly: false })) as Record<string, unknown>;
    return onlyFillable(cast, fillable) ? cast : pickFillable(cast, fillable);
  } catch (err) {
    if (!isYupError(err)) throw err;
    const failures = err.inner.length > 0 ? err.inner : [err];
    for (const failure of failures) addError(errors, `${prefix}${failure.path ?? 'value'}`, failure.message);
    return attributes;
  }
}
