import type { Request, Response } from 'express';
import { mergeParams } from '../query/merge-params';
import { parseQueryString, rawQueryOf } from '../query/parse-query-string';
import { toBoolean } from '../query/read-boolean';

/**
 * `cache=false` (query or body) asks for a fresh answer: 200 with the body even when If-None-Match
 * matches (decision in docs/decisions.md), as the read cache answers it.
 */
function bypassesCache(req: Request): boolean {
  let query: Record<string, unknown>;
  try {
    // read as the route read it: from the URL, whatever the app's query parser (decision 64)
    query = parseQueryString(rawQueryOf(req.url));
  } catch {
    return false;
  }
  // the parameters as mergeParams merges them: an object body's value wins
  const value = mergeParams(query, req.body).cache;
  return value !== undefined && toBoolean(value) === false;
}

/**
 * For answers sent with Express's `res.send` (a Reply: cached entries, hierarchy reads): with
 * `cache=false` the request stops being conditional, so `res.send` cannot turn it into a 304.
 */
export function dropConditionsOnBypass(req: Request): void {
  if (!req.headers['if-none-match'] && !req.headers['if-modified-since']) return;
  if (!bypassesCache(req)) return;
  delete req.headers['if-none-match'];
  delete req.headers['if-modified-since'];
}

/**
 * A 200 JSON answer as Express's `res.send` gives it (the app's ETag setting on GET and HEAD, 304 when fresh unless cache=false, no
 * body for HEAD, Content-Length), without its header normalization and type lookups: the text is
 * the library's own JSON, so its type and charset are known.
 */
export function sendJson(req: Request, res: Response, json: string): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  const etagOf = req.app.get('etag fn') as ((body: Buffer | string, encoding?: BufferEncoding) => string | undefined) | undefined;
  let body: Buffer | string = json;
  // only a GET or HEAD can be revalidated with it: a write's answer is not hashed (Express would)
  if (typeof etagOf === 'function' && (req.method === 'GET' || req.method === 'HEAD') && !res.getHeader('ETag')) {
    body = Buffer.from(json, 'utf8');
    const etag = etagOf(body);
    if (etag) res.setHeader('ETag', etag);
  }
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length);
  if (req.fresh && !bypassesCache(req)) {
    res.statusCode = 304;
    res.removeHeader('Content-Type');
    res.removeHeader('Content-Length');
    res.end();
    return;
  }
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}
