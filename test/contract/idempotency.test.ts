import { expect } from 'chai';
import supertest from 'supertest';
import type { ExampleApp as FullExampleApp } from '../../example-app/app';
import { API, expectError, forEachDriver, type Member } from '../support/contract-app';

/** Idempotency-Key (decision 80) on every write route, both drivers. */
forEachDriver('Idempotency-Key', (ctx) => {
  let editor: Member;

  before(async () => {
    await ctx.reset();
    editor = await ctx.member(['editor']);
  });

  const store = (key: string, body: object, agent = ctx.request()) => agent.post(`${API}/products`).set('Idempotency-Key', key).send(body);

  it('a repeat answers the stored status and body with Idempotent-Replayed: true and writes nothing', async () => {
    const key = ctx.unique('key');
    const sku = ctx.unique('sku');
    const first = await store(key, { name: 'Once', sku, price: 1 });
    expect(first.status, first.text).to.equal(200);
    expect(first.headers['idempotent-replayed']).to.equal(undefined);
    const again = await store(key, { price: 1, sku, name: 'Once' });
    expect(again.status).to.equal(200);
    expect(again.headers['idempotent-replayed']).to.equal('true');
    expect(again.headers['content-type']).to.match(/^application\/json/);
    expect(again.body).to.deep.equal(first.body);
    expect(await ctx.count('products', { attr: { sku } })).to.equal(1);
  });

  it('the same key with another body, path or method is a 422 idempotency_key_reused', async () => {
    const key = ctx.unique('key');
    expect((await store(key, { name: 'A', sku: ctx.unique('sku'), price: 1 })).status).to.equal(200);
    expectError(await store(key, { name: 'B', sku: ctx.unique('sku'), price: 1 }), 422, 'idempotency_key_reused');
    expectError(await ctx.request().post(`${API}/tags`).set('Idempotency-Key', key).send({ name: ctx.unique('t') }), 422, 'idempotency_key_reused');
  });

  it('keys are per caller: another caller\'s key never replays', async () => {
    const key = ctx.unique('key');
    const mine = await store(key, { name: 'Mine', sku: ctx.unique('sku'), price: 1 });
    const body = { name: 'Theirs', sku: ctx.unique('sku'), price: 1 };
    const theirs = await store(key, body, editor.agent());
    expect(theirs.status, theirs.text).to.equal(200);
    expect(theirs.headers['idempotent-replayed']).to.equal(undefined);
    expect(theirs.body.model.id).to.not.equal(mine.body.model.id);
  });

  it('a failed request stores nothing: the key can be used again', async () => {
    const key = ctx.unique('key');
    expect((await store(key, { name: 'No price', sku: ctx.unique('sku') })).status).to.equal(422);
    const ok = await store(key, { name: 'Priced', sku: ctx.unique('sku'), price: 1 });
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.headers['idempotent-replayed']).to.equal(undefined);
  });

  it('a malformed key is a 400 naming the header', async () => {
    const res = await store('k'.repeat(256), { name: 'x', sku: ctx.unique('sku'), price: 1 });
    const body = expectError(res, 400, 'bad_request');
    expect(JSON.stringify(body)).to.contain('Idempotency-Key');
  });

  it('while the first request runs, the same key is a 409 idempotency_key_in_progress with Retry-After', async () => {
    const app = await ctx.exampleAppWith({});
    const entry = (app as unknown as FullExampleApp).api.registry.entry('product').declaration;
    // the first request holds its key until the test lets its before-hook go on
    let started!: () => void;
    let proceed!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const gate = new Promise<void>((resolve) => (proceed = resolve));
    entry.hooks = { beforeCreate: async () => { started(); await gate; } };
    try {
      const post = (key: string, body: object) => supertest(app.app).post(`${API}/products`).set('Authorization', `Bearer ${app.info.adminToken}`).set('Idempotency-Key', key).send(body);
      const key = ctx.unique('key');
      const body = { name: 'Held', sku: ctx.unique('held'), price: 1 };
      const first = post(key, body).then((r) => r);
      await running;
      const second = await post(key, body);
      expectError(second, 409, 'idempotency_key_in_progress');
      expect(second.headers['retry-after']).to.be.a('string');
      proceed();
      expect((await first).status).to.equal(200);
      const replay = await post(key, body);
      expect(replay.headers['idempotent-replayed']).to.equal('true');
    } finally {
      proceed();
      delete entry.hooks;
      await app.close();
    }
  });

  it('PUT, PATCH and DELETE replay too; a replay repeats the ETag and bypasses If-Match', async () => {
    const owner = await ctx.user();
    const order = await ctx.create('orders', { user_id: owner.id, number: ctx.unique('I'), total: 1, placed_at: '2026-11-01T00:00:00.000Z' });
    const key = ctx.unique('key');
    const patch = () => ctx.request().patch(`${API}/orders/${order.id}`).set('Idempotency-Key', key).set('If-Match', '"1"').send({ total: 2 });
    const first = await patch();
    expect(first.status, first.text).to.equal(200);
    expect(first.headers.etag).to.equal('"2"');
    const again = await patch();
    expect(again.status).to.equal(200);
    expect(again.headers['idempotent-replayed']).to.equal('true');
    expect(again.headers.etag).to.equal('"2"');
    expect((await ctx.fetch('orders', order.id)).version).to.equal(2);
    const product = await ctx.product();
    const delKey = ctx.unique('key');
    const del = await ctx.request().delete(`${API}/products/${product.id}`).set('Idempotency-Key', delKey);
    expect(del.status).to.equal(200);
    const delAgain = await ctx.request().delete(`${API}/products/${product.id}`).set('Idempotency-Key', delKey);
    expect(delAgain.status).to.equal(200);
    expect(delAgain.headers['idempotent-replayed']).to.equal('true');
    expect(delAgain.body).to.deep.equal(del.body);
  });

  it('an upsert replays like any POST', async () => {
    const key = ctx.unique('key');
    const body = { product: [{ sku: ctx.unique('sku'), name: 'Up', price: 1 }] };
    const first = await ctx.request().post(`${API}/products/upsert`).set('Idempotency-Key', key).send(body);
    expect(first.body.created).to.equal(1);
    const again = await ctx.request().post(`${API}/products/upsert`).set('Idempotency-Key', key).send(body);
    expect(again.headers['idempotent-replayed']).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
  });

  it('keys expire after REST_IDEMPOTENCY_TTL_S; another instance on the same database replays', async () => {
    const saved = process.env.REST_IDEMPOTENCY_TTL_S;
    process.env.REST_IDEMPOTENCY_TTL_S = '1';
    const short = await ctx.exampleAppWith({});
    const other = await ctx.exampleAppWith({});
    if (saved === undefined) delete process.env.REST_IDEMPOTENCY_TTL_S;
    else process.env.REST_IDEMPOTENCY_TTL_S = saved;
    try {
      const post = (app: typeof short, key: string, body: object) => supertest(app.app).post(`${API}/tags`).set('Authorization', `Bearer ${short.info.adminToken}`).set('Idempotency-Key', key).send(body);
      const key = ctx.unique('key');
      const body = { name: ctx.unique('tag') };
      const first = await post(short, key, body);
      expect(first.status, first.text).to.equal(200);
      const across = await post(other, key, body);
      expect(across.headers['idempotent-replayed']).to.equal('true');
      await new Promise((r) => setTimeout(r, 1500));
      const later = await post(short, key, body);
      // expired: the request runs again (the tag exists now: a 409 of its own, not a replay)
      expect(later.headers['idempotent-replayed']).to.equal(undefined);
      expect(later.status).to.equal(409);
    } finally {
      await short.close();
      await other.close();
    }
  });

  it('a key whose writes committed is never run again: a failed after-hook or a stopped instance leaves a 409, not a second write', async () => {
    const saved = process.env.REST_IDEMPOTENCY_STALE_S;
    process.env.REST_IDEMPOTENCY_STALE_S = '1';
    const first = await ctx.exampleAppWith({});
    const other = await ctx.exampleAppWith({});
    if (saved === undefined) delete process.env.REST_IDEMPOTENCY_STALE_S;
    else process.env.REST_IDEMPOTENCY_STALE_S = saved;
    const entry = (first as unknown as FullExampleApp).api.registry.entry('product').declaration;
    try {
      const post = (app: typeof first, key: string, body: object) => supertest(app.app).post(`${API}/products`).set('Authorization', `Bearer ${first.info.adminToken}`).set('Idempotency-Key', key).send(body);
      // the after-hook throws once the record is committed: the request fails, its writes stay
      entry.hooks = { afterCreate: () => { throw new Error('after-hook failed'); } };
      const failing = { name: 'Committed', sku: ctx.unique('sku'), price: 1 };
      const failKey = ctx.unique('key');
      expect((await post(first, failKey, failing)).status).to.equal(500);
      const retried = expectError(await post(other, failKey, failing), 409, 'conflict');
      expect(JSON.stringify(retried)).to.contain('answer was lost');
      expect(await ctx.count('products', { attr: { sku: failing.sku } })).to.equal(1);
      // the instance stops answering after its commit (a hook that outlives the stale time): another instance does not run it again
      entry.hooks = { afterCreate: () => new Promise<void>((resolve) => setTimeout(resolve, 2500)) };
      const slow = { name: 'Slow', sku: ctx.unique('sku'), price: 1 };
      const slowKey = ctx.unique('key');
      const pending = post(first, slowKey, slow).then((r) => r);
      await new Promise((r) => setTimeout(r, 1500));
      expectError(await post(other, slowKey, slow), 409, 'conflict');
      expect(await ctx.count('products', { attr: { sku: slow.sku } })).to.equal(1);
      const done = await pending;
      expect(done.status, done.text).to.equal(200);
      // its answer, once stored, replays as usual
      const replay = await post(other, slowKey, slow);
      expect(replay.headers['idempotent-replayed']).to.equal('true');
      expect(replay.body).to.deep.equal(done.body);
    } finally {
      delete entry.hooks;
      await first.close();
      await other.close();
    }
  });

  it('MongoDB without transactions: the key is marked after its writes, so a write refused by the database leaves it free', async function () {
    if (ctx.driver !== 'mongo') this.skip();
    const app = await ctx.exampleAppWith({}, { mongoTransactions: false });
    try {
      const post = (key: string, body: object) => supertest(app.app).post(`${API}/products`).set('Authorization', `Bearer ${app.info.adminToken}`).set('Idempotency-Key', key).send(body);
      const body = { name: 'No tx', sku: ctx.unique('ntx'), price: 1 };
      const key = ctx.unique('key');
      expect((await post(key, body)).status).to.equal(200);
      const replay = await post(key, body);
      expect(replay.headers['idempotent-replayed']).to.equal('true');
      // the same sku again under a new key: refused, and the key stays free (the same refusal again, not a lost answer)
      const refusedKey = ctx.unique('key');
      expectError(await post(refusedKey, body), 409, 'unique_violation');
      expectError(await post(refusedKey, body), 409, 'unique_violation');
      expect(await ctx.count('products', { attr: { sku: body.sku } })).to.equal(1);
    } finally {
      await app.close();
    }
  });
});
