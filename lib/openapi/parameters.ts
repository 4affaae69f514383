import type { JsonSchema } from './json-schema';

/**
 * The query parameters of the generated routes. Structured ones (filters, lists, order, pages)
 * travel JSON-encoded and are described as `content: {application/json: {schema}}`; the server
 * decodes any value that is JSON, so `select=["name","price"]` and `select=name,price` both work.
 *
 * Examples never narrow an answer (a docs page pre-fills them and "Try it out" must show every
 * record): filters carry the empty filter `{}`, the order the newest first, the page the first
 * page of the server's default size; the syntax of each is in its description. A structured
 * parameter without an example would be pre-filled by Swagger UI with a sample of its schema
 * (`{"additionalProp1": ...}`), which the server refuses, so each object-valued one has one.
 */
export interface ParameterSpec {
  name: string;
  description: string;
  schema: JsonSchema;
  /** JSON-encoded in the query string: described as JSON content. */
  json?: boolean;
  example?: unknown;
}

const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** The component schemas the structured parameters refer to. */
export const QUERY_SCHEMAS: Record<string, JsonSchema> = {
  QueryCondition: {
    type: 'string',
    description: 'One condition `field|operator|value` (`price|>=|10`, `status|in|[active,draft]`, `price|between|[10,20]`, `deleted_at|null`).',
  },
  QueryFilterGroup: {
    type: 'object',
    description: 'Keys `and` / `or` (lists of conditions and nested groups) and relation names (the conditions a related record must meet; `null` or `[]` for mere existence). Siblings are joined with AND.',
    additionalProperties: {
      anyOf: [schemaRef('QueryCondition'), schemaRef('QueryFilterGroup'), { type: 'array', items: { anyOf: [schemaRef('QueryCondition'), schemaRef('QueryFilterGroup')] } }, { type: 'null' }],
    },
  },
  QueryFilter: {
    description: 'A filter tree (`{"and": ["price|>=|400", {"or": ["status|=|active", "name|ilike|%budget%"]}], "category": {"and": ["name|like|Lap%"]}}`), a list read as `and`, or one condition.',
    anyOf: [schemaRef('QueryFilterGroup'), { type: 'array', items: { anyOf: [schemaRef('QueryCondition'), schemaRef('QueryFilterGroup')] } }, schemaRef('QueryCondition')],
  },
  QueryEquality: {
    type: 'object',
    description: 'Equality filters `{"field": value}`: a scalar is `=`, an array `in`, null `is null`.',
    additionalProperties: {
      anyOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'array', items: { type: ['string', 'number', 'boolean', 'null'] }, minItems: 1 }],
    },
  },
  QueryNames: {
    description: 'Names as an array (`["name", "price"]`) or one comma-separated string (`"name,price"`).',
    anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }],
  },
  QueryOrder: {
    description: 'Sort keys in order of priority (`[{"price": "desc"}, {"name": "asc"}]`); to-one relation fields as `relation.field`.',
    anyOf: [
      { type: 'array', items: { type: 'object', additionalProperties: { type: 'string', enum: ['asc', 'desc'] } } },
      { type: 'object', additionalProperties: { type: 'string', enum: ['asc', 'desc'] } },
    ],
  },
  QueryPagination: {
    description: 'Offset pages `{"page": 2, "pageSize": 20}` (answer with total and last_page) or a cursor `{"infinity": true, "pageSize": 20, "cursor": "<next_cursor>"}`. Without it, every matching record.',
    anyOf: [
      { type: 'object', properties: { page: { type: 'integer', minimum: 1 }, pageSize: { type: 'integer', minimum: 1 } }, additionalProperties: false },
      { type: 'object', properties: { infinity: { type: 'boolean' }, pageSize: { type: 'integer', minimum: 1 }, cursor: { type: 'string' } }, required: ['infinity'], additionalProperties: false },
    ],
  },
  QueryGroupBy: {
    description:
      'Group fields (at most 5): fields of the resource or to-one relation paths, as an array (`["status", "category.name"]`) or one comma-separated string, and date buckets (`{"field": "created_at", "bucket": "month", "tz": "Europe/Berlin"}`: the group value, under the field\'s name, is the instant the local bucket starts). Absent: one group of every matching record.',
    anyOf: [{ type: 'array', items: { anyOf: [{ type: 'string' }, schemaRef('QueryBucket')] }, maxItems: 5 }, { type: 'string' }],
  },
  QueryBucket: {
    type: 'object',
    description:
      'A date field bucketed in a time zone: `tz` an IANA zone as the tz database spells it, or UTC (default); `week_start` (monday by default) only with `week`. Units of an hour or less follow elapsed time (a repeated autumn hour is two buckets), a day and longer the local calendar.',
    properties: {
      field: { type: 'string' },
      bucket: { type: 'string', enum: ['minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] },
      tz: { type: 'string', default: 'UTC', example: 'Europe/Berlin' },
      week_start: { type: 'string', enum: ['monday', 'sunday'], default: 'monday' },
    },
    required: ['field', 'bucket'],
    additionalProperties: false,
  },
  QueryAggregate: {
    type: 'object',
    description: 'Functions and their fields (at most 20 pairs): `{"count": "*", "sum": ["price"], "avg": ["price"], "min": ["created_at"], "max": ["price"], "count_distinct": ["category_id"]}`. `count` takes `"*"` (every record) or fields (their non-null values); `sum` and `avg` numeric fields; `min` and `max` numeric, date and string fields. Absent: `{"count": "*"}`.',
    properties: Object.fromEntries(['count', 'count_distinct', 'sum', 'avg', 'min', 'max'].map((fn) => [fn, { anyOf: [{ type: 'array', items: { type: 'string' }, minItems: 1 }, { type: 'string' }] }])),
    additionalProperties: false,
  },
  QueryAggregateOrder: {
    description: 'Orders the groups (`[{"sum.price": "desc"}, {"status": "asc"}]`): by a group field, by `count`, or by `<function>.<field>` of the request. The group fields ascending follow.',
    anyOf: [
      { type: 'array', items: { type: 'object', additionalProperties: { type: 'string', enum: ['asc', 'desc'] } } },
      { type: 'object', additionalProperties: { type: 'string', enum: ['asc', 'desc'] } },
    ],
  },
  QueryHierarchy: {
    description: 'Self-referencing resources: `true`, or options `{"filter_mode": ..., "children_key": ..., "max_depth": n, "include_empty_children": bool}` (show: `{"mode": ...}`).',
    anyOf: [
      { type: 'boolean' },
      { type: 'object', properties: { filter_mode: { type: 'string' }, children_key: { type: 'string' }, max_depth: { type: 'integer', minimum: 0 }, include_empty_children: { type: 'boolean' }, mode: { type: 'string' } } },
    ],
  },
};

export const PARAMETERS: Record<string, ParameterSpec> = {
  oper: { name: 'oper', json: true, description: 'Filter tree. Operators: = != > >= < <= like "not like" ilike "not ilike" in "not in" between "not between" null "not null". Example: `{"and": ["price|>=|10"]}`.', schema: schemaRef('QueryFilter'), example: {} },
  attr: { name: 'attr', json: true, description: 'Equality filters, e.g. `{"status": "active"}`.', schema: schemaRef('QueryEquality'), example: {} },
  eq: { name: 'eq', json: true, description: 'Legacy alias of attr (attr wins on the same key).', schema: schemaRef('QueryEquality'), example: {} },
  select: { name: 'select', json: true, description: 'Columns to return (the key is always included), e.g. `["name", "price"]` or `"name,price"`.', schema: schemaRef('QueryNames') },
  relations: { name: 'relations', json: true, description: 'Relations to load, e.g. `["category:name", "reviews"]` or `"category,reviews"`: `name`, `name:col1,col2`, `a.b`, `all`.', schema: schemaRef('QueryNames') },
  orderby: { name: 'orderby', json: true, description: 'Sort keys, e.g. `[{"price": "desc"}]`.', schema: schemaRef('QueryOrder'), example: [{ id: 'desc' }] },
  pagination: { name: 'pagination', json: true, description: 'Offset `{"page": n, "pageSize": n}` or cursor `{"infinity": true, "pageSize": n, "cursor": "..."}`; absent: every record.', schema: schemaRef('QueryPagination'), example: { page: 1, pageSize: 15 } },
  _nested: { name: '_nested', description: 'When true, relation filters in `oper` also filter the loaded relation data.', schema: { type: 'boolean' } },
  soft_delete: { name: 'soft_delete', description: 'Soft-deletable resources: `with` (or true) includes trashed records, `only` returns only them.', schema: { type: 'string', enum: ['true', 'false', 'with', 'only'] } },
  hierarchy: { name: 'hierarchy', json: true, description: 'Self-referencing resources: the records as a tree.', schema: schemaRef('QueryHierarchy') },
  cache: { name: 'cache', description: '`false` bypasses the read cache (neither read nor written).', schema: { type: 'boolean' } },
  cache_ttl: { name: 'cache_ttl', description: "Lifetime in seconds of this read's cache entry.", schema: { type: 'integer', minimum: 1 } },
  columns: { name: 'columns', json: true, description: 'Exported columns (to-one relation fields as `relation.field`), e.g. `["name", "category.name"]`.', schema: schemaRef('QueryNames') },
  filename: { name: 'filename', description: 'Download name (sanitized).', schema: { type: 'string' } },
  template: { name: 'template', description: 'PDF template name (default `pdf`).', schema: { type: 'string' } },
  group_by: { name: 'group_by', json: true, description: 'Aggregates: the group fields, e.g. `["status", "category.name"]`.', schema: schemaRef('QueryGroupBy'), example: [] },
  aggregate: { name: 'aggregate', json: true, description: 'Aggregates: the functions per group, e.g. `{"count": "*", "sum": ["price"]}`.', schema: schemaRef('QueryAggregate'), example: { count: '*' } },
  having: {
    name: 'having',
    json: true,
    description: 'Aggregates: keeps the groups matching, in the `oper` grammar over the answer\'s names (`count`, `sum.price`, a group field), e.g. `{"and": ["count|>|10", "sum.price|>=|100"]}`; `total` counts the groups left.',
    schema: schemaRef('QueryFilter'),
    example: {},
  },
  // the same query names as on lists, with what they mean for groups (component keys differ from the names)
  aggregate_orderby: { name: 'orderby', json: true, description: 'Aggregates: the order of the groups, e.g. `{"count": "desc"}` or `{"sum.price": "desc"}`; default the group fields ascending.', schema: schemaRef('QueryAggregateOrder'), example: { count: 'desc' } },
  aggregate_pagination: {
    name: 'pagination',
    json: true,
    description: 'Aggregates: a page of groups `{"page": n, "pageSize": n}` (total is the number of groups); absent: every group up to REST_MAX_UNPAGINATED.',
    schema: { type: 'object', properties: { page: { type: 'integer', minimum: 1 }, pageSize: { type: 'integer', minimum: 1 } }, additionalProperties: false },
    example: { page: 1, pageSize: 15 },
  },
  mode: { name: 'mode', description: 'Imports: `insert` (default) or `upsert` by `match` (decision 79).', schema: { type: 'string', enum: ['insert', 'upsert'] } },
  match: { name: 'match', description: 'Imports with mode=upsert: the match keys, comma-separated (optional when the resource declares one set).', schema: { type: 'string' } },
  on_error: { name: 'on_error', description: 'Imports: `abort` (default; all or nothing up to REST_IMPORT_ATOMIC_ROWS rows, a 422 listing the row errors) or `skip` (committed chunks, bad rows listed).', schema: { type: 'string', enum: ['abort', 'skip'] } },
  _scenario: { name: '_scenario', description: 'Relation routes: the scenario (attach, bulk_attach, sync, toggle, bulk_create, bulk_update, bulk_delete, bulk_detach, bulk_update_pivot).', schema: { type: 'string' } },
};

export const LIST = ['oper', 'attr', 'eq', 'select', 'relations', 'orderby', 'pagination', '_nested', 'soft_delete', 'cache', 'cache_ttl'];
export const SHOW = ['select', 'relations', 'soft_delete', 'cache', 'cache_ttl'];
/** Component keys of the aggregate route's parameters (decision 55). */
export const AGGREGATE = ['oper', 'attr', 'eq', 'soft_delete', 'group_by', 'aggregate', 'having', 'aggregate_orderby', 'aggregate_pagination', 'cache', 'cache_ttl'];
export const EXPORT = ['oper', 'attr', 'eq', 'select', 'orderby', 'soft_delete', 'columns', 'filename'];

/** The parameters that narrow which records a read returns: they never carry a narrowing example. */
export const FILTER_PARAMETERS = ['oper', 'attr', 'eq'];

/** The OpenAPI parameter object of a query parameter (`components.parameters`). */
export function queryParameter(spec: ParameterSpec): JsonSchema {
  const base: JsonSchema = { name: spec.name, in: 'query', required: false, description: spec.description };
  const example = spec.example !== undefined ? { example: spec.example } : {};
  if (spec.json) return { ...base, content: { 'application/json': { schema: spec.schema, ...example } } };
  return { ...base, schema: spec.schema, ...example };
}

/** Every query parameter as a component, referred to by the operations. */
export function parameterComponents(): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(PARAMETERS).map(([key, spec]) => [key, queryParameter(spec)]));
}

export const parameterRef = (name: string): JsonSchema => ({ $ref: `#/components/parameters/${name}` });
