import { expect } from 'chai';
import type { Response } from 'express';
import { FLUSH_SLICE } from '../../../lib/changes/flush-cycle';
import { SseStream } from '../../../lib/changes/sse-stream';

/** A response that records what is written to it and in which flush it came. */
function fakeResponse(log: string[][]): { res: Response; writes: string[] } {
  const writes: string[] = [];
  log.push(writes);
  const res = { on: () => res, write: (text: string) => (writes.push(text), true), writableLength: 0, destroy: () => undefined };
  return { res: res as unknown as Response, writes };
}

describe('changes: SseStream batching', () => {
  it('frames of one stream share one write, in order, at most 20 ms after the first', async () => {
    const log: string[][] = [];
    const { res, writes } = fakeResponse(log);
    const stream = new SseStream(res, () => undefined);
    stream.frame('a');
    stream.frame('b');
    expect(writes).to.deep.equal([]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(writes).to.deep.equal(['ab']);
  });

  it('many streams are written FLUSH_SLICE (25) per turn of the event loop, so requests are served between the slices; every one gets its frame', async () => {
    const log: string[][] = [];
    const streams = Array.from({ length: 250 }, () => new SseStream(fakeResponse(log).res, () => undefined));
    streams.forEach((stream, i) => stream.frame(`e${i}`));
    // queued by the first write of the flush, so it runs before the next slice's turn (queued after the slice)
    const afterFirstSlice = await new Promise<number>((resolve) => {
      const first = log[0] as string[] & { push: (text: string) => number };
      const push = first.push.bind(first);
      first.push = (text: string) => {
        setImmediate(() => resolve(log.filter((w) => w.length > 0).length));
        return push(text);
      };
    });
    expect(FLUSH_SLICE).to.equal(25);
    expect(afterFirstSlice).to.equal(FLUSH_SLICE);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log.map((w) => w.join(''))).to.deep.equal(streams.map((_, i) => `e${i}`));
  });
});
