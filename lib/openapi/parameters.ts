import type { ModelInfo } from '../resource/model-info';
import type { JsonSchema } from './json-schema';

/** A query parameter of the generated routes; structured ones travel JSON-encoded (or in a GET body). */
export interface ParameterSpec {
  name: string;
  description: string;
  schema: JsonSchema;
  /** JSON-encoded in the query string. */
  json?: boolean;
  example?: unknown;
}

const nameList: JsonSchema = { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }] };

export const PARAMETERS: Record<string, ParameterSpec> = {
  oper: {
    name: 'oper',
    json: true,
    description: 'Filter tree: `{"and": ["field|operator|value", {"or": [...]}], "<relation>": [...]}`; operators = != > >= < <= like "not like" ilike "not ilike" in "not in" between "not between" null "not null".',
    schema: { oneOf: [{ type: 'object' }, { type: 'array' }, { type: 'string' }] },
  },
  attr: { name: 'attr', json: true, description: 'Equality filters `{"field": value}`.', schema: { type: 'object' } },
  eq: { name: 'eq', json: true, description: 'Legacy alias of attr.', schema: { type: 'object' } },
  select: { name: 'select', description: 'Columns to return: an array or a comma-separated string.', schema: nameList },
  relations: {
    name: 'relations',
    description: 'Relations to load: `name`, `name:col1,col2`, `a.b`, `all`; an array or a comma-separated string.',
    schema: nameList,
  },
  orderby: { name: 'orderby', json: true, description: 'Sort keys: `[{"field": "asc|desc"}]`; to-one relation fields as `relation.field`.', schema: { type: 'array', items: { type: 'object' } } },
  pagination: {
    name: 'pagination',
    json: true,
    description: 'Offset `{"page": n, "pageSize": n}` or cursor `{"infinity": true, "pageSize": n, "cursor": "..."}`.',
    schema: { type: 'object', properties: { page: { type: 'integer' }, pageSize: { type: 'integer' }, infinity: { type: 'boolean' }, cursor: { type: 'string' } } },
    example: { page: 1, pageSize: 10 },
  },
  _nested: { name: '_nested', description: 'When true, relation filters in `oper` also filter the loaded relation data.', schema: { type: 'boolean' } },
  soft_delete: { name: 'soft_delete', description: 'Soft-deletable resources: `with` (or true) includes trashed records, `only` returns only them.', schema: { type: 'string', enum: ['true', 'false', 'with', 'only'] } },
  hierarchy: {
    name: 'hierarchy',
    json: true,
    description: 'Self-referencing resources: true or `{"filter_mode", "children_key", "max_depth", "include_empty_children"}` (show: `mode`).',
    schema: { oneOf: [{ type: 'boolean' }, { type: 'object' }] },
  },
  cache: { name: 'cache', description: '`false` bypasses the read cache (neither read nor written).', schema: { type: 'boolean' } },
  cache_ttl: { name: 'cache_ttl', description: 'Lifetime in seconds of this read\'s cache entry.', schema: { type: 'integer', minimum: 1 } },
  columns: { name: 'columns', description: 'Exported columns (to-one relation fields as `relation.field`).', schema: nameList },
  filename: { name: 'filename', description: 'Download name (sanitized).', schema: { type: 'string' } },
  template: { name: 'template', description: 'PDF template name (default `pdf`).', schema: { type: 'string' } },
  _scenario: { name: '_scenario', description: 'Relation routes: the scenario (attach, bulk_attach, sync, toggle, bulk).', schema: { type: 'string' } },
};

export const LIST = ['oper', 'attr', 'eq', 'select', 'relations', 'orderby', 'pagination', '_nested', 'soft_delete', 'cache', 'cache_ttl'];
export const SHOW = ['select', 'relations', 'soft_delete', 'cache', 'cache_ttl'];
export const EXPORT = ['oper', 'attr', 'eq', 'select', 'orderby', 'soft_delete', 'columns', 'filename'];

/** Examples that a resource really accepts, from its own fields. */
export function examplesFor(model: ModelInfo): Record<string, unknown> {
  const readable = Object.values(model.fields).filter((f) => !f.writeOnly && f.name !== model.key);
  const text = readable.find((f) => f.type === 'string');
  const number = readable.find((f) => f.type === 'number' || f.type === 'integer');
  const examples: Record<string, unknown> = {
    select: [model.key, ...readable.slice(0, 2).map((f) => f.name)].join(','),
    columns: [model.key, ...readable.slice(0, 2).map((f) => f.name)].join(','),
    orderby: [{ [model.key]: 'desc' }],
    pagination: { page: 1, pageSize: 10 },
  };
  if (number) examples.oper = { and: [`${number.name}|>=|0`] };
  else if (text) examples.oper = { and: [`${text.name}|not null`] };
  if (text) examples.attr = { [text.name]: 'example' };
  return examples;
}

/** The OpenAPI parameter object of a query parameter, with an example valid for the resource. */
export function queryParameter(spec: ParameterSpec, examples: Record<string, unknown> = {}): JsonSchema {
  const example = spec.name in examples ? examples[spec.name] : spec.example;
  const base: JsonSchema = { name: spec.name, in: 'query', required: false, description: spec.description };
  if (spec.json) return { ...base, content: { 'application/json': { schema: spec.schema, ...(example !== undefined ? { example } : {}) } } };
  return { ...base, schema: spec.schema, ...(example !== undefined ? { example } : {}) };
}
