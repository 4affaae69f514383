import type { DocumentedRoute } from './documented-route';
import type { JsonSchema } from './json-schema';
import { AGGREGATE, EXPORT, LIST, SHOW } from './parameters';

/** What one operation takes and answers: its query parameters, request body and success answer. */
export interface OperationShape {
  params: string[];
  body?: JsonSchema;
  response: JsonSchema;
  /** The success status (default 200). */
  status?: string;
  /** A body in other media types than JSON (an import's file), by type. */
  bodyContent?: Record<string, JsonSchema>;
  /** May answer 207, a partial success naming the ids not found (decision 48). */
  partial?: boolean;
}

/** The names the shapes refer to: the resource's record, create and update schemas, its id and body key. */
export interface ShapeContext {
  /** Record schema name (`Product`). */
  type: string;
  /** MODEL, the key wrapping arrays of records in bodies. */
  model: string;
  /** The schema of one id of the route's records. */
  id: JsonSchema;
}

export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const jsonResponse = (schema: JsonSchema, description = 'OK'): JsonSchema => ({ description, content: { 'application/json': { schema } } });

const download = (description: string, mime: string): JsonSchema => ({ description, content: { [mime]: { schema: { type: 'string', contentEncoding: 'binary' } } } });
const anyObject: JsonSchema = { type: 'object', additionalProperties: true };

/** The change feed's answer: `text/event-stream`, each event's data `{id, model}` with the record as a show answers it. */
function changeStream(record: JsonSchema): JsonSchema {
  return {
    description:
      'A stream of Server-Sent Events, one per record written by a committed write: `event: created|updated|deleted|restored`, `id: <event id>`, `data: {"id": ..., "model": {...}}` (the record as a show answers this caller, its `select`; a deleted record as the delete answered it). A `Last-Event-ID` request header resumes after that event; an id no longer buffered, or a reader too far behind, gets one `event: reset` (reload). The caller\'s rights are checked again while the stream is open: fewer rights apply from the next event; without a login or the list permission, `event: revoked` with `data: {"reason": "unauthenticated"|"forbidden"}` ends the stream. A comment line is sent every 15 s. Filters (`oper`, `attr`) take the resource\'s own fields only. 503 when the server holds its maximum of open streams; 429 when this caller holds its share of them.',
    content: {
      'text/event-stream': {
        schema: { type: 'string', description: 'Event frames: `id`, `event` and one `data` line of JSON, then a blank line.' },
        'x-event-data': { type: 'object', properties: { id: {}, model: record }, required: ['id', 'model'] },
      },
    },
  };
}

/** The list envelopes (plain, offset page, cursor page) with `data` items of one record schema. */
function listResponse(record: JsonSchema): JsonSchema {
  const data = { type: 'object', properties: { data: { type: 'array', items: record } } };
  return jsonResponse({ oneOf: ['DataEnvelope', 'OffsetEnvelope', 'CursorEnvelope'].map((e) => ({ allOf: [schemaRef(e), data] })) }, 'The matching records: all of them, or one page with its position');
}

