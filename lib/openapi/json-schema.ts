import type { SchemaDescription } from 'yup';
import type { FieldInfo, FieldType, IdType, ModelInfo, RelationInfo } from '../resource/model-info';
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

/** An id as records carry it and paths take it: an integer on SQL integer keys, a 24-hex ObjectId string on MongoDB. */
export function idSchema(idType: IdType | undefined): JsonSchema {
  return idType === 'integer' ? { type: 'integer' } : { type: 'string', pattern: '^[0-9a-f]{24}$' };
}

/** The JSON Schema of a model field as records carry it (ids: 24-hex strings or integers). */
export function fieldSchema(field: FieldInfo): JsonSchema {
  let schema: JsonSchema = { ...TYPES[field.type] };
  if (field.type === 'id') schema = idSchema(field.idType);
  // an array always says what it holds (decision 66): the element type when known, else anything
  if (field.type === 'array') schema.items = field.itemType ? field.itemType === 'id' ? idSchema(field.idType) : { ...TYPES[field.itemType] } : {};
  if (field.nullable && typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  return schema;
}

/**
 * An eager-loaded relation as a record carries it (`relations=category,tags`): a to-one relation is
 * the related record or null, a to-many one an array of them; belongsToMany members hold their
 * pivot columns under `pivot`. Marked `x-relation` so generators can leave it optional.
 */
export function relationSchema(relation: RelationInfo, targetRef: JsonSchema): JsonSchema {
  const loaded = { 'x-relation': relation.kind, description: `Loaded with \`relations=${relation.name}\` (${relation.kind}).` };
  if (relation.kind === 'belongsTo' || relation.kind === 'hasOne') return { ...loaded, anyOf: [targetRef, { type: 'null' }] };
  if (relation.kind === 'hasMany') return { ...loaded, type: 'array', items: targetRef };
  const pivot: Record<string, JsonSchema> = {};
  for (const column of relation.pivot?.columns ?? []) pivot[column] = { ...TYPES[relation.pivot?.columnTypes[column] ?? 'string'], ...(relation.pivot?.columnTypes[column] === 'array' ? { items: {} } : {}) };
  const withPivot = { type: 'object', properties: { pivot: { type: 'object', properties: pivot } } };
  return { ...loaded, type: 'array', items: { allOf: [targetRef, withPivot] } };
}

/**
 * A record as the API answers it: every readable field (write-only ones never appear), and the
 * relations a client may load (optional: present only when asked for with `relations`).
 */
export function recordSchema(model: ModelInfo, hidden: ReadonlySet<string> = new Set(), refOf?: (model: string) => JsonSchema | null): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of Object.values(model.fields)) {
    if (!field.writeOnly && !hidden.has(field.name)) properties[field.name] = fieldSchema(field);
  }
  for (const relation of Object.values(model.relations)) {
    const target = refOf?.(relation.target);
    if (!target) continue;
    const loaded = relationSchema(relation, target);
    const key = properties[relation.name];
    // a mongoose ref path named like its relation (`writer`): the id, or the record once loaded;
    // a field that is also a relation (`x-key-relation`, for generators of typed clients)
    if (key) properties[relation.name] = { 'x-key-relation': relation.kind, description: `The id; the related record (or null) when loaded with \`relations=${relation.name}\`.`, anyOf: [key, ...((loaded.anyOf as JsonSchema[] | undefined) ?? [loaded])] };
    else properties[relation.name] = loaded;
  }
  return { type: 'object', properties, required: [model.key] };
}

/** yup's own `describe()` of one field -> JSON Schema (type, enum, bounds, nullability). */
function describedField(description: SchemaDescription, fallback: JsonSchema | undefined): JsonSchema {
  const base: JsonSchema = { ...(fallback ?? {}) };
  if (description.type === 'string' || description.type === 'number' || description.type === 'boolean') base.type = description.type;
  if (description.type === 'date') Object.assign(base, { type: 'string', format: 'date-time' });
  if (description.type === 'array') {
    base.type = 'array';
    const inner = (description as { innerType?: SchemaDescription }).innerType;
    base.items = inner ? describedField(inner, undefined) : (base.items ?? {});
  }
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
