import { expect } from 'chai';
import type { Response } from 'express';
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

  it('many streams are written 100 per turn of the event loop, so requests are served between the slices; every one gets its frame', async () => {
    const log: string[][] = [];
    const streams = Array.from({ length: 250 }, () => new SseStream(fakeResponse(log).res, () => undefined));
    streams[0].frame('e0');
    // queued right after the flush timer with the same delay (same millisecond): runs right after its first slice
    const probe = new Promise<number>((resolve) => setTimeout(() => resolve(log.filter((w) => w.length > 0).length), 20));
    streams.forEach((stream, i) => i > 0 && stream.frame(`e${i}`));
    const afterFirstSlice = await probe;
    expect(afterFirstSlice).to.equal(100);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(log.map((w) => w.join(''))).to.deep.equal(streams.map((_, i) => `e${i}`));
  });
});