/** The request body and success answer of the relation routes (spec "Relation endpoints"). */
function relationShape(route: DocumentedRoute, c: ShapeContext): OperationShape {
  const record = schemaRef(c.type);
  const related = { allOf: [record, { type: 'object', properties: { pivot: { type: 'object', additionalProperties: true, description: 'Pivot columns (many-to-many relations).' } } }] };
  const ids = { type: 'array', items: c.id };
  const many = { type: 'array', items: anyObject };
  const wrappedMany = { type: 'object', properties: { [c.model]: { oneOf: [anyObject, many] } }, additionalProperties: true };
  const result = jsonResponse({ type: 'object', additionalProperties: true, description: 'The outcome: the written records (`model`/`models`), or the ids attached, detached and updated.' });
  switch (route.action.slice('relation.'.length)) {
    case 'index':
      // relation reads are not cached: no cache parameters (lib/query/route-params.ts)
      return { params: LIST.filter((p) => !p.startsWith('cache')), response: jsonResponse({ type: 'object', properties: { data: { type: 'array', items: related } }, required: ['data'], additionalProperties: true }, 'The related records (an envelope with `data`)') };
    case 'show':
      return { params: SHOW.filter((p) => !p.startsWith('cache')), response: jsonResponse(related, 'The related record') };
    case 'store':
      return { params: ['_scenario'], body: { oneOf: [schemaRef(`${c.type}Create`), wrappedMany, many] }, response: result, status: '201' };
    case 'update':
      return { params: [], body: { oneOf: [schemaRef(`${c.type}Update`), wrappedMany] }, response: result };
    case 'updateMany':
      return { params: ['_scenario'], body: { oneOf: [wrappedMany, many] }, response: result, partial: true };
    case 'destroyMany':
    case 'detachMany':
      return { params: ['_scenario'], body: { oneOf: [ids, { type: 'object', properties: { ids, [c.model]: ids }, additionalProperties: true }] }, response: result, partial: true };
    case 'attach':
      return { params: ['_scenario'], body: { oneOf: [anyObject, { type: 'array', items: { oneOf: [c.id, anyObject] } }] }, response: result, partial: true };
    case 'updatePivot':
    case 'updatePivotMany':
      return { params: route.action === 'relation.updatePivotMany' ? ['_scenario'] : [], body: { oneOf: [anyObject, many] }, response: result, partial: true };
    default:
      return { params: [], response: result };
  }
}

/** Decision 82: `POST /{resource}/import`, a CSV or XLSX file in, the summary (or a progress stream) out. */
function importShape(): OperationShape {
  const file = { type: 'string', format: 'binary' };
  const rowError = { type: 'object', properties: { row: { type: 'integer' }, column: { type: ['string', 'null'] }, field: { type: ['string', 'null'] }, code: { type: 'string' }, message: { type: 'string' } }, required: ['row', 'column', 'field', 'code', 'message'] };
  const count = { type: 'integer', minimum: 0 };
  const summary = { type: 'object', properties: { rows: count, created: count, updated: count, unchanged: count, skipped: count, errors: { type: 'array', items: rowError, maxItems: 1000 } }, required: ['rows', 'created', 'updated', 'unchanged', 'skipped', 'errors'] };
  const response = {
    description: 'The summary; with `Accept: text/event-stream`, `progress` events (`{"rows", "written", "errors"}`, at least every second) then `done` (the summary) or `failed` (the error body)',
    content: { 'application/json': { schema: summary }, 'text/event-stream': { schema: { type: 'string' } } },
  };
  return {
    params: ['mode', 'match', 'on_error'],
    bodyContent: {
      'text/csv': { type: 'string', description: 'RFC 4180, UTF-8 (a BOM allowed), a header row naming the columns as the export does, plus to-one paths (`user.email`).' },
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': file,
      'multipart/form-data': { type: 'object', properties: { file }, required: ['file'] },
    },
    response,
  };
}

