import { expect } from 'chai';
import { API, forEachDriver, type Rec } from '../support/contract-app';
import { ChangeStream, listen } from '../support/change-stream';
import { SlowReader } from '../support/slow-reader';

interface FeedState {
  stats(): { sheds: number; streamsReset: number; openStreams: number };
  close(): Promise<void>;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Issue 52: a write's answer never waits for the fan-out (the commit, the answer, then the feed,
 * in paced cycles), and past its bounds the feed sheds a resource's backlog with `reset` rather
 * than queueing it.
 */
forEachDriver('change feed under overload', (ctx) => {
  const apps: Array<{ server: { url: string; close(): Promise<void> }; app: Awaited<ReturnType<typeof ctx.exampleAppWith>> }> = [];
  let readers: Array<SlowReader | ChangeStream> = [];
  const start = async (changes: Record<string, unknown>) => {
    const app = await ctx.exampleAppWith({ changes });
    const server = await listen(app.app);
    apps.push({ app, server });
    const feed = (app.api as unknown as { changes: FeedState }).changes;
    const token = ctx.app.info.adminToken;
    const patch = async (id: unknown, body: Record<string, unknown>): Promise<number> => {
      const started = performance.now();
      const res = await fetch(`${server.url}${API}/products/${String(id)}`, { method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await res.arrayBuffer();
      expect(res.status).to.equal(200);
      return performance.now() - started;
    };
    const stream = async () => {
      const reader = await ChangeStream.open(`${server.url}${API}/products/changes`, { token });
      readers.push(reader);
      expect(reader.status).to.equal(200);
      return reader;
    };
    const slow = async (delayMs: number) => {
      const reader = await SlowReader.open(`${server.url}${API}/products/changes`, { token, delayMs });
      readers.push(reader);
      return reader;
    };
    return { feed, patch, stream, slow };
  };

  before(async () => {
    await ctx.reset();
  });
  afterEach(() => {
    for (const reader of readers) reader.close();
    readers = [];
  });
  after(async () => {
    for (const { app, server } of apps) {
      await (app.api as unknown as { changes: FeedState }).changes.close();
      await server.close();
      await app.close();
    }
  });

  it("a write's answer does not wait on 200 slow or stopped subscribers: its median stays near the one-subscriber median, and a reader that keeps up gets every event", async () => {
    const app = await start({ maxStreams: 400, maxStreamsPerCaller: 400 });
    const product: Rec = await ctx.product({ name: 'Overload' });
    const one = await app.stream();
    const alone: number[] = [];
    for (let i = 0; i < 15; i += 1) alone.push(await app.patch(product.id, { name: `alone ${i}` }));
    await one.take(15);
    const slow = [...(await Promise.all(Array.from({ length: 100 }, () => app.slow(50)))), ...(await Promise.all(Array.from({ length: 100 }, () => app.slow(0))))];
    for (const reader of slow.slice(100)) reader.stop();
    const crowded: number[] = [];
    for (let i = 0; i < 15; i += 1) crowded.push(await app.patch(product.id, { name: `crowded ${i}`, description: 'y'.repeat(2000) }));
    const events = await one.take(15, 10_000);
    expect(events.map((e) => e.data.model!.name)).to.deep.equal(Array.from({ length: 15 }, (_, i) => `crowded ${i}`));
    // generous for a shared machine: before issue 52 the fan-out to every stream ran before the answer
    expect(median(crowded)).to.be.below(3 * median(alone) + 30);
    expect(app.feed.stats().openStreams).to.equal(201);
  });

  it('a backlog past its bound is shed: the subscriber gets reset (with the newest id), the feed counts it, and the stream continues with the next event', async () => {
    const app = await start({ maxBacklogBytes: 4096 });
    const product: Rec = await ctx.product({ name: 'Shed' });
    const reader = await app.stream();
    const before = app.feed.stats().sheds;
    await app.patch(product.id, { description: 'z'.repeat(10_000) });
    const reset = await reader.next();
    expect(reset.type).to.equal('reset');
    expect(reset.lastEventId).to.be.a('string').and.not.equal('');
    expect(app.feed.stats().sheds).to.equal(before + 1);
    expect(app.feed.stats().streamsReset).to.be.at.least(1);
    await app.patch(product.id, { name: 'After the reset', description: 'short' });
    const next = await reader.next();
    expect([next.type, next.data.model!.name]).to.deep.equal(['updated', 'After the reset']);
    expect(reader.ended).to.equal(false);
  });
});
