import { expect } from 'chai';
import supertest from 'supertest';
import { API, forEachDriver } from '../support/contract-app';
import { ChangeStream, listen, type StreamEvent } from '../support/change-stream';
import { exampleGrants } from '../../example-app/auth';

interface FeedState {
  openStreams: number;
  streamStates(): Array<{ model: string; userId: string | null; blocked: boolean; held: boolean; owed: number }>;
  close(): Promise<void>;
}

const reasonOf = (event: StreamEvent) => (event.data as { reason?: string }).reason;

/**
 * Decision 70: a change stream follows its subscriber's rights. After a write to the subscriber's
 * own user record the stream is checked again before its next event; every REST_CHANGES_REAUTH_S
 * every stream is. Fewer rights: the stream goes on under them; no user or no list permission:
 * `event: revoked` with the reason, then the end. And the per-caller share of the stream bound.
 */
forEachDriver('change feed follows rights', (ctx) => {
  let server: { url: string; close(): Promise<void> };
  let open: ChangeStream[] = [];
  const feed = async (resource: string, token: string, base = server.url): Promise<ChangeStream> => {
    const stream = await ChangeStream.open(`${base}${API}/${resource}/changes`, { token });
    open.push(stream);
    return stream;
  };
  const state = () => (ctx.app.api as unknown as { changes: FeedState }).changes;
  const admin = () => ctx.request();
  const mine = (userId: unknown) => state().streamStates().filter((s) => s.userId === String(userId));

  before(async () => {
    await ctx.reset();
    server = await listen(ctx.app.app);
  });
  afterEach(() => {
    for (const stream of open) stream.close();
    open = [];
  });
  after(async () => {
    await server.close();
  });

  it('an admin demoted to viewer: the next event has no cost, and the stream goes on', async () => {
    const member = await ctx.member(['admin']);
    const stream = await feed('products', member.token);
    expect(stream.status).to.equal(200);
    await ctx.product({ name: 'Before demotion', cost: 5 });
    const [before] = await stream.take(1);
    expect(before.data.model).to.include({ name: 'Before demotion', cost: 5 });
    const demoted = await admin().patch(`${API}/users/${member.user.id}`).send({ roles: ['viewer'] });
    expect(demoted.status, demoted.text).to.equal(200);
    // written at once: the stream is held until its re-check answers, never rendered as an admin's
    await ctx.product({ name: 'After demotion', cost: 6 });
    const [after] = await stream.take(1);
    expect(after.type).to.equal('created');
    expect(after.data.model!.name).to.equal('After demotion');
    expect(after.data.model).to.not.have.property('cost');
    expect(stream.ended).to.equal(false);
    expect(mine(member.user.id)).to.deep.equal([{ model: 'product', userId: String(member.user.id), blocked: false, held: false, owed: 0 }]);
  });

  it('roles emptied: event revoked {"reason":"forbidden"} before any other event, and the stream closes', async () => {
    const member = await ctx.member(['viewer']);
    const stream = await feed('products', member.token);
    await admin().patch(`${API}/users/${member.user.id}`).send({ roles: [] }).expect(200);
    await ctx.product({ name: 'Not for the emptied' });
    const [revoked] = await stream.take(1);
    expect([revoked.type, revoked.data]).to.deep.equal(['revoked', { reason: 'forbidden' }]);
    await stream.until(() => stream.ended);
    expect(stream.events.map((e) => e.type)).to.deep.equal(['revoked']);
    expect(mine(member.user.id)).to.deep.equal([]);
  });

  it('user deleted: event revoked {"reason":"unauthenticated"}, and the stream closes', async () => {
    const member = await ctx.member(['viewer']);
    const stream = await feed('products', member.token);
    await admin().delete(`${API}/users/${member.user.id}`).expect(200);
    await ctx.product({ name: 'Not for the deleted' });
    const [revoked] = await stream.take(1);
    expect([revoked.type, reasonOf(revoked)]).to.deep.equal(['revoked', 'unauthenticated']);
    await stream.until(() => stream.ended);
    expect(stream.events).to.have.length(1);
    expect(mine(member.user.id)).to.deep.equal([]);
  });

  it('token rotated: the stream opened with the old token is revoked as unauthenticated; the new token opens one', async () => {
    const member = await ctx.member(['viewer']);
    const stream = await feed('products', member.token);
    const rotated = ctx.unique('rotated');
    await admin().patch(`${API}/users/${member.user.id}`).send({ api_token: rotated }).expect(200);
    await ctx.product({ name: 'Not for the old token' });
    const [revoked] = await stream.take(1);
    expect([revoked.type, reasonOf(revoked)]).to.deep.equal(['revoked', 'unauthenticated']);
    await stream.until(() => stream.ended);
    const renewed = await feed('products', rotated);
    expect(renewed.status).to.equal(200);
    await ctx.product({ name: 'For the new token' });
    expect((await renewed.take(1))[0].data.model!.name).to.equal('For the new token');
  });

  it('a subscription whose filter or select names a field the new rights hide (cost) is revoked as forbidden, not narrowed', async () => {
    const member = await ctx.member(['admin']);
    const byCost = await ChangeStream.open(`${server.url}${API}/products/changes`, { token: member.token, params: { oper: { and: ['cost|>|100'] } } });
    const withCost = await ChangeStream.open(`${server.url}${API}/products/changes`, { token: member.token, params: { select: 'name,cost' } });
    open.push(byCost, withCost);
    expect([byCost.status, withCost.status]).to.deep.equal([200, 200]);
    await admin().patch(`${API}/users/${member.user.id}`).send({ roles: ['viewer'] }).expect(200);
    await ctx.product({ name: 'Dear', cost: 500 });
    for (const stream of [byCost, withCost]) {
      const [revoked] = await stream.take(1);
      expect([revoked.type, reasonOf(revoked)]).to.deep.equal(['revoked', 'forbidden']);
      await stream.until(() => stream.ended);
      expect(stream.events).to.have.length(1);
    }
  });

  it("a write to another user's record does not hold the stream; its events keep coming", async () => {
    const member = await ctx.member(['viewer']);
    const other = await ctx.member(['viewer']);
    const stream = await feed('products', member.token);
    await admin().patch(`${API}/users/${other.user.id}`).send({ roles: [] }).expect(200);
    await ctx.product({ name: 'Still for the member' });
    expect((await stream.take(1))[0].data.model!.name).to.equal('Still for the member');
    expect(mine(member.user.id).map((s) => s.held)).to.deep.equal([false]);
  });

  describe('the periodic re-check (REST_CHANGES_REAUTH_S = 1) and the per-caller share', () => {
    let other: Awaited<ReturnType<typeof ctx.exampleAppWith>>;
    let otherServer: { url: string; close(): Promise<void> };
    const otherFeed = () => (other.api as unknown as { changes: FeedState; permissions: { reload(grants: unknown): void } });
    before(async () => {
      other = await ctx.exampleAppWith({ changes: { reauthSeconds: 1, maxStreams: 20 } });
      otherServer = await listen(other.app);
    });
    after(async () => {
      await otherFeed().changes.close();
      await otherServer.close();
      await other.close();
    });

    it('grants changed without any write (permissions.reload): within the window a viewer loses the list permission and is revoked as forbidden', async () => {
      const viewer = await ctx.member(['viewer']);
      const editor = await ctx.member(['editor']);
      const viewerStream = await feed('products', viewer.token, otherServer.url);
      const editorStream = await feed('products', editor.token, otherServer.url);
      const grants = exampleGrants as Record<string, Record<string, unknown>>;
      const withoutProducts = { ...grants, viewer: Object.fromEntries(Object.entries(grants.viewer).filter(([resource]) => resource !== 'products')) };
      try {
        otherFeed().permissions.reload(withoutProducts);
        const started = Date.now();
        const [revoked] = await viewerStream.take(1, 3000);
        expect([revoked.type, reasonOf(revoked)]).to.deep.equal(['revoked', 'forbidden']);
        expect(Date.now() - started).to.be.below(2500);
        await viewerStream.until(() => viewerStream.ended);
        await supertest(other.app).post(`${API}/products`).set('Authorization', `Bearer ${ctx.app.info.adminToken}`).send({ name: 'For the editor', sku: ctx.unique('sku'), price: 1, cost: 3 }).expect(200);
        const [seen] = await editorStream.take(1);
        expect(seen.data.model).to.include({ name: 'For the editor', cost: 3 });
      } finally {
        otherFeed().permissions.reload(exampleGrants);
      }
    });

    it('one caller holds at most a tenth of the streams (2 of 20): the next is a 429 naming the share; others still open streams; closing one frees it', async () => {
      const greedy = await ctx.member(['viewer']);
      const modest = await ctx.member(['viewer']);
      const first = await feed('products', greedy.token, otherServer.url);
      const second = await feed('tags', greedy.token, otherServer.url);
      expect([first.status, second.status]).to.deep.equal([200, 200]);
      const refused = await supertest(other.app).get(`${API}/categories/changes`).set('Authorization', `Bearer ${greedy.token}`);
      expect(refused.status).to.equal(429);
      expect(refused.headers['retry-after']).to.equal('2');
      expect(refused.body).to.deep.include({ type: 'too_many_requests', status: 429 });
      expect(refused.body.message).to.contain('at most 2').and.contain('20');
      const another = await feed('products', modest.token, otherServer.url);
      expect(another.status).to.equal(200);
      first.close();
      await second.until(() => otherFeed().changes.streamStates().filter((s) => s.userId === String(greedy.user.id)).length === 1);
      const again = await feed('categories', greedy.token, otherServer.url);
      expect(again.status).to.equal(200);
    });
  });
});
