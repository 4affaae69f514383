import { expect } from 'chai';
import { asAdmin } from '../support/as-admin';
import { ChangeStream, listen } from '../support/change-stream';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { startRedis, RedisUnavailableError, type RedisHandle } from '../../lib/testing/start-redis';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * Decision 62 across instances: two example apps on the same databases and the same Redis (on
 * MongoDB, two apps on the same emulator or server through its mongodb:// URI). An event written
 * through one arrives on the other's streams, rendered for that stream's subscriber; without
 * Redis each instance delivers only its own writes.
 */
const API = '/api/v1';
let redis: RedisHandle | null = null;

async function redisOrSkip(ctx: Mocha.Context): Promise<RedisHandle> {
  if (redis) return redis;
  try {
    redis = await startRedis();
    return redis;
  } catch (error) {
    if (!(error instanceof RedisUnavailableError)) throw error;
    if (process.env.CI === 'true') throw new Error(`CI requires Redis: ${error.reason}`);
    console.log(`      (pending: ${error.reason})`);
    ctx.skip();
  }
}

after(async () => {
  await redis?.stop();
});

const TOKEN = `changes-admin-${process.pid}-${Date.now()}`;

for (const driver of ['mongo', 'sql'] as const) {
  describe(`change feed across two instances (${driver})`, function () {
    this.timeout(60_000);
    const prefix = `changes${Date.now()}`;
    let one: ExampleApp;
    let two: ExampleApp;
    let servers: Array<{ url: string; close(): Promise<void> }> = [];
    const streams: ChangeStream[] = [];

    const start = async (redisUrl: string | undefined): Promise<ExampleApp> => {
      const uri = driver === 'mongo' ? { mongoUri: (await sharedMongo()).uri } : { postgresUri: (await sharedPostgres()).uri };
      return createExampleApp({ driver, ...uri, adminToken: TOKEN, apiOptions: { changes: { redisUrl: redisUrl ?? null, prefix, reauthSeconds: 60 } } });
    };
    const subscribe = async (index: number, params: Record<string, unknown> = {}, token = TOKEN) => {
      const stream = await ChangeStream.open(`${servers[index].url}${API}/products/changes`, { token, params });
      expect(stream.status).to.equal(200);
      streams.push(stream);
      return stream;
    };

    before(async function () {
      const url = (await redisOrSkip(this)).url;
      one = await start(url);
      two = await start(url);
      await one.reset();
      servers = [await listen(one.app), await listen(two.app)];
    });

    after(async () => {
      for (const stream of streams) stream.close();
      for (const server of servers) await server.close();
      await one?.close();
      await two?.close();
    });

    it('an event written through one instance arrives on the streams of both', async () => {
      const onOne = await subscribe(0);
      const onTwo = await subscribe(1);
      const res = await asAdmin(one).post(`${API}/products`).send({ name: 'Written on one', sku: `two-${Date.now()}`, price: 5, cost: 2 });
      expect(res.status, res.text).to.equal(200);
      const [a] = await onOne.take(1);
      const [b] = await onTwo.take(1);
      expect([a.type, a.data.model!.name]).to.deep.equal(['created', 'Written on one']);
      expect(b).to.deep.equal(a);
      // and the other way round
      await asAdmin(two).patch(`${API}/products/${res.body.model.id}`).send({ price: 6 }).expect(200);
      expect((await onOne.take(1))[0].data.model!.price).to.equal(6);
      expect((await onTwo.take(1))[0].data.model!.price).to.equal(6);
    });

    it("each instance renders for its own subscriber: a viewer's stream on the other instance has no cost", async () => {
      const viewerToken = `viewer-${driver}-${Date.now()}`;
      await asAdmin(one).post(`${API}/users`).send({ name: 'Viewer', email: `${viewerToken}@example.test`, roles: ['viewer'], api_token: viewerToken }).expect(200);
      const viewer = await subscribe(1, { attr: { name: 'Costly across' } }, viewerToken);
      await asAdmin(one).post(`${API}/products`).send({ name: 'Costly across', sku: `cost-${Date.now()}`, price: 5, cost: 3 }).expect(200);
      const [seen] = await viewer.take(1);
      expect(seen.data.model!.name).to.equal('Costly across');
      expect(seen.data.model).to.not.have.property('cost');
    });

    it("decision 70 across instances: a user deleted through one instance revokes their stream on the other at once, not at the next periodic re-check", async function () {
      this.timeout(20_000);
      const token = `gone-${driver}-${Date.now()}`;
      const created = await asAdmin(one).post(`${API}/users`).send({ name: 'Soon gone', email: `${token}@example.test`, roles: ['viewer'], api_token: token });
      expect(created.status, created.text).to.equal(200);
      const stream = await subscribe(1, {}, token);
      // the example app keeps a login 5 s on the instance that looked it up: past that, instance two asks the database
      await new Promise((resolve) => setTimeout(resolve, 5200));
      await asAdmin(one).delete(`${API}/users/${created.body.model.id}`).expect(200);
      // the periodic re-check (every 60 s here) is far: only the user's event through Redis can revoke it now
      const [revoked] = await stream.take(1, 3000);
      expect([revoked.type, revoked.data]).to.deep.equal(['revoked', { reason: 'unauthenticated' }]);
      await stream.until(() => stream.ended);
    });

    it('Last-Event-ID resumes on the other instance (event ids are the same everywhere)', async () => {
      const first = await subscribe(0);
      await asAdmin(one).post(`${API}/products`).send({ name: 'Resume 1', sku: `r1-${Date.now()}`, price: 1 }).expect(200);
      const [e1] = await first.take(1);
      first.close();
      await asAdmin(one).post(`${API}/products`).send({ name: 'Resume 2', sku: `r2-${Date.now()}`, price: 1 }).expect(200);
      // wait until instance two has it buffered
      await new Promise((resolve) => setTimeout(resolve, 200));
      const resumed = await ChangeStream.open(`${servers[1].url}${API}/products/changes`, { token: TOKEN, lastEventId: e1.lastEventId });
      streams.push(resumed);
      const [e2] = await resumed.take(1);
      expect([e2.type, e2.data.model!.name]).to.deep.equal(['created', 'Resume 2']);
    });
  });
}
