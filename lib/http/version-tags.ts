import { createHash } from 'node:crypto';
import { toJson } from '../service/reads/serialize';
import { Reply, type RouteInput } from './routes';

/**
 * Decision 81's ETags: a versioned resource's show, first and single-record write answers carry
 * `ETag: "<version>"` (a show with `select` or `relations`: `"<version>.<variant>"`), also when
 * the read cache answered; a GET whose `If-None-Match` names it is a 304.
 */

/** The version of the record an answer holds: the record itself (show), `model` (writes) or `data` (first). */
function versionIn(body: unknown, field: string): number | null {
  if (body === null || typeof body !== 'object') return null;
  const record = body as Record<string, unknown>;
  for (const candidate of [record, record.model, record.data]) {
    if (candidate !== null && typeof candidate === 'object' && typeof (candidate as Record<string, unknown>)[field] === 'number') {
      return (candidate as Record<string, number>)[field];
    }
  }
  return null;
}

function hasVariant(input: RouteInput): boolean {
  const { select, relations } = input.params as { select?: unknown; relations?: unknown };
  const given = (value: unknown) => value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
  return given(select) || given(relations);
}

function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/**
 * The answer with its version tag (unchanged when the resource has no version field or the
 * answer holds no version: a record the caller may not read, an empty first). `result` is what
 * the route's handler or the read gate produced.
 */
export function withVersionTag(input: RouteInput, field: string | null | undefined, result: unknown): unknown {
  if (!field) return result;
  if (result instanceof Reply && (result.status !== 200 || result.json === undefined)) return result;
  const json = result instanceof Reply ? result.json! : toJson(result);
  const version = versionIn(JSON.parse(json), field);
  // no version to tag: the answer goes out as it would have (a write's answer is never hashed)
  if (version === null) return result;
  const read = input.req.method === 'GET' || input.req.method === 'HEAD';
  const variant = read && hasVariant(input) ? `.${createHash('sha1').update(json).digest('hex').slice(0, 12)}` : '';
  const etag = `"${version}${variant}"`;
  const headers = { ...(result instanceof Reply ? result.headers : {}), ETag: etag };
  if (read && noneMatch(input.req.get('if-none-match'), etag)) return new Reply(304, null, headers);
  return new Reply(200, null, headers, json);
}
