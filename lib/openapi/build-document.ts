import { ERROR_STATUS } from '../errors/catalogue';
import type { RouteDefinition, RouteTable } from '../http/routes';
import type { Registry } from '../resource/registry';
import { recordSchema, writeSchema, type JsonSchema } from './json-schema';
import { EXPORT, LIST, PARAMETERS, SHOW, examplesFor, queryParameter } from './parameters';

export interface OpenApiOptions {
  title?: string;
  version?: string;
  /** Where the API router is mounted (`/api/v1`): the document's server URL. */
  serverUrl?: string;
  /** Fields hidden from record and body schemas per MODEL (a role's read policy). */
  hiddenFields?: (model: string) => ReadonlySet<string>;
  /** Security schemes and the requirement applied to every operation (from the authentication setup). */
  security?: { schemes: Record<string, JsonSchema>; requirement: Array<Record<string, string[]>> };
}

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema, description = 'OK'): JsonSchema => ({ description, content: { 'application/json': { schema } } });
const pascal = (model: string): string => model.replace(/(^|[_\-\s]+)(\w)/g, (_m, _s, c: string) => c.toUpperCase());

/** Error answers each kind of route can give (every type of the catalogue has the one Error schema). */
function errorResponses(route: RouteDefinition): Record<string, JsonSchema> {
  const statuses = new Set<number>([400, 401, 403, 500, 503]);
  if (route.path.includes(':')) statuses.add(404);
  if (route.access !== 'read') [404, 409, 413, 422].forEach((s) => statuses.add(s));
  const out: Record<string, JsonSchema> = {};
  for (const status of [...statuses].sort()) out[String(status)] = { $ref: `#/components/responses/Error${status}` };
  return out;
}

