import { expect } from 'chai';
import supertest from 'supertest';
import { API, forEachDriver } from '../support/contract-app';
import { ChangeStream, listen } from '../support/change-stream';

/** Decision 79's effects: change events like a create or an update (none for unchanged), read-cache bumps; decision 81's ETag with the cache on. */
forEachDriver('upsert: change feed and read cache', (ctx) => {
  let server: { url: string; close(): Promise<void> };

  before(async () => {
    await ctx.reset();
    server = await listen(ctx.app.app);
  });
  after(async () => {
    await server.close();
  });

  it('emits created and updated after the commit, nothing for unchanged records or a rejected request', async () => {
    const kept = await ctx.product({ name: 'Feed kept', price: 2 });
    const moved = await ctx.product({ name: 'Feed moved', price: 2 });
    const stream = await ChangeStream.open(`${server.url}${API}/products/changes`, { token: ctx.app.info.adminToken });
    try {
      const sku = ctx.unique('feed');
      const res = await ctx.request().post(`${API}/products/upsert`).send({ product: [{ sku: kept.sku, name: 'Feed kept' }, { sku: moved.sku, price: 3 }, { sku, name: 'Feed new', price: 1 }] });
      expect(res.status, res.text).to.equal(200);
      const events = await stream.take(2);
      expect(events.map((e) => [e.type, e.data.id]).sort()).to.deep.equal([['created', res.body.models[2].model.id], ['updated', moved.id]].sort());
      // a rejected request (a new record missing its price) emits nothing
      const refused = await ctx.request().post(`${API}/products/upsert`).send({ product: [{ sku: moved.sku, price: 4 }, { sku: ctx.unique('feed'), name: 'No price' }] });
      expect(refused.status).to.equal(422);
      await stream.none();
    } finally {
      stream.close();
    }
  });

  it('with the read cache on, an upsert makes the next read a miss; a versioned show keeps its version ETag', async () => {
    const cached = await ctx.exampleAppWith({ cache: { enabled: true, store: 'memory', prefix: `ups${Date.now()}` } });
    try {
      const as = (req: supertest.Test) => req.set('Authorization', `Bearer ${cached.info.adminToken}`);
      const product = await ctx.product({ name: 'Cache me', price: 1 });
      const read = () => as(supertest(cached.app).get(`${API}/products/${product.id}`));
      expect((await read()).headers['x-cache']).to.equal('miss');
      expect((await read()).headers['x-cache']).to.equal('hit');
      const res = await as(supertest(cached.app).post(`${API}/products/upsert`)).send({ product: { sku: product.sku, price: 2 } });
      expect(res.status, res.text).to.equal(200);
      const after = await read();
      expect(after.headers['x-cache']).to.equal('miss');
      expect(after.body.price).to.equal(2);

      const owner = await ctx.user();
      const order = await ctx.create('orders', { user_id: owner.id, number: ctx.unique('C'), total: 1, placed_at: '2026-11-01T00:00:00.000Z' });
      const show = () => as(supertest(cached.app).get(`${API}/orders/${order.id}`));
      expect((await show()).headers.etag).to.equal('"1"');
      const hit = await show();
      expect(hit.headers['x-cache']).to.equal('hit');
      expect(hit.headers.etag).to.equal('"1"');
      expect((await show().set('If-None-Match', '"1"')).status).to.equal(304);
    } finally {
      await cached.close();
    }
  });
});
