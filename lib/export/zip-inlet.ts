import type { Writable } from 'node:stream';

/** Where exceljs hands a worksheet's XML to the zip, and whether that hand-over is backed up. */
export interface ZipInlet {
  stream: Writable;
  /** True while the inlet holds more than its high-water mark: wait for its 'drain'. */
  full(): boolean;
}

interface OldWritableState {
  length?: unknown;
  highWaterMark?: unknown;
}

/**
 * The stream through which exceljs's streaming writer hands a worksheet's XML to the zip, or null
 * when exceljs is not shaped as expected (then only the response's own backpressure applies).
 *
 * Why: the worksheet's buffer (exceljs StreamBuf) writes each 64 KB block into the zip's inlet (a
 * readable-stream 2 PassThrough that archiver puts in front of deflate) without looking at
 * write()'s answer, and the response's backpressure stops at that PassThrough. Row XML is made
 * faster than deflate packs it, so the sheet piled up there as Buffers outside the JS heap.
 */
export function zipInlet(sheet: unknown): ZipInlet | null {
  // `stream` is exceljs 4's lazily opened StreamBuf; `pipes[0]` the PassThrough archiver added
  const buffer = (sheet as { stream?: { pipes?: unknown[] } }).stream;
  const inlet = Array.isArray(buffer?.pipes) ? buffer.pipes[0] : undefined;
  if (!inlet || typeof inlet !== 'object' || typeof (inlet as Writable).once !== 'function') return null;
  // readable-stream 2 has no writableLength / writableNeedDrain getters: read its state
  const state = (inlet as { _writableState?: OldWritableState })._writableState;
  if (!state || typeof state.length !== 'number' || typeof state.highWaterMark !== 'number') return null;
  return { stream: inlet as Writable, full: () => (state.length as number) >= (state.highWaterMark as number) };
}
