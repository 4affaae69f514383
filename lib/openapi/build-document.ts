import { ERROR_STATUS } from '../errors/catalogue';
import type { DocumentedRoute, DocumentedRoutes } from './documented-route';
import type { Registry } from '../service/declarations/registry';
import { idSchema, recordSchema, writeSchema, type JsonSchema } from './json-schema';
import { addNestedSchemas } from './nested-schemas';
import { jsonResponse, operationShape, schemaRef } from './operations';
import { writeHeaders } from './write-headers';
import { QUERY_SCHEMAS, parameterComponents, parameterRef } from './parameters';

/** The version of the interface specification this library implements (spec "Versioning"). */
export const INTERFACE_VERSION = '2.1.8';

export interface OpenApiOptions {
  title?: string;
  version?: string;
  /** What the API is for (info.description). */
  description?: string;
  /** Who answers for it (info.contact): `{name, url, email}`. */
  contact?: { name?: string; url?: string; email?: string };
  /** Its licence (info.license): `{name, identifier | url}`. */
  license?: { name: string; identifier?: string; url?: string };
  /**
   * The document's server URL (`servers[0].url`). Default `.`: relative to the document's own URL
   * (OpenAPI 3), so a document served by `docsRouter()` mounted beside `router()` points at the API
   * wherever both are mounted, behind any proxy prefix. Give it when they are mounted apart (`/api/v1`,
   * `../api`, or an absolute `https://shop.example/api/v1`).
   */
  serverUrl?: string;
  /** Fields hidden from record and body schemas per MODEL (a role's read policy). */
  hiddenFields?: (model: string) => ReadonlySet<string>;
  /**
   * Security schemes and the requirement applied to every operation (from the authentication
   * setup). Without it the API asks for no credential, and the document says so (`security: []`).
   */
  security?: {
    schemes: Record<string, JsonSchema>;
    requirement: Array<Record<string, string[]>>;
    /** Routes served without a required credential (`auth.routes[name] === false`): a credential is optional (`[{}, ...requirement]`), no 403. */
    isPublic?: (routeName: string) => boolean;
  };
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request: a malformed or unknown parameter (the field is named)',
  401: 'No valid credential',
  403: 'The caller lacks the permission',
  404: 'No such record (or not visible to the caller)',
  409: 'Conflict: a unique value taken, a record still referenced, or an Idempotency-Key still in use',
  412: 'Precondition failed: If-Match does not name the current version (the current ETag in the header)',
  413: 'The body is too large',
  422: 'Validation failed (errors per field), or an Idempotency-Key reused with another request',
  428: 'Precondition required: If-Match is required on this resource',
  429: 'The caller holds its share of open change streams',
  500: 'Internal error',
  503: 'The database is unavailable',
};

const ENVELOPES: Record<string, JsonSchema> = {
  Error: {
    type: 'object',
    properties: {
      message: { type: 'string' },
      type: { type: 'string', enum: Object.keys(ERROR_STATUS) },
      status: { type: 'integer' },
      field: { type: 'string' },
      errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
      ids: { type: 'array', items: { type: ['string', 'integer'] } },
    },
    required: ['message', 'type', 'status'],
  },
  DataEnvelope: { type: 'object', properties: { data: { type: 'array', items: {} } }, required: ['data'] },
  OffsetEnvelope: {
    type: 'object',
    properties: { current_page: { type: 'integer' }, data: { type: 'array', items: {} }, total: { type: 'integer' }, per_page: { type: 'integer' }, last_page: { type: 'integer' }, from: { type: ['integer', 'null'] }, to: { type: ['integer', 'null'] } },
    required: ['current_page', 'data', 'total', 'per_page', 'last_page'],
  },
  AggregateItem: {
    type: 'object',
    description: 'One group (decision 56): `group` holds its values by field or path (null values form their own group); then only the functions asked, each by field. Values are typed like the same field in a record; sums and averages are numbers, null when no value was there.',
    properties: {
      group: { type: 'object', additionalProperties: true },
      count: { oneOf: [{ type: 'integer' }, { type: 'object', additionalProperties: { type: 'integer' } }] },
      sum: { type: 'object', additionalProperties: { type: ['number', 'null'] } },
      avg: { type: 'object', additionalProperties: { type: ['number', 'null'] } },
      min: { type: 'object', additionalProperties: true },
      max: { type: 'object', additionalProperties: true },
      count_distinct: { type: 'object', additionalProperties: { type: 'integer' } },
    },
    required: ['group'],
  },
  CursorEnvelope: { type: 'object', properties: { data: { type: 'array', items: {} }, per_page: { type: 'integer' }, next_cursor: { type: ['string', 'null'] }, has_more: { type: 'boolean' } }, required: ['data', 'per_page', 'has_more'] },
};

