import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** Waits while the response's buffer is full, so a slow client slows the database reads down. */
export async function drained(out: Writable, signal: AbortSignal): Promise<void> {
  if (!out.writableNeedDrain || signal.aborted) return;
  await Promise.race([once(out, 'drain'), once(out, 'close'), once(signal, 'abort')]);
}
