import { BadRequestError } from '../errors';
import type { ModelInfo } from '../resource/model-info';
import type { Condition, Filter, Scalar } from './ast';
import { castValue } from './cast-value';
import { filterField } from './check-field';
import { decodeParam, isAbsent } from './json-param';
import { clientEntries, isPlainObject } from './safe-keys';

function decodeObject(name: string, raw: unknown): Record<string, unknown> | null {
  const value = decodeParam(name, raw);
  if (isAbsent(value)) return null;
  if (!isPlainObject(value)) throw new BadRequestError(`Parameter "${name}" must be an object of {field: value}.`, name);
  return value;
}

function toCondition(name: string, key: string, value: unknown, model: ModelInfo): Condition {
  if (key.includes('.')) throw new BadRequestError(`Dot paths are not supported in ${name}: "${key}"; use oper with a relation key.`, name);
  const field = filterField(model, key, name, name);
  const ctx = { parameter: name, idType: model.idType };
  if (value === null) return { kind: 'condition', field: key, operator: 'null' };
  if (Array.isArray(value)) {
    if (value.length === 0) throw new BadRequestError(`Empty list for field "${key}" in ${name}.`, name);
    const values: Scalar[] = value.map((v) => castValue(field, v, ctx));
    return { kind: 'condition', field: key, operator: 'in', value: values };
  }
  if (typeof value === 'object') throw new BadRequestError(`Invalid value for field "${key}" in ${name}; use a scalar, an array or null.`, name);
  return { kind: 'condition', field: key, operator: '=', value: castValue(field, value, ctx) };
}

/**
 * `attr` and its legacy alias `eq` (decision 3): merged, attr wins on the same key; a scalar is
 * `=`, an array `in`, null `null`. They do not count against the condition limit.
 */
export function parseAttr(attrRaw: unknown, eqRaw: unknown, model: ModelInfo): Filter[] {
  const eq = decodeObject('eq', eqRaw);
  const attr = decodeObject('attr', attrRaw);
  const merged = new Map<string, { source: string; value: unknown }>();
  if (eq) for (const [key, value] of clientEntries(eq, 'eq')) merged.set(key, { source: 'eq', value });
  if (attr) for (const [key, value] of clientEntries(attr, 'attr')) merged.set(key, { source: 'attr', value });
  return [...merged].map(([key, { source, value }]) => toCondition(source, key, value, model));
}