const pascal = (model: string): string => model.replace(/(^|[_\-\s]+)(\w)/g, (_m, _s, c: string) => c.toUpperCase());

/** Error answers each kind of route can give (every type of the catalogue has the one Error schema). */
function errorStatuses(route: DocumentedRoute, secured: boolean, open: boolean): number[] {
  const statuses = new Set<number>([400, 500, 503]);
  if (secured) statuses.add(401);
  if (secured && !open) statuses.add(403);
  if (route.path.includes(':')) statuses.add(404);
  if (route.access !== 'read') [404, 409, 413, 422].forEach((s) => statuses.add(s));
  if (route.answers === 'stream' && route.action === 'changes') statuses.add(429);
  return [...statuses].sort();
}

/** `/products/:id` -> `/products/{id}` and its path parameters, typed like the ids they carry. */
function openApiPath(path: string, idOf: (param: string) => JsonSchema): { path: string; params: JsonSchema[] } {
  const params: JsonSchema[] = [];
  const converted = path.replace(/:(\w+)/g, (_m, name: string) => {
    // decision 83: a history entry's version
    if (name === 'version') params.push({ name, in: 'path', required: true, description: 'The version of a history entry.', schema: { type: 'integer', minimum: 1 } });
    else params.push({ name, in: 'path', required: true, description: name === 'parent_id' ? 'The id of the parent record.' : name === 'related_id' ? 'The id of the related record.' : 'The id of the record.', schema: idOf(name) });
    return `{${name}}`;
  });
  return { path: converted, params };
}

/** The operation's description: what it does, its route name and the permissions it needs. */
function describe(route: DocumentedRoute, secured: boolean): string {
  const rights = route.permissions ?? [route.name];
  const needs = secured ? ` Needs the permission${rights.length > 1 ? 's' : ''} ${rights.map((r) => `\`${r}\``).join(', ')}.` : '';
  return `${route.summary}. Route \`${route.name}\` (${route.access}).${needs}`;
}

/**
 * An OpenAPI 3.1 document built from the route table and the registered resources, so it cannot
 * drift from what the server runs: every generated route, its parameters and bodies, record
 * schemas from the model fields (write-only fields absent), bodies from the yup schemas, every
 * envelope and error with its status.
 */
