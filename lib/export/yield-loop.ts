/** How long an export may hold the event loop before it lets other requests run (ms). */
const SLICE_MS = 20;

/**
 * A turn of the event loop every SLICE_MS of export work: building rows is synchronous, so a big
 * batch (or a costly cell) would otherwise hold every other request of the process until it ends.
 * Call `tick()` after each row; it resolves at once while the slice lasts.
 */
export function loopYielder(): { tick(): Promise<void> | null } {
  let since = performance.now();
  return {
    tick() {
      if (performance.now() - since < SLICE_MS) return null;
      return new Promise<void>((resolve) =>
        setImmediate(() => {
          since = performance.now();
          resolve();
        }),
      );
    },
  };
}
