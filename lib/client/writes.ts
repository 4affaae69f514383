import { ApiRequestError, type ClientOptions } from './client';

/**
 * Decisions 79-81 from the typed client, as functions of their own over `ClientOptions` (the
 * resource clients are being reworked separately): an upsert, and a single-record update with
 * `If-Match` that retries a 412 only when asked. Every call may carry an `Idempotency-Key`.
 */

export interface WriteHeaders {
  /** Makes the call safe to repeat (decision 80). */
  idempotencyKey?: string;
}

export type UpsertAction = 'created' | 'updated' | 'unchanged';

export interface UpsertAnswer<R> {
  created: number;
  updated: number;
  unchanged: number;
  models: Array<{ action: UpsertAction; model: R }>;
}

interface Answer<T> {
  status: number;
  headers: Headers;
  body: T;
}

async function send<T>(options: ClientOptions, method: string, path: string, body: unknown, headers: Record<string, string>): Promise<Answer<T>> {
  const res = await (options.fetch ?? fetch)(options.baseUrl.replace(/\/$/, '') + path, {
    method,
    headers: { accept: 'application/json', 'content-type': 'application/json', ...options.headers, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const parsed = text ? (JSON.parse(text) as unknown) : null;
  if (!res.ok) throw new ApiRequestError(res.status, (parsed ?? {}) as ApiRequestError['body']);
  return { status: res.status, headers: res.headers, body: parsed as T };
}

const keyHeader = (w: WriteHeaders): Record<string, string> => (w.idempotencyKey ? { 'Idempotency-Key': w.idempotencyKey } : {});

/** `POST /{resource}/upsert`: records under the resource's MODEL key, matched by `match` (or the one declared set). */
export async function upsert<R>(options: ClientOptions, resource: string, model: string, records: Array<Partial<R>>, extra: WriteHeaders & { match?: string[] } = {}): Promise<UpsertAnswer<R>> {
  const body = { ...(extra.match ? { match: extra.match } : {}), [model]: records };
  return (await send<UpsertAnswer<R>>(options, 'POST', `/${resource}/upsert`, body, keyHeader(extra))).body;
}

/**
 * `PATCH /{resource}/{id}` with `If-Match`: `change` computes the changes from the record as read
 * (the current one after a 412, when `retries` allows another attempt).
 */
export async function updateIfMatch<R extends Record<string, unknown>>(
  options: ClientOptions,
  resource: string,
  id: string | number,
  change: (current: R) => Partial<R>,
  extra: WriteHeaders & { retries?: number } = {},
): Promise<{ model: R; etag: string | null }> {
  for (let attempt = 0; ; attempt += 1) {
    const read = await (options.fetch ?? fetch)(`${options.baseUrl.replace(/\/$/, '')}/${resource}/${id}`, { headers: { accept: 'application/json', ...options.headers } });
    const current = (await read.json()) as R;
    if (!read.ok) throw new ApiRequestError(read.status, current as ApiRequestError['body']);
    const etag = read.headers.get('etag');
    try {
      // a retry sends other changes: under a key of its own (`<key>.<attempt>`), not a reuse (422)
      const key = extra.idempotencyKey && attempt > 0 ? { idempotencyKey: `${extra.idempotencyKey}.${attempt}` } : extra;
      const answer = await send<{ model: R }>(options, 'PATCH', `/${resource}/${id}`, change(current), { ...(etag ? { 'If-Match': etag } : {}), ...keyHeader(key) });
      return { model: answer.body.model, etag: answer.headers.get('etag') };
    } catch (error) {
      if (!(error instanceof ApiRequestError) || error.status !== 412 || attempt >= (extra.retries ?? 0)) throw error;
    }
  }
}
