import { expect } from 'chai';
import { upsert, updateIfMatch } from '../../lib/client';
import type { Order, Product } from '../../example-app/client-types';
import { API, forEachDriver } from '../support/contract-app';
import { listen } from '../support/change-stream';

/** The typed client's upsert and If-Match update (decisions 79-81), over HTTP. */
forEachDriver('typed client: upsert, Idempotency-Key, If-Match', (ctx) => {
  let server: { url: string; close(): Promise<void> };
  const options = () => ({ baseUrl: `${server.url}${API}`, headers: { authorization: `Bearer ${ctx.app.info.adminToken}` } });

  before(async () => {
    await ctx.reset();
    server = await listen(ctx.app.app);
  });
  after(() => server.close());

  it('upserts with an Idempotency-Key (a repeat is replayed, nothing written twice)', async () => {
    const sku = ctx.unique('cl');
    const key = ctx.unique('key');
    const first = await upsert<Product>(options(), 'products', 'product', [{ sku, name: 'Client', price: 1 }], { idempotencyKey: key });
    expect(first.created).to.equal(1);
    const again = await upsert<Product>(options(), 'products', 'product', [{ sku, name: 'Client', price: 1 }], { idempotencyKey: key });
    expect(again).to.deep.equal(first);
    expect(await ctx.count('products', { attr: { sku } })).to.equal(1);
  });

  it('updates with If-Match and retries a 412 when asked: concurrent increments all count', async () => {
    const owner = await ctx.user();
    const order = await ctx.create('orders', { user_id: owner.id, number: ctx.unique('CL'), total: 0, placed_at: '2026-11-01T00:00:00.000Z' });
    await Promise.all(Array.from({ length: 5 }, () => updateIfMatch<Order & Record<string, unknown>>(options(), 'orders', order.id as string, (o) => ({ total: o.total + 1 }), { retries: 50 })));
    expect((await ctx.fetch('orders', order.id)).total).to.equal(5);
  });
});
