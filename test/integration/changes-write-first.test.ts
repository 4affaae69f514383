import { expect } from 'chai';
import { asAdmin } from '../support/as-admin';
import { apiCall } from '../support/api-call';
import { ChangeStream, listen } from '../support/change-stream';
import { haveRedisServer, startRedisProcess, type RedisProcess } from '../support/redis-process';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * Issue 52: a write's answer never waits for the fan-out. The feed's Redis stalled (SIGSTOP): the
 * feed waits up to a second for it and then delivers in this instance only, but the write that
 * produced the event has answered long before; its events still arrive, in commit order.
 */
const API = '/api/v1';
const TOKEN = `write-first-${process.pid}-${Date.now()}`;

for (const driver of ['mongo', 'sql'] as const) {
  describe(`change feed: the write answers before the fan-out (${driver})`, function () {
    this.timeout(60_000);
    let redis: RedisProcess | null = null;
    let shop: ExampleApp;
    let server: { url: string; close(): Promise<void> };
    const streams: ChangeStream[] = [];

    before(async function () {
      if (!haveRedisServer) {
        if (process.env.CI === 'true') throw new Error('CI requires redis-server on PATH');
        console.log('      (pending: no redis-server on PATH)');
        this.skip();
      }
      redis = await startRedisProcess();
      const uri = driver === 'mongo' ? { mongoUri: (await sharedMongo()).uri } : { postgresUri: (await sharedPostgres()).uri };
      shop = await createExampleApp({ driver, ...uri, adminToken: TOKEN, apiOptions: { changes: { redisUrl: redis.url, prefix: `first${Date.now()}`, reauthSeconds: 60 } } });
      server = await listen(shop.app);
    });

    after(async () => {
      redis?.resume();
      for (const stream of streams) stream.close();
      await server?.close();
      await shop?.close();
      await redis?.stop();
    });

    it('Redis stalled: writes answer at once, their events arrive later in commit order', async () => {
      const stream = await ChangeStream.open(`${server.url}${API}/products/changes`, { token: TOKEN });
      streams.push(stream);
      expect(stream.status).to.equal(200);
      const created = await asAdmin(shop).post(`${API}/products`).send({ name: 'Before the stall', sku: `wf-${driver}-${Date.now()}`, price: 1 }).expect(200);
      expect((await stream.take(1))[0].data.model!.name).to.equal('Before the stall');

      redis!.stall();
      try {
        const path = `/products/${created.body.model.id}`;
        const base = server.url;
        // before issue 52's change each of these waited for Redis (a second) before answering
        const first = await apiCall(base, 'PATCH', path, TOKEN, { price: 2 });
        const second = await apiCall(base, 'PATCH', path, TOKEN, { price: 3 });
        expect([first.status, second.status]).to.deep.equal([200, 200]);
        expect(first.ms, `the first write took ${first.ms} ms`).to.be.below(500);
        expect(second.ms, `the second write took ${second.ms} ms`).to.be.below(500);
        const events = await stream.take(2, 10_000);
        expect(events.map((e) => [e.type, e.data.model!.price])).to.deep.equal([
          ['updated', 2],
          ['updated', 3],
        ]);
      } finally {
        redis!.resume();
      }
    });
  });
}
