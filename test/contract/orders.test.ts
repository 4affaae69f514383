import { expect } from 'chai';
import { API, expectError, expectValidation, forEachDriver, TIMESTAMP, type Member } from '../support/contract-app';

/** The example app's `orders` resource (example-app.md): fields, rules, grants, ownership, restrict on users. */
forEachDriver('orders resource', (ctx) => {
  let carol: Member;
  let dave: Member;
  let editor: Member;
  let viewer: Member;

  before(async () => {
    await ctx.reset();
    carol = await ctx.member(['customer'], { name: 'Carol' });
    dave = await ctx.member(['customer'], { name: 'Dave' });
    editor = await ctx.member(['editor']);
    viewer = await ctx.member(['viewer']);
  });

  const order = (overrides: Record<string, unknown> = {}) => ({ user_id: carol.user.id, number: ctx.unique('ORD'), total: 12.5, placed_at: '2026-11-01T10:00:00.000Z', ...overrides });

  it('a store answers the order with its defaults and version 1', async () => {
    const res = await ctx.request().post(`${API}/orders`).send(order({ notes: 'ring twice' }));
    expect(res.status, res.text).to.equal(200);
    const model = res.body.model;
    expect(model).to.include({ user_id: carol.user.id, status: 'pending', total: 12.5, notes: 'ring twice', version: 1 });
    expect(model.placed_at).to.match(TIMESTAMP);
    expect(model.placed_at.startsWith('2026-11-01T10:00:00.000')).to.equal(true);
  });

  it('validation: required fields, status values, unique number; version is never written from a body', async () => {
    expectValidation(await ctx.request().post(`${API}/orders`).send({ status: 'lost' }), 'user_id', 'number', 'total', 'placed_at', 'status');
    const first = await ctx.create('orders', order({ number: 'SAME-1', version: 40 }));
    expect(first.version).to.equal(1);
    expectError(await ctx.request().post(`${API}/orders`).send(order({ number: 'SAME-1' })), 409, 'unique_violation');
    const updated = await ctx.request().patch(`${API}/orders/${first.id}`).send({ version: 99, notes: 'x' });
    expect(updated.status, updated.text).to.equal(200);
    expect(updated.body.model.version).to.equal(2);
  });

  it('grants: a customer reads and creates their own, never updates or deletes; an editor updates, a viewer reads', async () => {
    const mine = await carol.agent().post(`${API}/orders`).send(order({ user_id: dave.user.id }));
    expect(mine.status, mine.text).to.equal(200);
    expect(mine.body.model.user_id).to.equal(carol.user.id);
    const daves = await ctx.create('orders', order({ user_id: dave.user.id }));
    const listed = await carol.agent().get(`${API}/orders`);
    expect(listed.body.data.every((o: { user_id: unknown }) => o.user_id === carol.user.id)).to.equal(true);
    expectError(await carol.agent().get(`${API}/orders/${daves.id}`), 404, 'not_found');
    expectError(await carol.agent().patch(`${API}/orders/${mine.body.model.id}`).send({ notes: 'n' }), 403, 'forbidden');
    expectError(await carol.agent().delete(`${API}/orders/${mine.body.model.id}`), 403, 'forbidden');
    expect((await editor.agent().patch(`${API}/orders/${daves.id}`).send({ status: 'paid' })).status).to.equal(200);
    expectError(await editor.agent().delete(`${API}/orders/${daves.id}`), 403, 'forbidden');
    expect((await viewer.agent().get(`${API}/orders/${daves.id}`)).status).to.equal(200);
    expectError(await viewer.agent().post(`${API}/orders`).send(order()), 403, 'forbidden');
  });

  it('a user with orders cannot be deleted (restrict)', async () => {
    const user = await ctx.user();
    await ctx.create('orders', order({ user_id: user.id }));
    expectError(await ctx.request().delete(`${API}/users/${user.id}`), 409, 'foreign_key_violation');
  });
});

