import type { ResourceEntry } from '../service/declarations/registry';
import type { DocumentedRoute } from './documented-route';
import type { JsonSchema } from './json-schema';

/**
 * The request and answer headers of decisions 80 and 81 in the API description:
 * `Idempotency-Key` on every POST, PUT, PATCH and DELETE (a replay answers with
 * `Idempotent-Replayed: true`, a key in use 409, reused with another request 422); `If-Match` on
 * PUT, PATCH and DELETE of one record of a versioned resource (412 stale, 428 when required) and
 * the version `ETag` on its single-record answers.
 */
const WRITES = new Set(['post', 'put', 'patch', 'delete']);
const SINGLE = new Set(['show', 'first', 'store', 'update', 'updatePatch', 'destroy', 'revert']);

export interface WriteHeaders {
  parameters: JsonSchema[];
  statuses: number[];
  /** Headers of the success answer. */
  headers: Record<string, JsonSchema>;
}

export function writeHeaders(route: DocumentedRoute, entry: ResourceEntry | undefined): WriteHeaders {
  const out: WriteHeaders = { parameters: [], statuses: [], headers: {} };
  if (WRITES.has(route.method)) {
    out.parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Makes the request safe to repeat (decision 80): 1-255 printable ASCII characters, per caller. A repeat with the same method, path and body answers the stored status and body with `Idempotent-Replayed: true` and writes nothing; another request under the key is a 422 `idempotency_key_reused`; while the first runs, a 409 `idempotency_key_in_progress` with `Retry-After`. Failed requests store nothing; answers are kept `REST_IDEMPOTENCY_TTL_S` seconds.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    });
    out.statuses.push(409, 422);
    out.headers['Idempotent-Replayed'] = { description: '`true` on a replayed answer (absent on the first).', schema: { type: 'string', enum: ['true'] } };
  }
  const versioned = Boolean(entry?.info.versionField) && route.resource === entry?.declaration.name && !route.action.startsWith('relation.');
  if (!versioned) return out;
  if (['update', 'updatePatch', 'destroy', 'revert'].includes(route.action)) {
    out.parameters.push({
      name: 'If-Match',
      in: 'header',
      required: Boolean(entry!.declaration.requireIfMatch),
      description: 'The version read (its ETag, `"<version>"`; the part before a dot counts; `*`: any existing record). Compared inside the write: a mismatch is a 412 `precondition_failed` carrying the current ETag, nothing written (decision 81).' + (entry!.declaration.requireIfMatch ? ' Required: without it, 428 `precondition_required`.' : ''),
      schema: { type: 'string' },
    });
    out.statuses.push(412);
    if (entry!.declaration.requireIfMatch) out.statuses.push(428);
  }
  if (route.action === 'updateMultiple' || route.action === 'updateMultipleAlias') out.statuses.push(412);
  if (SINGLE.has(route.action)) out.headers.ETag = { description: 'The record\'s version, `"<version>"` (`"<version>.<variant>"` for a show with select or relations).', schema: { type: 'string' } };
  return out;
}