/** The request body and success answer of a route, by its action. */
export function operationShape(route: DocumentedRoute, c: ShapeContext): OperationShape {
  const record = schemaRef(c.type);
  const write = { type: 'object', properties: { success: { const: true }, model: record }, required: ['success', 'model'] };
  const bulk = { type: 'object', properties: { success: { const: true }, models: { type: 'array', items: write } }, required: ['success', 'models'] };
  const wrapped = (item: JsonSchema) => ({ type: 'object', properties: { [c.model]: { type: 'array', items: item } }, required: [c.model] });
  const create = schemaRef(`${c.type}Create`);
  switch (route.action) {
    case 'index':
      return { params: LIST.concat('hierarchy'), response: listResponse(record) };
    case 'first':
      return { params: LIST.filter((p) => p !== 'pagination'), response: jsonResponse({ type: 'object', properties: { data: { oneOf: [record, { type: 'null' }] } }, required: ['data'] }, 'The first matching record, or null') };
    case 'aggregate': {
      const page = { allOf: [schemaRef('OffsetEnvelope'), { type: 'object', properties: { data: { type: 'array', items: schemaRef('AggregateItem') } } }] };
      return { params: AGGREGATE, response: jsonResponse(page, 'A page of groups: each with its group values and the functions asked (one item without group_by)') };
    }
    case 'show':
      return { params: SHOW.concat('hierarchy'), response: jsonResponse(record, 'The record') };
    case 'changes':
      // decisions 60-62: Server-Sent Events, one per committed write of a matching record
      return { params: ['oper', 'attr', 'eq', 'select'], response: changeStream(record) };
    case 'store':
      return { params: [], body: { oneOf: [create, wrapped(create), { type: 'array', items: create }] }, response: jsonResponse({ oneOf: [write, bulk] }, 'The created record, or each created record') };
    case 'upsert': {
      // decision 79: create or update by a declared set of unique fields
      const item = { type: 'object', properties: { action: { enum: ['created', 'updated', 'unchanged'] }, model: record }, required: ['action', 'model'] };
      const answer = { type: 'object', properties: { created: { type: 'integer' }, updated: { type: 'integer' }, unchanged: { type: 'integer' }, models: { type: 'array', items: item } }, required: ['created', 'updated', 'unchanged', 'models'] };
      const body = { type: 'object', properties: { match: { type: 'array', items: { type: 'string' }, description: 'One declared set of match keys (may be left out when one set is declared).' }, [c.model]: { oneOf: [anyObject, { type: 'array', items: anyObject }] } }, required: [c.model] };
      return { params: [], body, response: jsonResponse(answer, 'What was done to each record, in request order') };
    }
    case 'import':
      return importShape();
    case 'validate':
      return { params: [], body: create, response: jsonResponse({ type: 'object', properties: { success: { const: true } }, required: ['success'] }, 'The record would be accepted') };
    case 'update':
    case 'updatePatch':
      return { params: [], body: schemaRef(`${c.type}Update`), response: jsonResponse(write, 'The updated record') };
    case 'updateMultiple':
    case 'updateMultipleAlias':
      return { params: [], body: wrapped({ allOf: [schemaRef(`${c.type}Update`), { type: 'object', properties: { id: c.id }, required: ['id'] }] }), response: jsonResponse(bulk, 'Each updated record') };
    case 'destroy':
    case 'restore':
    case 'forceDelete':
      return { params: [], response: jsonResponse(write, 'The record as it was') };
    case 'history': {
      // decision 83: newest first, `changes` narrowed to the fields the caller may read
      const pair = { type: 'array', items: {}, minItems: 2, maxItems: 2, description: '[before, after]' };
      const entry = { type: 'object', properties: { version: { type: 'integer' }, op: { enum: ['created', 'updated', 'deleted', 'restored', 'force_deleted', 'reverted'] }, at: { type: 'string', format: 'date-time' }, actor: { type: 'object', properties: { id: {}, roles: { type: 'array', items: { type: 'string' } } }, required: ['id', 'roles'] }, request_id: { type: ['string', 'null'] }, changes: { type: 'object', additionalProperties: pair } }, required: ['version', 'op', 'at', 'actor', 'request_id', 'changes'] };
      return { params: ['pagination', 'soft_delete'], response: jsonResponse({ allOf: [schemaRef('OffsetEnvelope'), { type: 'object', properties: { data: { type: 'array', items: entry } } }] }, "A page of the record's history, newest first") };
    }
    case 'revert':
      return { params: [], response: jsonResponse(write, 'The updated record (unchanged when the version holds its values already)') };
    case 'deleteById':
      return { params: [], body: { type: 'object', properties: { ids: { type: 'array', items: c.id } }, required: ['ids'] }, response: jsonResponse({ type: 'object', properties: { success: { const: true }, deleted: { type: 'integer' } }, required: ['success'] }, 'How many records were deleted') };
    case 'exportExcel':
    case 'relation.exportExcel':
      return { params: EXPORT, response: download('A spreadsheet download', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet') };
    case 'exportPdf':
    case 'relation.exportPdf':
      return { params: EXPORT.concat('template'), response: download('A PDF download', 'application/pdf') };
    default:
      if (route.action.startsWith('relation.')) return relationShape(route, c);
      // routes of other features, described by what they do
      if (route.answers === 'stream') return { params: EXPORT.concat('template'), response: download('A file download', 'application/octet-stream') };
      if (route.access === 'read') return { params: route.path.includes(':') ? SHOW : LIST, response: jsonResponse(anyObject) };
      return { params: [], body: { oneOf: [anyObject, { type: 'array', items: {} }] }, response: jsonResponse(anyObject) };
  }
}
