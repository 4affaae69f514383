import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { ApiError, BadRequestError } from '../errors';
import type { IdempotencyCapability } from '../driver';
import type { RequestContext } from '../service/request-context';
import type { HeldMark } from '../service/held-key';
import { Reply, type RouteDefinition } from './routes';

/**
 * Decision 80, the HTTP part: `Idempotency-Key` on POST, PUT, PATCH and DELETE. The first request
 * with a key (per caller) claims it in the database before it runs; its answer (status, body,
 * ETag, Location, Content-Type) is stored when it succeeded, and the claim is dropped when it
 * failed (4xx, 5xx store nothing). A repeat with the same method, path (query string included)
 * and body (as parsed JSON) gets the stored answer with `Idempotent-Replayed: true`; another
 * request under the key is a 422; while the first runs, a 409 with `Retry-After`. The store is
 * the database (a table or collection the driver creates), so instances share it. http knows no
 * database: the store is handed in by the composition root, per route.
 */

/** One caller's keys in the database of a route's resource (the driver's store, through the service's door). */
export type IdempotencyStore = IdempotencyCapability;

export interface IdempotencyGate {
  /** The store for a route (its resource's database); null: the route's driver keeps no keys. */
  storeFor(route: RouteDefinition): IdempotencyStore | null;
  ttlSeconds: number;
  /** A claim older than this whose request never finished (a crashed instance) may be taken over. */
  staleSeconds: number;
}

const WRITES = new Set(['post', 'put', 'patch', 'delete']);
const KEY = /^[\x20-\x7e]{1,255}$/;
const KEPT_HEADERS = ['etag', 'location', 'content-type'];

class KeyInProgress extends ApiError {
  constructor() {
    super('idempotency_key_in_progress', 'A request with this Idempotency-Key is still running; retry after it finished.');
  }

  override headers(): Record<string, string> {
    return { 'Retry-After': '1' };
  }
}

/** A first request whose writes committed, but whose instance stopped before its answer was stored. */
class AnswerLost extends ApiError {
  constructor() {
    super('conflict', 'The first request with this Idempotency-Key committed its writes, but its answer was lost (its instance stopped); the writes are not repeated: read the resource to see them.');
  }
}

/** Body compared as parsed JSON, key order aside. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = canonical((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/**
 * Method, path and body. A streamed body (an import's file) is its bytes' digest; until the first
 * request read them all its claim holds a placeholder no repeat can match.
 */
function fingerprintOf(req: Request, route: RouteDefinition, fileDigest?: string): string {
  const parsed = req.body === undefined || (typeof req.body === 'object' && req.body !== null && Object.keys(req.body).length === 0 && !Array.isArray(req.body)) ? null : req.body;
  const body = route.streamedBody ? { file: fileDigest ?? 'unread' } : canonical(parsed);
  return createHash('sha256').update(JSON.stringify([req.method.toUpperCase(), req.originalUrl, body])).digest('hex');
}

/** A claimed key: how the router stores or drops the answer. */
export interface HeldKey {
  /** What the request's write transactions mark committed (held-key.ts). */
  mark: HeldMark;
  /** `bodyDigest`: a streamed body's digest, as the handler reported it (stored as the fingerprint). */
  complete(status: number, headers: Record<string, string>, body: string, bodyDigest?: string): Promise<void>;
  release(): Promise<void>;
}

/**
 * Before a write runs: null when the request carries no key (or the route keeps none); a Reply
 * replaying the stored answer; or the key held for this request. Throws the 400, 409 and 422.
 */
export async function holdKey(gate: IdempotencyGate | undefined, route: RouteDefinition, req: Request, ctx: RequestContext): Promise<HeldKey | Reply | null> {
  if (!gate || !WRITES.has(route.method)) return null;
  const key = req.headers['idempotency-key'];
  if (key === undefined) return null;
  if (typeof key !== 'string' || !KEY.test(key)) throw new BadRequestError('The Idempotency-Key header must be 1 to 255 printable ASCII characters.', 'Idempotency-Key');
  const store = gate.storeFor(route);
  if (!store) return null;
  const caller = ctx.user ? `user:${String(ctx.user.id)}` : 'anonymous';
  const fingerprint = fingerprintOf(req, route);
  const found = await store.claim(caller, key, fingerprint, gate.ttlSeconds, gate.staleSeconds);
  if (!found.claimed) {
    if (!found.answer) throw found.lost ? new AnswerLost() : new KeyInProgress();
    // a streamed body is compared once a repeat's bytes are read (the stored digest is the first's whole file)
    const theirs = route.streamedBody ? fingerprintOf(req, route, await route.streamedBody.digest(req)) : fingerprint;
    if (found.fingerprint !== theirs) throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with another request (method, path or body).');
    return new Reply(found.answer.status, null, { ...found.answer.headers, 'Idempotent-Replayed': 'true' }, found.answer.body);
  }
  // a long request (an import) keeps its claim fresh: a retry must not take over a claim whose
  // request still runs; a crashed instance stops beating and its claim goes stale as before
  const beat = route.longRunning && store.touch ? setInterval(() => void store.touch!(caller, key).catch(() => undefined), Math.max(1000, (gate.staleSeconds * 1000) / 3)) : null;
  beat?.unref();
  const stop = () => beat && clearInterval(beat);
  return {
    mark: { store, caller, key, marked: false },
    complete: (status, headers, body, bodyDigest) => {
      stop();
      const kept: Record<string, string> = {};
      for (const [name, value] of Object.entries(headers)) if (KEPT_HEADERS.includes(name.toLowerCase())) kept[name] = value;
      // a streamed body never reported keeps the placeholder: its repeats are 422s, never a second run
      const final = route.streamedBody && bodyDigest !== undefined ? fingerprintOf(req, route, bodyDigest) : undefined;
      return status >= 200 && status < 300 ? store.complete(caller, key, { status, headers: kept, body }, final) : store.release(caller, key);
    },
    release: () => {
      stop();
      return store.release(caller, key);
    },
  };
}

/** The headers an answer went out with that a replay repeats. */
export function answerHeaders(res: Response, extra: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8' };
  for (const name of KEPT_HEADERS) {
    const value = res.getHeader(name);
    if (typeof value === 'string') out[name === 'etag' ? 'ETag' : name === 'location' ? 'Location' : 'Content-Type'] = value;
  }
  return { ...out, ...extra };
}
