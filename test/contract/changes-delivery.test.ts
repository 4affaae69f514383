import { expect } from 'chai';
import supertest from 'supertest';
import { API, forEachDriver, type Rec } from '../support/contract-app';
import { ChangeStream, listen, type StreamEvent } from '../support/change-stream';
import { SlowReader } from '../support/slow-reader';

interface FeedState {
  openStreams: number;
  streamStates(): Array<{ model: string; userId: string | null; blocked: boolean; held: boolean; owed: number }>;
  buffered(model: string): { events: number; bytes: number };
  close(): Promise<void>;
}

const BIG = 900_000;
const big = (n: number) => `${n}:${'x'.repeat(BIG)}`;
const described = (events: StreamEvent[]) => events.map((e) => (e.type === 'reset' ? 'reset' : String(e.data.model!.description).split(':')[0]));

/**
 * Decision 71: a stream is written as fast as its socket drains, never cut off while its reader
 * reads; a reader too far behind gets one `reset` and goes on from the newest event; a
 * `Last-Event-ID` resume streams its backlog as the socket drains; the replay buffer is bounded in
 * bytes as well as in events.
 */
forEachDriver('change feed delivery', (ctx) => {
  const apps: Array<{ server: { url: string; close(): Promise<void> }; app: Awaited<ReturnType<typeof ctx.exampleAppWith>> }> = [];
  let readers: Array<SlowReader | ChangeStream> = [];
  const start = async (changes: Record<string, unknown>) => {
    const app = await ctx.exampleAppWith({ changes });
    const server = await listen(app.app);
    apps.push({ app, server });
    const feed = (app.api as unknown as { changes: FeedState }).changes;
    const as = (token: string) => ({
      patch: (id: unknown, body: Record<string, unknown>) => supertest(app.app).patch(`${API}/products/${String(id)}`).set('Authorization', `Bearer ${token}`).send(body),
    });
    const write = as(ctx.app.info.adminToken);
    const slow = async (options: { delayMs?: number; lastEventId?: string } = {}) => {
      const reader = await SlowReader.open(`${server.url}${API}/products/changes`, { token: ctx.app.info.adminToken, ...options });
      readers.push(reader);
      expect(reader.status).to.equal(200);
      return reader;
    };
    return { feed, write, slow, server };
  };
  const products = async (n: number): Promise<Rec[]> => {
    const out: Rec[] = [];
    for (let i = 0; i < n; i += 1) out.push(await ctx.product({ name: `Big ${i}` }));
    return out;
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

  describe('with the default bounds', () => {
    let app: Awaited<ReturnType<typeof start>>;
    before(async () => {
      app = await start({});
    });

    it('four 900 KB updates at once to a slow reader that keeps reading: all four arrive, in order, whole; the stream stays open', async () => {
      const [a, b, c, d] = await products(4);
      const reader = await app.slow({ delayMs: 15 });
      const answers = await Promise.all([a, b, c, d].map((p, i) => app.write.patch(p.id, { description: big(i + 1) })));
      expect(answers.map((r) => r.status)).to.deep.equal([200, 200, 200, 200]);
      await reader.until(() => reader.events.length >= 4, 20_000);
      expect(reader.events.map((e) => e.type)).to.deep.equal(['updated', 'updated', 'updated', 'updated']);
      expect(described(reader.events).sort()).to.deep.equal(['1', '2', '3', '4']);
      expect(reader.events.every((e) => String(e.data.model!.description).length === BIG + 2)).to.equal(true);
      expect(reader.ended).to.equal(false);
      expect(app.feed.streamStates()).to.have.length(1);
      expect(app.feed.streamStates()[0]).to.include({ held: false, owed: 0 });
    });

    it('a Last-Event-ID resume with more than 1 MiB of backlog streams the whole backlog, in order, then live events', async () => {
      const [a, b, c] = await products(3);
      const first = await app.slow();
      await app.write.patch(a.id, { name: 'Mark' }).expect(200);
      await first.until(() => first.events.length === 1);
      const mark = first.events[0].lastEventId;
      first.close();
      for (const [i, p] of [a, b, c].entries()) await app.write.patch(p.id, { description: big(i + 1) }).expect(200);
      const resumed = await app.slow({ lastEventId: mark, delayMs: 5 });
      await resumed.until(() => resumed.events.length >= 3, 20_000);
      expect(described(resumed.events)).to.deep.equal(['1', '2', '3']);
      expect(resumed.bytes).to.be.above(2.5 * 1024 * 1024);
      await app.write.patch(a.id, { description: 'live:1' }).expect(200);
      await resumed.until(() => resumed.events.length === 4);
      expect(described(resumed.events)).to.deep.equal(['1', '2', '3', 'live']);
      expect(resumed.ended).to.equal(false);
    });
  });

  describe('with small bounds (buffer 2 MiB, 256 KiB of lag)', () => {
    let app: Awaited<ReturnType<typeof start>>;
    before(async () => {
      app = await start({ bufferBytes: 2 * 1024 * 1024, maxBufferedBytes: 256 * 1024 });
    });

    it('the replay buffer holds at most its bytes (the newest events), whatever their number', async () => {
      const [a] = await products(1);
      const reader = await app.slow();
      for (let i = 1; i <= 6; i += 1) await app.write.patch(a.id, { description: big(i) }).expect(200);
      await reader.until(() => reader.events.length === 6, 20_000);
      const held = app.feed.buffered('product');
      expect(held.bytes).to.be.at.most(2 * 1024 * 1024);
      expect(held.events).to.equal(2);
    });

    it('a resume whose backlog left the buffer: exactly one reset, then the live events', async () => {
      const [a] = await products(1);
      const first = await app.slow();
      await app.write.patch(a.id, { name: 'Mark 2' }).expect(200);
      await first.until(() => first.events.length === 1);
      const mark = first.events[0].lastEventId;
      first.close();
      for (let i = 1; i <= 4; i += 1) await app.write.patch(a.id, { description: big(i) }).expect(200);
      const resumed = await app.slow({ lastEventId: mark });
      await resumed.until(() => resumed.events.length === 1);
      expect(resumed.events[0].type).to.equal('reset');
      await app.write.patch(a.id, { description: 'after:1' }).expect(200);
      await resumed.until(() => resumed.events.length === 2);
      expect(described(resumed.events)).to.deep.equal(['reset', 'after']);
      expect(resumed.ended).to.equal(false);
    });

    it('a reader that stops reading is not cut off: it gets one reset when it reads again, then the newest events', async () => {
      const [a] = await products(1);
      const reader = await app.slow();
      reader.stop();
      // until the server's socket is full (the kernel's buffers take a few MB first)
      let i = 0;
      while (!app.feed.streamStates()[0]?.blocked && i < 40) await app.write.patch(a.id, { description: big((i += 1)) }).expect(200);
      expect(app.feed.streamStates()[0]).to.include({ blocked: true });
      for (let k = 0; k < 3; k += 1) await app.write.patch(a.id, { description: big((i += 1)) }).expect(200);
      expect(app.feed.streamStates()[0].owed).to.be.above(0);
      expect(app.feed.openStreams).to.equal(1);
      reader.go();
      await reader.until(() => reader.events.some((e) => e.type === 'reset'), 20_000);
      await app.write.patch(a.id, { description: 'newest:1' }).expect(200);
      await reader.until(() => reader.events.at(-1)?.type === 'updated' && String(reader.events.at(-1)!.data.model!.description).startsWith('newest'));
      const types = reader.events.map((e) => e.type);
      expect(types.filter((t) => t === 'reset')).to.have.length(1);
      // what came before the reset came in order, without a gap
      const before = described(reader.events.slice(0, types.indexOf('reset'))).map(Number);
      expect(before).to.deep.equal(before.map((_, k) => k + 1));
      expect(reader.ended).to.equal(false);
      expect(app.feed.streamStates()[0]).to.include({ blocked: false, owed: 0 });
    });
  });
});
