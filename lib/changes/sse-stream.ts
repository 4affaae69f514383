import type { Response } from 'express';

/** The text of one event. */
export function eventFrame(id: string | null, name: string, data: string): string {
  return `${id === null ? '' : `id: ${id}\n`}event: ${name}\ndata: ${data}\n\n`;
}

/**
 * One Server-Sent Events response: frames written as they come, a comment line as heartbeat.
 * Bounded memory: when the socket does not drain and the unsent bytes pass `maxBufferedBytes`,
 * the connection is destroyed (a subscriber that does not read is dropped, decision 62).
 */
export class SseStream {
  private closed = false;

  constructor(
    private readonly res: Response,
    private readonly maxBufferedBytes: number,
    onClose: () => void,
  ) {
    res.on('close', () => {
      this.closed = true;
      onClose();
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** 200 with the event-stream headers, sent at once (proxies told not to buffer). */
  open(): void {
    this.res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    this.res.flushHeaders();
    this.res.socket?.setNoDelay(true);
    this.write(': stream open\n\n');
    this.flush();
  }

  /** An event: `id`, `event`, one `data` line of JSON (JSON text holds no line break). */
  event(id: string | null, name: string, data: string): void {
    this.write(eventFrame(id, name, data));
  }

  /** A frame made by eventFrame (shared by the subscribers who see an event the same way). */
  frame(text: string): void {
    this.write(text);
  }

  comment(text: string): void {
    this.write(`: ${text}\n\n`);
  }

  /** Ends the response (graceful shutdown). */
  end(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.res.end();
  }

  /**
   * Frames wait at most FLUSH_MS and go out as one write per stream: at 100 commits a second and
   * 1,000 streams, one write per event and stream (100,000 writes a second) saturated the server;
   * batched, several events share each write.
   */
  private write(frame: string): void {
    if (this.closed) return;
    if (this.pending === '') dirty.add(this);
    this.pending += frame;
    if (this.pending.length > this.maxBufferedBytes) this.flush();
    scheduleFlush();
  }

  private pending = '';

  /** Writes what is pending; a stream whose unsent bytes stay over the bound is dropped. */
  flush(): void {
    const text = this.pending;
    this.pending = '';
    dirty.delete(this);
    if (this.closed || text === '') return;
    const flushed = this.res.write(text);
    if (!flushed && this.res.writableLength > this.maxBufferedBytes) {
      this.closed = true;
      this.res.destroy();
    }
  }
}

/** How long a frame may wait for others to share its write (ms). */
const FLUSH_MS = 20;

/**
 * Streams written per turn of the event loop: a thousand writes at once held every request that
 * arrived meanwhile for the whole burst; in slices, requests are served between them.
 */
const FLUSH_SLICE = 100;

/** Streams with frames waiting, written together every FLUSH_MS. */
const dirty = new Set<SseStream>();
let scheduled = false;

function scheduleFlush(): void {
  if (scheduled) return;
  scheduled = true;
  setTimeout(() => {
    scheduled = false;
    flushSlices([...dirty], 0);
  }, FLUSH_MS);
}

/** Flushes `streams` from `from` on, FLUSH_SLICE per turn (a frame added meanwhile joins its stream's write). */
function flushSlices(streams: SseStream[], from: number): void {
  const end = Math.min(from + FLUSH_SLICE, streams.length);
  for (let i = from; i < end; i += 1) streams[i].flush();
  if (end < streams.length) setImmediate(flushSlices, streams, end);
}
