import http from 'node:http';
import { SseParser } from '../../lib/client/changes';
import type { StreamEvent } from './change-stream';

/**
 * A change stream read over node:http, whose reading the test controls: `stop()` stops reading
 * (the socket fills, the server's writes block), `go()` reads again, `delayMs` pauses after each
 * chunk (a slow reader that keeps reading). Events are collected as they come.
 */
export class SlowReader {
  readonly events: StreamEvent[] = [];
  ended = false;
  status = 0;
  bytes = 0;
  private stopped = false;
  private res: http.IncomingMessage | null = null;
  private request: http.ClientRequest | null = null;

  private constructor(private readonly delayMs: number) {}

  static open(url: string, options: { token: string; lastEventId?: string; delayMs?: number }): Promise<SlowReader> {
    const reader = new SlowReader(options.delayMs ?? 0);
    const headers: Record<string, string> = { accept: 'text/event-stream', authorization: `Bearer ${options.token}` };
    if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
    return new Promise((resolve, reject) => {
      const parser = new SseParser();
      reader.request = http.get(url, { headers }, (res) => {
        reader.res = res;
        reader.status = res.statusCode ?? 0;
        res.setEncoding('utf8');
        let first = true;
        res.on('data', (text: string) => {
          reader.bytes += text.length;
          for (const event of parser.push(text)) reader.events.push({ type: event.type, lastEventId: event.lastEventId, data: JSON.parse(event.data) as StreamEvent['data'] });
          if (first) {
            first = false;
            resolve(reader);
          }
          if (reader.stopped) res.pause();
          else if (reader.delayMs > 0) {
            res.pause();
            setTimeout(() => {
              if (!reader.stopped) res.resume();
            }, reader.delayMs);
          }
        });
        res.on('close', () => {
          reader.ended = true;
          resolve(reader);
        });
      });
      reader.request.on('error', (error) => (reader.res ? (reader.ended = true) : reject(error)));
    });
  }

  /** Stops reading: what the server sends piles up in the sockets until they are full. */
  stop(): void {
    this.stopped = true;
    this.res?.pause();
  }

  /** Reads again. */
  go(): void {
    this.stopped = false;
    this.res?.resume();
  }

  /** Waits until `test` holds (polling). */
  async until(test: () => boolean, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms (events: ${this.events.map((e) => e.type).join(', ')})`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  close(): void {
    this.request?.destroy();
  }
}
