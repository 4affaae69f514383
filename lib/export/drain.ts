import type { Writable } from 'node:stream';

/**
 * Waits while the stream's buffer is full, so a slow client slows the database reads down;
 * `full` says when it is (default: the stream's own writableNeedDrain).
 */
export function drained(out: Writable, signal: AbortSignal, full: () => boolean = () => out.writableNeedDrain): Promise<void> {
  if (!full() || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      out.off('drain', done);
      out.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
    signal.addEventListener('abort', done);
  });
}
