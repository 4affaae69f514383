/**
 * The soak's change-feed subscribers: `count` streams on /products/changes, alternating between
 * the instances, each read to the end so none is dropped as a slow reader. Counts the events
 * received; a stream that fails or ends before close() is counted as failed.
 */
export interface Subscribers {
  /** Events received so far. */
  events(): number;
  /** Aborts every stream; the tallies at that moment. */
  close(): { events: number; open: number; failed: number };
}

export async function openSubscribers(bases: string[], token: string, count: number): Promise<Subscribers> {
  const controller = new AbortController();
  let events = 0;
  let open = 0;
  let failed = 0;
  let closing = false;
  const one = async (base: string): Promise<void> => {
    const res = await fetch(`${base}/products/changes`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: controller.signal });
    if (res.status !== 200 || !res.body) throw new Error(`subscribe: HTTP ${res.status}`);
    open += 1;
    const decoder = new TextDecoder();
    let rest = '';
    void (async () => {
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          rest += decoder.decode(chunk, { stream: true });
          let end = rest.indexOf('\n\n');
          while (end >= 0) {
            if (/^data:/m.test(rest.slice(0, end))) events += 1;
            rest = rest.slice(end + 2);
            end = rest.indexOf('\n\n');
          }
        }
        if (!closing) failed += 1;
      } catch {
        if (!closing) failed += 1;
      } finally {
        open -= 1;
      }
    })();
  };
  // opened a few at a time: 200 at once would be a connection storm, not the soak
  for (let i = 0; i < count; i += 10) {
    await Promise.all(Array.from({ length: Math.min(10, count - i) }, (_, j) => one(bases[(i + j) % bases.length])));
  }
  return {
    events: () => events,
    close: () => {
      closing = true;
      const tally = { events, open, failed };
      controller.abort();
      return tally;
    },
  };
}
