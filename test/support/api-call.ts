/** One answer of the API over a real socket, with what fault and cache tests read of it. */
export interface ApiAnswer<B = Record<string, unknown>> {
  status: number;
  body: B;
  /** `X-Cache` (hit, miss, bypass) or null. */
  cache: string | null;
  retryAfter: string | null;
  ms: number;
}

/** A request under `/api/v1` with a bearer token; a hanging request fails the test after 15 s instead of holding it. */
export async function apiCall<B = Record<string, unknown>>(base: string, method: string, path: string, token: string, body?: object): Promise<ApiAnswer<B>> {
  const started = Date.now();
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: (text ? JSON.parse(text) : {}) as B,
    cache: res.headers.get('x-cache'),
    retryAfter: res.headers.get('retry-after'),
    ms: Date.now() - started,
  };
}