export function buildOpenApi(table: DocumentedRoutes, registry: Registry, options: OpenApiOptions = {}): JsonSchema {
  const hidden = options.hiddenFields ?? (() => new Set<string>());
  const secured = Boolean(options.security);
  const schemas: Record<string, JsonSchema> = { ...ENVELOPES, ...QUERY_SCHEMAS };
  const entries = registry.entriesList();
  const refOf = (model: string) => (registry.has(model) ? schemaRef(pascal(model)) : null);
  for (const entry of entries) {
    const name = pascal(entry.info.name);
    const off = hidden(entry.info.name);
    schemas[name] = recordSchema(entry.info, off, refOf);
    schemas[`${name}Create`] = writeSchema(entry.info, entry.declaration.validation?.create, off);
    schemas[`${name}Update`] = writeSchema(entry.info, entry.declaration.validation?.update, off);
    delete (schemas[`${name}Update`] as { required?: unknown }).required;
    addNestedSchemas(entry, registry, schemas[`${name}Create`], schemas[`${name}Update`], hidden);
  }

  const paths: Record<string, Record<string, JsonSchema>> = {};
  const usedErrors = new Set<number>();
  const usedParameters = new Set<string>();
  const tags = new Map<string, string>();
  for (const route of table.all()) {
    const related = registry.model(route.model);
    const parent = entries.find((e) => e.declaration.name === route.resource)?.info;
    const { path, params: pathParams } = openApiPath(route.path, (param) => idSchema(param === 'parent_id' ? parent?.idType : related.idType));
    const shape = operationShape(route, { type: pascal(route.model), model: route.model, id: idSchema(related.idType) });
    // soft_delete and hierarchy only where the route's records have them (a 400 elsewhere)
    shape.params = shape.params.filter((p) => (p !== 'soft_delete' || related.softDelete) && (p !== 'hierarchy' || related.hierarchyField));
    shape.params.forEach((p) => usedParameters.add(p));
    const open = Boolean(options.security?.isPublic?.(route.name));
    const headers = writeHeaders(route, entries.find((e) => e.info.name === route.model));
    const statuses = [...new Set([...errorStatuses(route, secured, open), ...headers.statuses])].sort();
    statuses.forEach((s) => usedErrors.add(s));
    const success: Record<string, JsonSchema> = { [shape.status ?? '200']: Object.keys(headers.headers).length ? { ...shape.response, headers: headers.headers } : shape.response };
    if (shape.partial) success['207'] = jsonResponse({ type: 'object', properties: { success: { const: false }, error: { type: 'object', additionalProperties: true } }, required: ['success', 'error'], additionalProperties: true }, 'Partial success: the ids not found are in error.not_found_ids');
    const operation: JsonSchema = {
      operationId: route.name,
      summary: route.summary,
      description: describe(route, secured && !open),
      tags: [route.resource],
      parameters: [...pathParams, ...shape.params.map(parameterRef), ...headers.parameters],
      responses: { ...success, ...Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/Error${s}` }])) },
    };
    if (shape.body) operation.requestBody = { required: true, content: { 'application/json': { schema: shape.body } } };
    if (shape.bodyContent) operation.requestBody = { required: true, content: Object.fromEntries(Object.entries(shape.bodyContent).map(([type, schema]) => [type, { schema }])) };
    if (options.security) operation.security = open ? [{}, ...options.security.requirement] : options.security.requirement;
    (paths[path] ??= {})[route.method] = operation;
    if (!tags.has(route.resource)) tags.set(route.resource, parent ? `The ${route.resource} resource (records of ${parent.name}) and its relation routes.` : `The routes under /${route.resource}: the records of the authenticated user.`);
  }

  const responses: Record<string, JsonSchema> = {};
  for (const status of [...usedErrors].sort()) responses[`Error${status}`] = jsonResponse(schemaRef('Error'), ERROR_DESCRIPTIONS[status] ?? `Error ${status}`);
  const parameters = Object.fromEntries(Object.entries(parameterComponents()).filter(([name]) => usedParameters.has(name)));
  const components: JsonSchema = { schemas, parameters, responses };
  if (options.security) components.securitySchemes = options.security.schemes;
  const described = options.description ?? 'Generated from the route table and resource declarations by generic-resource-rest.';
  const info: JsonSchema = {
    title: options.title ?? 'REST API',
    version: options.version ?? '1.0.0',
    description: `${described}\n\nImplements version ${INTERFACE_VERSION} of the generic resource REST interface.`,
    'x-interface-version': INTERFACE_VERSION,
  };
  if (options.contact) info.contact = options.contact;
  if (options.license) info.license = options.license;
  return {
    openapi: '3.1.0',
    info,
    // '.' resolves against the document's URL: `/shop/api/openapi.json` -> `/shop/api/` (the API)
    servers: [{ url: options.serverUrl ?? '.' }],
    // an API without authentication says so: no credential is needed (decision 66)
    security: options.security ? options.security.requirement : [],
    tags: [...tags].map(([name, description]) => ({ name, description })),
    paths,
    components,
    // route segment -> record schema name, for the typed client's generator
    'x-resources': Object.fromEntries(entries.map((e) => [e.declaration.name, pascal(e.info.name)])),
  };
}
