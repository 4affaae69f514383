import type { Writable } from 'node:stream';

/** Waits while the response's buffer is full, so a slow client slows the database reads down. */
export function drained(out: Writable, signal: AbortSignal): Promise<void> {
  if (!out.writableNeedDrain || signal.aborted) return Promise.resolve();
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
