import { createHash } from 'node:crypto';

/** `<prefix>:v1:version:<MODEL>`: a model's version counter (never expires). */
export function versionKey(prefix: string, model: string): string {
  return `${prefix}:v1:version:${model}`;
}

/**
 * `<prefix>:v1:epoch`: a counter every entry key includes. Bumped when the cache comes back after
 * an outage (read-cache.ts): versions bumps that could not reach the store meanwhile would
 * otherwise let entries made before those writes be served again.
 */
export function epochKey(prefix: string): string {
  return `${prefix}:v1:epoch`;
}

/**
 * `<prefix>:v1:<hash>` over everything that can change the answer (spec rule 1): operation,
 * model, route, HTTP method, the canonical query (after scopes and transforms, so equal queries
 * share an entry), vary headers, the user, and the version of every model the read touches.
 */
export function entryKey(prefix: string, parts: Record<string, unknown>): string {
  return `${prefix}:v1:${createHash('sha256').update(JSON.stringify(parts)).digest('base64url')}`;
}

/** A strong entity tag of a serialized body. */
export function etagOf(body: string): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}