/** The request body and success answer of a route, by its action. */
function operationShape(route: RouteDefinition, model: string): { params: string[]; body?: JsonSchema; response: JsonSchema } {
  const record = ref(pascal(model));
  const write = { type: 'object', properties: { success: { const: true }, model: record }, required: ['success', 'model'] };
  const bulk = { type: 'object', properties: { success: { const: true }, models: { type: 'array', items: write } }, required: ['success', 'models'] };
  const wrapped = (item: JsonSchema) => ({ type: 'object', properties: { [model]: { type: 'array', items: item } }, required: [model] });
  switch (route.action) {
    case 'index':
      return { params: LIST.concat('hierarchy'), response: json({ oneOf: [ref('DataEnvelope'), ref('OffsetEnvelope'), ref('CursorEnvelope')].map((e) => ({ allOf: [e, { type: 'object', properties: { data: { type: 'array', items: record } } }] })) }) };
    case 'first':
      return { params: LIST.filter((p) => p !== 'pagination'), response: json({ type: 'object', properties: { data: { oneOf: [record, { type: 'null' }] } } }) };
    case 'show':
      return { params: SHOW.concat('hierarchy'), response: json(record) };
    case 'store':
      return { params: [], body: { oneOf: [ref(`${pascal(model)}Create`), wrapped(ref(`${pascal(model)}Create`)), { type: 'array', items: ref(`${pascal(model)}Create`) }] }, response: json({ oneOf: [write, bulk] }) };
    case 'validate':
      return { params: [], body: ref(`${pascal(model)}Create`), response: json({ type: 'object', properties: { success: { const: true } } }) };
    case 'update':
    case 'updatePatch':
      return { params: [], body: ref(`${pascal(model)}Update`), response: json(write) };
    case 'updateMultiple':
    case 'updateMultipleAlias':
      return { params: [], body: wrapped({ allOf: [ref(`${pascal(model)}Update`), { type: 'object', properties: { id: { type: ['string', 'integer'] } }, required: ['id'] }] }), response: json(bulk) };
    case 'destroy':
    case 'restore':
    case 'forceDelete':
      return { params: [], response: json(write) };
    case 'deleteById':
      return { params: [], body: { type: 'object', properties: { ids: { type: 'array', items: { type: ['string', 'integer'] } } }, required: ['ids'] }, response: json({ type: 'object', properties: { success: { const: true }, deleted: { type: 'integer' } } }) };
    case 'exportExcel':
    case 'relation.exportExcel':
      return { params: EXPORT, response: { description: 'A spreadsheet download', content: { 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', contentEncoding: 'binary' } } } } };
    case 'exportPdf':
    case 'relation.exportPdf':
      return { params: EXPORT.concat('template'), response: { description: 'A PDF download', content: { 'application/pdf': { schema: { type: 'string', contentEncoding: 'binary' } } } } };
    default:
      // routes of the features (relations, soft delete, hierarchy) described by what they do
      if (route.answers === 'stream') return { params: EXPORT.concat('template'), response: { description: 'A file download', content: { 'application/octet-stream': { schema: { type: 'string', contentEncoding: 'binary' } } } } };
      if (route.access === 'read') return { params: route.path.includes(':') && !route.path.endsWith('s') ? SHOW : LIST, response: json({ type: 'object' }) };
      return { params: ['_scenario'], body: { type: ['object', 'array'] }, response: json({ type: 'object' }) };
  }
}

/** `/products/:id` -> `/products/{id}` and its path parameters. */
function openApiPath(path: string): { path: string; params: JsonSchema[] } {
  const params: JsonSchema[] = [];
  const converted = path.replace(/:(\w+)/g, (_m, name: string) => {
    params.push({ name, in: 'path', required: true, schema: { type: 'string' } });
    return `{${name}}`;
  });
  return { path: converted, params };
}

/**
 * An OpenAPI 3.1 document built from the route table and the registered resources, so it cannot
 * drift from what the server runs: every generated route, its parameters and bodies, record
 * schemas from the model fields (write-only fields absent), bodies from the yup schemas, every
 * envelope and error with its status.
 */
export function buildOpenApi(table: RouteTable, registry: Registry, options: OpenApiOptions = {}): JsonSchema {
  const hidden = options.hiddenFields ?? (() => new Set<string>());
  const schemas: Record<string, JsonSchema> = {
    Error: {
      type: 'object',
      properties: {
        message: { type: 'string' },
        type: { type: 'string', enum: Object.keys(ERROR_STATUS) },
        status: { type: 'integer' },
        field: { type: 'string' },
        errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
        ids: { type: 'array' },
      },
      required: ['message', 'type', 'status'],
    },
    DataEnvelope: { type: 'object', properties: { data: { type: 'array' } }, required: ['data'] },
    OffsetEnvelope: {
      type: 'object',
      properties: { current_page: { type: 'integer' }, data: { type: 'array' }, total: { type: 'integer' }, per_page: { type: 'integer' }, last_page: { type: 'integer' }, from: { type: ['integer', 'null'] }, to: { type: ['integer', 'null'] } },
      required: ['current_page', 'data', 'total', 'per_page', 'last_page'],
    },
    CursorEnvelope: { type: 'object', properties: { data: { type: 'array' }, per_page: { type: 'integer' }, next_cursor: { type: ['string', 'null'] }, has_more: { type: 'boolean' } }, required: ['data', 'per_page', 'has_more'] },
  };
  for (const entry of registry.entriesList()) {
    const name = pascal(entry.info.name);
    const off = hidden(entry.info.name);
    schemas[name] = recordSchema(entry.info, off);
    schemas[`${name}Create`] = writeSchema(entry.info, entry.declaration.validation?.create, off);
    schemas[`${name}Update`] = writeSchema(entry.info, entry.declaration.validation?.update, off);
    delete (schemas[`${name}Update`] as { required?: unknown }).required;
  }
  const responses: Record<string, JsonSchema> = {};
  for (const status of new Set(Object.values(ERROR_STATUS))) responses[`Error${status}`] = json(ref('Error'), `Error ${status}`);

  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of table.all()) {
    const { path, params: pathParams } = openApiPath(route.path);
    const shape = operationShape(route, route.model);
    const operation: JsonSchema = {
      operationId: route.name,
      summary: route.summary,
      tags: [route.resource],
      parameters: [...pathParams, ...shape.params.map((p) => queryParameter(PARAMETERS[p], examplesFor(registry.model(route.model))))],
      responses: { [route.action === 'store' ? '200' : '200']: shape.response, ...errorResponses(route) },
    };
    if (shape.body) operation.requestBody = { required: true, content: { 'application/json': { schema: shape.body } } };
    if (options.security) operation.security = options.security.requirement;
    (paths[path] ??= {})[route.method] = operation;
  }
  const components: JsonSchema = { schemas, responses };
  if (options.security) components.securitySchemes = options.security.schemes;
  return {
    openapi: '3.1.0',
    info: { title: options.title ?? 'REST API', version: options.version ?? '1.0.0', description: 'Generated from the route table and resource declarations by generic-resource-rest.' },
    servers: [{ url: options.serverUrl ?? '/' }],
    paths,
    components,
    // route segment -> record schema name, for the typed client's generator
    'x-resources': Object.fromEntries(registry.entriesList().map((e) => [e.declaration.name, pascal(e.info.name)])),
  };
}
