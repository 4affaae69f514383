import type { Response } from 'express';
import { flushCycle } from './flush-cycle';

/** The text of one event. */
export function eventFrame(id: string | null, name: string, data: string): string {
  return `${id === null ? '' : `id: ${id}\n`}event: ${name}\ndata: ${data}\n\n`;
}

/**
 * Frames a stream takes while it is free before it waits for its batch to go out: past this the
 * events stay in the shared replay buffer and are rendered as the socket drains (decision 71).
 */
export const PENDING_CAP = 256 * 1024;

/**
 * One Server-Sent Events response, written as fast as its socket drains (decision 71): frames
 * wait for the feed's next write cycle (flush-cycle.ts) to share one write; once `res.write()` returns false the stream is
 * `blocked` and takes no event until 'drain'. Then, and after every write the socket took at once,
 * `onWritable` lets its subscriber render what it still owes from the replay buffer. So a stream
 * holds at most one batch and what its socket has not sent, whatever its reader's speed.
 */
export class SseStream {
  private closed = false;
  private blocked = false;
  private pending = '';

  constructor(
    private readonly res: Response,
    onClose: () => void,
    private readonly onWritable: () => void = () => undefined,
  ) {
    res.on('close', () => {
      this.closed = true;
      flushCycle.remove(this);
      onClose();
    });
    res.on('drain', () => {
      this.blocked = false;
      if (!this.closed) this.onWritable();
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** True while the socket holds more than it takes at once (a slow or stopped reader), until 'drain'. */
  get isBlocked(): boolean {
    return this.blocked;
  }

  /** True when an event frame may be added now (open, the socket keeping up, the batch small). */
  get canTake(): boolean {
    return !this.closed && !this.blocked && this.pending.length < PENDING_CAP;
  }

  /** Bytes given to this stream and not yet sent: the batch and what the socket still holds. */
  get unsent(): number {
    return this.pending.length + (this.res.writableLength ?? 0);
  }

  /** 200 with the event-stream headers, sent at once (proxies told not to buffer). */
  open(): void {
    this.res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      'X-Accel-Buffering': 'no',
    });
    // HTTP/1.1: the body runs until the connection closes, not in chunks: a stream never ends to be
    // reused, and each chunk's framing cost a 4-part writev per event batch and stream (issue 52)
    if (this.res.req?.httpVersion === '1.1') {
      this.res.removeHeader('Transfer-Encoding');
      this.res.set('Connection', 'close');
    } else this.res.set('Connection', 'keep-alive');
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

  /** A comment (heartbeat); skipped while the socket is full: the stream is not idle then. */
  comment(text: string): void {
    if (!this.blocked) this.write(`: ${text}\n\n`);
  }

  /** Ends the response after what is pending (graceful shutdown, a revoked stream). */
  end(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.res.end();
  }

  /**
   * Frames wait for the next cycle of the feed's writer (flush-cycle.ts) and go out as one write
   * per stream: at 100 commits a second and 1,000 streams, one write per event and stream (100,000
   * writes a second) saturated the server; batched, several events share each write.
   */
  private write(frame: string): void {
    if (this.closed) return;
    if (this.pending === '') flushCycle.add(this);
    this.pending += frame;
  }

  /**
   * Writes what is pending at the next turn rather than after FLUSH_MS: a backlog goes out batch
   * after batch as fast as the socket takes it (a catch-up is one reader's, nothing to share).
   */
  hurry(): void {
    if (this.hurried || this.pending === '') return;
    this.hurried = true;
    setImmediate(() => {
      this.hurried = false;
      this.flush();
    });
  }

  private hurried = false;

  /** Writes what is pending; a socket that did not take it all blocks the stream until 'drain'. */
  flush(): void {
    const text = this.pending;
    this.pending = '';
    flushCycle.remove(this);
    if (this.closed || text === '') return;
    if (!this.res.write(text)) this.blocked = true;
    // the socket took it: the subscriber may owe more (a backlog is sent batch after batch)
    else this.onWritable();
  }
}
