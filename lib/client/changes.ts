import { FilterBuilder, toOper, type FilterNode } from './filter';

/** One event of the change feed, shaped like a browser EventSource's MessageEvent (plus `json`). */
export interface ChangeMessage<R = Record<string, unknown>> {
  /**
   * `created`, `updated`, `deleted`, `restored`, `reset` (reload: events were missed), or
   * `revoked` (`{reason: 'unauthenticated' | 'forbidden'}`: the caller lost the right; the stream ends).
   */
  type: string;
  /** The `data` field as sent. */
  data: string;
  /** The `id` field: pass it as `lastEventId` to resume after it. */
  lastEventId: string;
  /** The data parsed: `{id, model}` for record events. */
  json: { id: string | number; model: R } | Record<string, never>;
}

/** A subscription filters on the record's own fields only (decision 61): its builder has no relations for `has()`. */
type OwnFilter<R, F extends keyof R & string> = FilterBuilder<R, F, { record: R & object; create: object; update: object; relations: Record<never, never> }>;

export interface ChangesOptions<R, F extends keyof R & string = keyof R & string> {
  filter?: (f: OwnFilter<R, F>) => FilterNode;
  /** Raw `oper` (the list's filter syntax, own fields only). */
  oper?: unknown;
  attr?: Partial<Pick<R, F>>;
  select?: ReadonlyArray<F>;
  /** Resume after this event (`Last-Event-ID`). */
  lastEventId?: string;
  /** Ends the stream (the iterator returns). */
  signal?: AbortSignal;
}

export interface ChangesConnection {
  baseUrl: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

/**
 * Reads Server-Sent Events from text chunks (the WHATWG rules: `field: value` lines, a blank line
 * ends an event, comment lines start with `:`, CR, LF and CRLF all end lines).
 */
export class SseParser {
  private buffer = '';
  private type = '';
  private data: string[] = [];
  private lastId = '';

  /** Feeds one chunk; answers the events it completed. */
  push(chunk: string): Array<{ type: string; data: string; lastEventId: string }> {
    this.buffer += chunk;
    const out: Array<{ type: string; data: string; lastEventId: string }> = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      // a lone CR at the end may be the first half of CRLF: wait for more
      if (!match || (match[0] === '\r' && match.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      if (line === '') {
        if (this.data.length > 0) out.push({ type: this.type || 'message', data: this.data.join('\n'), lastEventId: this.lastId });
        this.type = '';
        this.data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') this.type = value;
      else if (field === 'data') this.data.push(value);
      else if (field === 'id' && !value.includes('\0')) this.lastId = value;
    }
    return out;
  }
}

function encode(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * `GET /{resource}/changes` as an async iterator (decisions 60-62), over fetch: works in Node 20
 * (no EventSource there) and in browsers, and sends the client's headers (a bearer token), which
 * a browser EventSource cannot. It does not reconnect by itself: resume with `lastEventId`.
 */
export async function* changes<R = Record<string, unknown>>(connection: ChangesConnection, resource: string, options: ChangesOptions<R> = {}): AsyncGenerator<ChangeMessage<R>> {
  const url = new URL(`${connection.baseUrl.replace(/\/$/, '')}/${resource}/changes`);
  const oper = options.filter ? toOper(options.filter(new FilterBuilder() as OwnFilter<R, keyof R & string>)) : options.oper;
  if (oper !== undefined) url.searchParams.set('oper', encode(oper));
  if (options.attr) url.searchParams.set('attr', encode(options.attr));
  if (options.select) url.searchParams.set('select', options.select.join(','));
  const headers: Record<string, string> = { accept: 'text/event-stream', ...connection.headers };
  if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
  const res = await (connection.fetch ?? fetch)(url, { headers, signal: options.signal });
  if (!res.ok || !res.body) {
    const text = await res.text();
    throw Object.assign(new Error(`GET ${url.pathname} answered ${res.status}: ${text}`), { status: res.status, body: text ? (JSON.parse(text) as unknown) : null });
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (options.signal?.aborted) return;
        throw error;
      }
      if (chunk.done) return;
      for (const event of parser.push(decoder.decode(chunk.value, { stream: true }))) {
        yield { ...event, json: JSON.parse(event.data) as ChangeMessage<R>['json'] };
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
