import type { Response } from 'express';
import type { ImportProgress } from './run-import';

/** At most this long between two `progress` events (decision 82: at least every second). */
const EVERY_MS = 500;

/**
 * `Accept: text/event-stream` on an import: `event: progress` with `{rows, written, errors}` at
 * least every second (a timer repeats the latest counts while a chunk is being written), then one
 * `event: done` (the summary) or `event: failed` (the error body).
 */
export class ProgressStream {
  private latest: ImportProgress = { rows: 0, written: 0, errors: 0 };
  private timer: NodeJS.Timeout | null = null;
  private lastSent = 0;

  constructor(private readonly res: Response) {}

  open(): void {
    this.res.status(200);
    this.res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    this.res.setHeader('Cache-Control', 'no-cache, no-transform');
    this.res.setHeader('X-Accel-Buffering', 'no');
    this.res.flushHeaders();
    this.send();
    this.timer = setInterval(() => this.send(), EVERY_MS);
    this.timer.unref();
  }

  update(progress: ImportProgress): void {
    this.latest = progress;
    if (this.timer && Date.now() - this.lastSent >= EVERY_MS) this.send();
  }

  /** The last event (after the cache was bumped, so a read that follows `done` sees the import). */
  finish(event: 'done' | 'failed', body: unknown): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.res.writableEnded) return;
    if (event === 'done') this.send();
    this.res.end(`event: ${event}\ndata: ${JSON.stringify(body)}\n\n`);
  }

  get opened(): boolean {
    return this.res.headersSent;
  }

  private send(): void {
    this.lastSent = Date.now();
    if (!this.res.writableEnded) this.res.write(`event: progress\ndata: ${JSON.stringify(this.latest)}\n\n`);
  }
}
