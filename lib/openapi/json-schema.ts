import type { SchemaDescription } from 'yup';
import type { FieldInfo, FieldType, ModelInfo } from '../resource/model-info';
import type { YupLikeSchema } from '../resource/yup-like';

export type JsonSchema = Record<string, unknown>;

const TYPES: Record<FieldType, JsonSchema> = {
  string: { type: 'string' },
  number: { type: 'number' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date-time' },
  id: { type: 'string' },
  array: { type: 'array' },
  object: { type: 'object' },
};

/** The JSON Schema of a model field as records carry it (ids: 24-hex strings or integers). */
export function fieldSchema(field: FieldInfo): JsonSchema {
  let schema: JsonSchema = { ...TYPES[field.type] };
  if (field.type === 'id') schema = field.idType === 'integer' ? { type: 'integer' } : { type: 'string', pattern: '^[0-9a-f]{24}$' };
  if (field.type === 'array' && field.itemType) schema.items = { ...TYPES[field.itemType] };
  if (field.nullable && typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  return schema;
}

/** A record as the API answers it: every readable field (write-only ones never appear). */
export function recordSchema(model: ModelInfo, hidden: ReadonlySet<string> = new Set()): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of Object.values(model.fields)) {
    if (!field.writeOnly && !hidden.has(field.name)) properties[field.name] = fieldSchema(field);
  }
  return { type: 'object', properties, required: [model.key] };
}

/** yup's own `describe()` of one field -> JSON Schema (type, enum, bounds, nullability). */
function describedField(description: SchemaDescription, fallback: JsonSchema | undefined): JsonSchema {
  const base: JsonSchema = { ...(fallback ?? {}) };
  if (description.type === 'string' || description.type === 'number' || description.type === 'boolean') base.type = description.type;
  if (description.type === 'date') Object.assign(base, { type: 'string', format: 'date-time' });
  if (description.type === 'array') base.type = 'array';
  const tests = (description as { tests?: Array<{ name?: string; params?: Record<string, unknown> }> }).tests ?? [];
  for (const test of tests) {
    const p = test.params ?? {};
    if (test.name === 'integer') base.type = 'integer';
    if (test.name === 'min') base[base.type === 'string' ? 'minLength' : 'minimum'] = p.min;
    if (test.name === 'max') base[base.type === 'string' ? 'maxLength' : 'maximum'] = p.max;
    if (test.name === 'email') base.format = 'email';
  }
  const oneOf = ((description as { oneOf?: unknown[] }).oneOf ?? []).filter((v) => v !== undefined);
  if (oneOf.length > 0) base.enum = oneOf;
  if ((description as { nullable?: boolean }).nullable && typeof base.type === 'string') base.type = [base.type, 'null'];
  return base;
}

/**
 * A write body: the fillable fields, typed from the model, refined by the resource's yup schema
 * (required fields, bounds, enums) through yup's `describe()`.
 */
export function writeSchema(model: ModelInfo, schema: YupLikeSchema | undefined, hidden: ReadonlySet<string> = new Set()): JsonSchema {
  const described = schema ? (schema.describe() as { fields?: Record<string, SchemaDescription> }) : {};
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const name of model.fillable) {
    if (hidden.has(name)) continue;
    const field = model.fields[name];
    const fromModel = field ? fieldSchema({ ...field, nullable: field.nullable }) : undefined;
    const rule = described.fields?.[name];
    properties[name] = rule ? describedField(rule, fromModel) : (fromModel ?? {});
    if (rule && (rule as { optional?: boolean }).optional === false) required.push(name);
  }
  return required.length > 0 ? { type: 'object', properties, required } : { type: 'object', properties };
}
