import type { PlannedRead } from '../service/reads/planned-read';
import { Reply, type ReadGate, type RouteInput } from './routes';

/** What a read-through cache answers (lib/cache/read-cache.ts): the read's value, or its JSON and tag. */
export type CachedAnswer = { state: 'off'; value: unknown } | { state: 'hit' | 'miss' | 'bypass'; body: string; etag: string };

/** A read-through cache as the routes see it; the cache itself knows nothing of HTTP. */
export interface ReadThrough {
  serve(
    request: { ctx: RouteInput['ctx']; method: string; header(name: string): string | undefined; params: { cache?: unknown; cache_ttl?: unknown } },
    read: PlannedRead,
    run: () => Promise<unknown>,
  ): Promise<CachedAnswer>;
}

/**
 * The routes' read gate over a cache: `X-Cache` and `ETag` headers, and a 304 when `If-None-Match`
 * names the cached answer's tag (never for `cache=false`, which asks for the body).
 */
export function cachedReads(cache: ReadThrough): ReadGate {
  return async (input, read, run) => {
    const request = { ctx: input.ctx, method: input.req.method, header: (name: string) => input.req.get(name), params: input.params };
    const answer = await cache.serve(request, read, run);
    if (answer.state === 'off') return answer.value;
    const headers = { 'X-Cache': answer.state, ETag: answer.etag };
    if (answer.state !== 'bypass' && matchesTag(input.req.get('if-none-match'), answer.etag)) return new Reply(304, null, headers);
    return new Reply(200, null, headers, answer.body);
  };
}

/** Whether an `If-None-Match` header names the tag (weak tags compare by their value; `*` matches any). */
export function matchesTag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}
