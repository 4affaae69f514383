import type { AddressInfo } from 'node:net';
import http from 'node:http';
import type { Express } from 'express';
import { SseParser } from '../../lib/client/changes';

/** One event of a change stream as a test reads it. */
export interface StreamEvent {
  type: string;
  lastEventId: string;
  data: { id?: string | number; model?: Record<string, unknown> };
}

/** An app listening on a free port (the change feed needs a real socket). */
export async function listen(app: Express): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A change stream read by a test: events collected as they come, `next()` waits for the next one,
 * `none()` asserts that nothing arrives for a while, heartbeat comments counted.
 */
export class ChangeStream {
  readonly events: StreamEvent[] = [];
  heartbeats = 0;
  private read = 0;
  private raw = '';
  private wake: (() => void) | null = null;
  ended = false;

  private constructor(readonly status: number, readonly contentType: string | null) {}

  static async open(url: string, options: { token?: string | null; params?: Record<string, unknown>; lastEventId?: string } = {}): Promise<ChangeStream> {
    const target = new URL(url);
    for (const [key, value] of Object.entries(options.params ?? {})) target.searchParams.set(key, typeof value === 'string' ? value : JSON.stringify(value));
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
    const controller = new AbortController();
    const res = await fetch(target, { headers, signal: controller.signal });
    const stream = new ChangeStream(res.status, res.headers.get('content-type'));
    if (res.status !== 200 || !res.body) {
      const text = await res.text();
      stream.body = text ? (JSON.parse(text) as unknown) : null;
      stream.ended = true;
      return stream;
    }
    stream.abort = () => controller.abort();
    void stream.pump(res.body);
    return stream;
  }

  /** The error body of a refused stream. */
  body: unknown;
  private abort: () => void = () => undefined;

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const parser = new SseParser();
    const decoder = new TextDecoder();
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const text = decoder.decode(value, { stream: true });
        this.raw += text;
        this.heartbeats = (this.raw.match(/^: heartbeat$/gm) ?? []).length;
        for (const event of parser.push(text)) this.events.push({ type: event.type, lastEventId: event.lastEventId, data: JSON.parse(event.data) as StreamEvent['data'] });
        this.wake?.();
      }
    } catch {
      // aborted or dropped
    }
    this.ended = true;
    this.wake?.();
  }

  /** Waits for the next event (fails after `ms`). */
  async next(ms = 5000): Promise<StreamEvent> {
    const deadline = Date.now() + ms;
    while (this.read >= this.events.length) {
      if (this.ended) throw new Error('the stream ended');
      if (Date.now() > deadline) throw new Error(`no event within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.events[this.read++];
  }

  /** The next `n` events. */
  async take(n: number, ms = 5000): Promise<StreamEvent[]> {
    const out: StreamEvent[] = [];
    for (let i = 0; i < n; i += 1) out.push(await this.next(ms));
    return out;
  }

  /** Asserts that no further event arrives within `ms`. */
  async none(ms = 300): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (this.events.length > this.read) throw new Error(`unexpected event: ${JSON.stringify(this.events[this.read])}`);
  }

  /** Waits until `test` holds (polling), for heartbeats and the end of the stream. */
  async until(test: () => boolean, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  close(): void {
    this.abort();
  }
}