/** Decision 81: If-Match with the library-managed version field of orders. */
forEachDriver('If-Match and versions (orders)', (ctx) => {
  let owner: Record<string, unknown> & { id: unknown };

  before(async () => {
    await ctx.reset();
    owner = await ctx.user();
  });

  const newOrder = () => ctx.create('orders', { user_id: owner.id, number: ctx.unique('V'), total: 5, placed_at: '2026-11-02T10:00:00.000Z' });
  const patch = (id: unknown, body: object, ifMatch?: string) => {
    const req = ctx.request().patch(`${API}/orders/${id}`);
    return (ifMatch === undefined ? req : req.set('If-Match', ifMatch)).send(body);
  };

  it('shows and write answers carry ETag "<version>"; a matching If-None-Match is a 304', async () => {
    const order = await newOrder();
    const show = await ctx.request().get(`${API}/orders/${order.id}`);
    expect(show.status).to.equal(200);
    expect(show.headers.etag).to.equal('"1"');
    expect((await ctx.request().get(`${API}/orders/${order.id}`).set('If-None-Match', '"1"')).status).to.equal(304);
    const updated = await patch(order.id, { notes: 'a' }, '"1"');
    expect(updated.status, updated.text).to.equal(200);
    expect(updated.headers.etag).to.equal('"2"');
    expect(updated.body.model.version).to.equal(2);
    const variant = await ctx.request().get(`${API}/orders/${order.id}`).query({ select: JSON.stringify(['id', 'number', 'version']) });
    expect(variant.headers.etag).to.match(/^"2\.[^"]+"$/);
    const created = await ctx.request().post(`${API}/orders`).send({ user_id: owner.id, number: ctx.unique('V'), total: 5, placed_at: '2026-11-02T10:00:00.000Z' });
    expect(created.headers.etag).to.equal('"1"');
  });

  it('a stale If-Match is a 412 with the current ETag, nothing written; an equal update keeps the version', async () => {
    const order = await newOrder();
    expect((await patch(order.id, { notes: 'b' }, '"1"')).status).to.equal(200);
    const stale = await patch(order.id, { notes: 'c' }, '"1"');
    expectError(stale, 412, 'precondition_failed');
    expect(stale.headers.etag).to.equal('"2"');
    expect((await ctx.fetch('orders', order.id)).notes).to.equal('b');
    const same = await patch(order.id, { notes: 'b' }, '"2"');
    expect(same.status, same.text).to.equal(200);
    expect(same.body.model.version).to.equal(2);
    expectError(await patch(order.id, { notes: 'b' }, 'W/"2"'), 412, 'precondition_failed');
    expect((await patch(order.id, { notes: 'd' }, '"2.abc"')).status).to.equal(200);
    expect((await patch(order.id, { notes: 'e' }, '*')).body.model.version).to.equal(4);
    expect((await patch(order.id, { notes: 'f' })).body.model.version).to.equal(5);
  });

  it('DELETE with a stale If-Match is a 412 and deletes nothing; with the current one it deletes', async () => {
    const order = await newOrder();
    const stale = await ctx.request().delete(`${API}/orders/${order.id}`).set('If-Match', '"7"');
    expectError(stale, 412, 'precondition_failed');
    expect(stale.headers.etag).to.equal('"1"');
    expect((await ctx.request().get(`${API}/orders/${order.id}`)).status).to.equal(200);
    expect((await ctx.request().delete(`${API}/orders/${order.id}`).set('If-Match', '"1"')).status).to.equal(200);
    expect((await ctx.request().get(`${API}/orders/${order.id}`)).status).to.equal(404);
  });

  it('If-Match on a resource without a version field is a 400', async () => {
    const product = await ctx.product();
    expectError(await ctx.request().patch(`${API}/products/${product.id}`).set('If-Match', '"1"').send({ stock: 2 }), 400, 'bad_request');
  });

  it('a batch item carries the version it read: a stale one is a 412 listing its id, nothing written', async () => {
    const a = await newOrder();
    const b = await newOrder();
    expect((await patch(b.id, { notes: 'moved' })).status).to.equal(200);
    const res = await ctx.request().patch(`${API}/orders/batch`).send({ order: [{ id: a.id, version: 1, notes: 'x' }, { id: b.id, version: 1, notes: 'y' }] });
    const body = expectError(res, 412, 'precondition_failed');
    expect((body.error as { ids: unknown[] }).ids).to.deep.equal([b.id]);
    expect((await ctx.fetch('orders', a.id)).notes).to.equal(null);
    const ok = await ctx.request().patch(`${API}/orders/batch`).send({ order: [{ id: a.id, version: 1, notes: 'x' }, { id: b.id, version: 2, notes: 'y' }] });
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.body.models.map((m: { model: { version: number } }) => m.model.version)).to.deep.equal([2, 3]);
  });

  it('20 clients incrementing with If-Match and retries reach the exact total', async () => {
    const order = await newOrder();
    const client = async () => {
      for (;;) {
        const read = await ctx.request().get(`${API}/orders/${order.id}`);
        const res = await patch(order.id, { total: read.body.total + 1 }, read.headers.etag as string);
        if (res.status === 200) return;
        if (res.status !== 412) throw new Error(`answered ${res.status}: ${res.text}`);
      }
    };
    await Promise.all(Array.from({ length: 20 }, client));
    const final = await ctx.fetch('orders', order.id);
    expect(final.total).to.equal(25);
    expect(final.version).to.equal(21);
  });
});

/** The API description documents decisions 79-81: the upsert route, Idempotency-Key, If-Match and their answers. */
forEachDriver('OpenAPI: upsert, Idempotency-Key, If-Match', (ctx) => {
  before(() => ctx.reset());

  it('documents the route, the headers and the answers', async () => {
    const res = await ctx.request().get(`${API}/openapi.json`);
    expect(res.status).to.equal(200);
    const paths = res.body.paths as Record<string, Record<string, { parameters: Array<{ name: string; in: string }>; responses: Record<string, { headers?: Record<string, unknown> }> }>>;
    for (const resource of ['products', 'tags', 'orders']) expect(paths[`/${resource}/upsert`]?.post, resource).to.be.an('object');
    expect(paths['/categories/upsert']).to.equal(undefined);
    const names = (op: { parameters: Array<{ name: string }> }) => op.parameters.map((p) => p.name);
    expect(names(paths['/products'].post)).to.include('Idempotency-Key');
    expect(names(paths['/orders/{id}'].patch)).to.include.members(['Idempotency-Key', 'If-Match']);
    expect(names(paths['/orders/{id}'].delete)).to.include('If-Match');
    expect(names(paths['/products/{id}'].patch)).to.not.include('If-Match');
    expect(paths['/orders/{id}'].patch.responses).to.have.property('412');
    expect(paths['/orders/{id}'].get.responses['200'].headers).to.have.property('ETag');
    expect(paths['/products/upsert'].post.responses['200'].headers).to.have.property('Idempotent-Replayed');
  });
});
