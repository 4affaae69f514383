import { expect } from 'chai';
import supertest from 'supertest';
import { API, expectError, forEachDriver, type Id, type Member, type Rec } from '../support/contract-app';

type Entry = { version: number; op: string; at: string; actor: { id: unknown; roles: string[] }; request_id: string | null; changes: Record<string, [unknown, unknown]> };

/**
 * Decision 83 on both drivers: entries for every write path, the read policy on `changes`,
 * retention, revert with If-Match and permissions, rolled-back writes leave nothing. A second
 * example app on the same database keeps history on products (retain 3) and reviews too.
 */
forEachDriver('history (decision 83)', (ctx) => {
  let app: { app: import('express').Express; close(): Promise<void> };
  let owner: Rec;
  let editor: Member;
  let viewer: Member;
  let carol: Member;
  const as = (token: string) => ({
    get: (path: string) => supertest(app.app).get(`${API}${path}`).set('Authorization', `Bearer ${token}`),
    post: (path: string) => supertest(app.app).post(`${API}${path}`).set('Authorization', `Bearer ${token}`),
    patch: (path: string) => supertest(app.app).patch(`${API}${path}`).set('Authorization', `Bearer ${token}`),
    put: (path: string) => supertest(app.app).put(`${API}${path}`).set('Authorization', `Bearer ${token}`),
    delete: (path: string) => supertest(app.app).delete(`${API}${path}`).set('Authorization', `Bearer ${token}`),
  });
  const admin = () => as(ctx.app.info.adminToken);
  const history = async (resource: string, id: Id, token = ctx.app.info.adminToken, query = ''): Promise<Entry[]> => {
    const res = await as(token).get(`/${resource}/${id}/history${query}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.data as Entry[];
  };
  const order = (overrides: Record<string, unknown> = {}) => ({ user_id: owner.id, number: ctx.unique('H'), total: 10, placed_at: '2026-11-01T10:00:00.000Z', ...overrides });
  const newOrder = async (overrides: Record<string, unknown> = {}) => {
    const res = await admin().post('/orders').send(order(overrides));
    expect(res.status, res.text).to.equal(200);
    return res.body.model as Rec;
  };

  before(async () => {
    await ctx.reset();
    app = await ctx.exampleAppWith({}, { history: { orders: true, products: { retain: { versions: 3 } }, reviews: true } });
    owner = await ctx.user();
    editor = await ctx.member(['editor']);
    viewer = await ctx.member(['viewer']);
    carol = await ctx.member(['customer']);
  });
  after(async () => {
    await app?.close();
  });

  it('store: one created entry with the fields set, the actor and the request id answered in X-Request-Id', async () => {
    const res = await admin().post('/orders').set('X-Request-Id', 'req-store-1').send(order({ notes: 'ring' }));
    expect(res.status, res.text).to.equal(200);
    expect(res.headers['x-request-id']).to.equal('req-store-1');
    const [entry, ...rest] = await history('orders', res.body.model.id);
    expect(rest).to.have.length(0);
    expect(entry).to.include({ version: 1, op: 'created', request_id: 'req-store-1' });
    expect(entry.actor.roles).to.be.an('array');
    expect(entry.actor.id).to.not.equal(null);
    expect(entry.changes.notes).to.deep.equal([null, 'ring']);
    expect(entry.changes.total).to.deep.equal([null, 10]);
    expect(entry.changes).to.not.have.any.keys('id', 'created_at', 'updated_at', 'version');
    expect(entry.at).to.match(/^\d{4}-\d\d-\d\dT/);
  });

  it('update: before and after of the changed fields only, the version as the record; a no-op appends nothing', async () => {
    const created = await newOrder({ notes: 'a' });
    const res = await as(editor.token).patch(`/orders/${created.id}`).send({ notes: 'b', total: 10 });
    expect(res.status, res.text).to.equal(200);
    expect((await admin().patch(`/orders/${created.id}`).send({ notes: 'b' })).status).to.equal(200);
    const entries = await history('orders', created.id);
    expect(entries.map((e) => [e.version, e.op])).to.deep.equal([[2, 'updated'], [1, 'created']]);
    expect(entries[0].changes).to.deep.equal({ notes: ['a', 'b'] });
    expect(entries[0].actor).to.deep.equal({ id: editor.user.id, roles: ['editor'] });
    expect(entries[0].request_id).to.match(/^[\w-]+$/);
  });

  it('batch update and upsert: one entry per record written', async () => {
    const a = await newOrder({ notes: 'a' });
    const b = await newOrder({ notes: 'b' });
    const batch = await admin().patch('/orders/batch').send({ order: [{ id: a.id, notes: 'a2' }, { id: b.id, notes: 'b' }] });
    expect(batch.status, batch.text).to.equal(200);
    expect((await history('orders', a.id)).map((e) => e.op)).to.deep.equal(['updated', 'created']);
    expect((await history('orders', b.id)).map((e) => e.op)).to.deep.equal(['created']);
    const fresh = ctx.unique('UP');
    const up = await admin().post('/orders/upsert').send({ match: ['number'], order: [{ ...order({ number: a.number as string }), notes: 'a3' }, order({ number: fresh })] });
    expect(up.status, up.text).to.equal(200);
    const [top] = await history('orders', a.id);
    expect(top).to.include({ op: 'updated', version: 3 });
    expect(top.changes.notes).to.deep.equal(['a2', 'a3']);
    const createdId = up.body.models[1].model.id;
    expect((await history('orders', createdId)).map((e) => e.op)).to.deep.equal(['created']);
  });

  it('a rolled-back write appends nothing (stale version in a batch: 412)', async () => {
    const a = await newOrder();
    const b = await newOrder();
    const res = await admin().patch('/orders/batch').send({ order: [{ id: a.id, notes: 'x', version: 1 }, { id: b.id, notes: 'y', version: 7 }] });
    expect(res.status, res.text).to.equal(412);
    expect(await history('orders', a.id)).to.have.length(1);
    expect(await history('orders', b.id)).to.have.length(1);
  });

  it('destroy: a deleted entry with the last values, still readable by who could read the record, not by others', async () => {
    const created = await newOrder({ user_id: carol.user.id, notes: 'gone' });
    expect((await admin().delete(`/orders/${created.id}`)).status).to.equal(200);
    const [top] = await history('orders', created.id);
    expect(top).to.include({ op: 'deleted' });
    expect(top.changes.notes).to.deep.equal(['gone', null]);
    expect((await history('orders', created.id, carol.token)).length).to.equal(2);
    const other = await ctx.member(['customer']);
    expectError(await as(other.token).get(`/orders/${created.id}/history`), 404, 'not_found');
  });

  it('a delete under restrict rules (products): refused while a review holds it, nothing appended; then a deleted entry with the last values', async () => {
    const product = (await admin().post('/products').send({ name: 'Held', sku: ctx.unique('D'), price: 7 })).body.model as Rec;
    const review = (await admin().post('/reviews').send({ product_id: product.id, rating: 3 })).body.model as Rec;
    expectError(await admin().delete(`/products/${product.id}`), 409, 'foreign_key_violation');
    expect((await history('products', product.id)).map((e) => e.op)).to.deep.equal(['created']);
    expect((await admin().delete(`/reviews/${review.id}/force`)).status).to.equal(200);
    expect((await admin().delete('/products/batch').send({ ids: [product.id] })).status).to.equal(200);
    const [top] = await history('products', product.id);
    expect(top.op).to.equal('deleted');
    expect(top.changes).to.deep.include({ name: ['Held', null], price: [7, null] });
  });

  it('soft delete, restore, force delete and set-null by a delete rule (reviews)', async () => {
    const product = await ctx.product();
    const user = await ctx.user();
    const review = (await admin().post('/reviews').send({ product_id: product.id, user_id: user.id, rating: 4 })).body.model as Rec;
    expect((await admin().delete(`/reviews/${review.id}`)).status).to.equal(200);
    // a trashed record's history needs soft_delete=with, as its show does
    expectError(await admin().get(`/reviews/${review.id}/history`), 404, 'not_found');
    expect((await history('reviews', review.id, ctx.app.info.adminToken, '?soft_delete=with')).map((e) => e.op)).to.deep.equal(['deleted', 'created']);
    expect((await admin().post(`/reviews/${review.id}/restore`)).status).to.equal(200);
    expect((await admin().delete(`/users/${user.id}`)).status).to.equal(200);
    const entries = await history('reviews', review.id);
    expect(entries.map((e) => e.op)).to.deep.equal(['updated', 'restored', 'deleted', 'created']);
    expect(entries[0].changes).to.deep.equal({ user_id: [user.id, null] });
    expect(entries[2].changes.deleted_at?.[0]).to.equal(null);
    expect((await admin().delete(`/reviews/${review.id}/force`)).status).to.equal(200);
    const [top] = await history('reviews', review.id);
    expect(top.op).to.equal('force_deleted');
    expect(top.changes.rating).to.deep.equal([4, null]);
  });

  it('nested writes and relation routes append entries for the records they write', async () => {
    const res = await admin().post('/products').send({ name: 'Nested', sku: ctx.unique('N'), price: 3, reviews: [{ rating: 5 }] });
    expect(res.status, res.text).to.equal(200);
    const reviews = await ctx.get('/reviews', { eq: { product_id: res.body.model.id } });
    expect(reviews.status, reviews.text).to.equal(200);
    const reviewId = reviews.body.data[0].id as Id;
    expect((await history('reviews', reviewId)).map((e) => e.op)).to.deep.equal(['created']);
    expect((await history('products', res.body.model.id)).map((e) => e.op)).to.deep.equal(['created']);
    const via = await admin().post(`/products/${res.body.model.id}/reviews`).send({ reviews: { rating: 2 } });
    expect(via.status, via.text).to.be.oneOf([200, 201]);
    const viaId = (via.body.model ?? via.body.models?.[0]?.model ?? via.body.data?.[0])?.id as Id;
    expect((await history('reviews', viaId)).map((e) => e.op)).to.deep.equal(['created']);
  });

  it('the read policy: a viewer never sees cost in changes, an editor does', async () => {
    const product = (await admin().post('/products').send({ name: 'Costly', sku: ctx.unique('C'), price: 9, cost: 4 })).body.model as Rec;
    expect((await admin().patch(`/products/${product.id}`).send({ cost: 5 })).status).to.equal(200);
    const seen = await history('products', product.id, viewer.token);
    expect(seen.map((e) => e.op)).to.deep.equal(['updated', 'created']);
    for (const entry of seen) expect(entry.changes).to.not.have.property('cost');
    expect(seen[0].changes).to.deep.equal({});
    const full = await history('products', product.id, editor.token);
    expect(full[0].changes).to.deep.equal({ cost: [4, 5] });
  });

  it('retention keeps the newest versions, pruned in the write', async () => {
    const product = (await admin().post('/products').send({ name: 'R0', sku: ctx.unique('R'), price: 1 })).body.model as Rec;
    for (let i = 1; i <= 5; i += 1) expect((await admin().patch(`/products/${product.id}`).send({ name: `R${i}` })).status).to.equal(200);
    const entries = await history('products', product.id);
    expect(entries.map((e) => e.version)).to.deep.equal([6, 5, 4]);
    expect(entries[0].changes.name).to.deep.equal(['R4', 'R5']);
    // a version retention dropped is gone for revert too
    expectError(await admin().post(`/products/${product.id}/history/3/revert`), 404, 'not_found');
    expect((await admin().post(`/products/${product.id}/history/4/revert`)).status).to.equal(200);
    expect((await history('products', product.id)).map((e) => [e.version, e.op])).to.deep.equal([[7, 'reverted'], [6, 'updated'], [5, 'updated']]);
  });

  it('pagination: the list envelope, newest first', async () => {
    const created = await newOrder({ notes: '0' });
    for (let i = 1; i <= 4; i += 1) await admin().patch(`/orders/${created.id}`).send({ notes: String(i) });
    const res = await admin().get(`/orders/${created.id}/history`).query({ pagination: JSON.stringify({ page: 2, pageSize: 2 }) });
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body).slice(0, 4)).to.deep.equal(['current_page', 'data', 'per_page', 'total']);
    expect(res.body).to.include({ current_page: 2, per_page: 2, total: 5 });
    expect(res.body.data.map((e: Entry) => e.version)).to.deep.equal([3, 2]);
  });

  it('revert: an update by the caller appending reverted, If-Match 412, update permission, unknown version 404', async () => {
    const created = await newOrder({ notes: 'first', total: 10 });
    await admin().patch(`/orders/${created.id}`).send({ notes: 'second', total: 20 });
    await admin().patch(`/orders/${created.id}`).send({ notes: 'third' });
    expectError(await as(viewer.token).post(`/orders/${created.id}/history/2/revert`), 403, 'forbidden');
    const stale = await as(editor.token).post(`/orders/${created.id}/history/2/revert`).set('If-Match', '"1"');
    expectError(stale, 412, 'precondition_failed');
    expect(stale.headers.etag).to.equal('"3"');
    expectError(await admin().post(`/orders/${created.id}/history/99/revert`), 404, 'not_found');
    const res = await as(editor.token).post(`/orders/${created.id}/history/2/revert`).set('If-Match', '"3"');
    expect(res.status, res.text).to.equal(200);
    expect(res.body.model).to.include({ notes: 'second', total: 20, version: 4 });
    expect(res.headers.etag).to.equal('"4"');
    const [top] = await history('orders', created.id);
    expect(top).to.include({ op: 'reverted', version: 4 });
    expect(top.changes).to.deep.equal({ notes: ['third', 'second'] });
    // reverting to the state it already has writes and appends nothing
    expect((await as(editor.token).post(`/orders/${created.id}/history/2/revert`)).status).to.equal(200);
    expect((await history('orders', created.id)).length).to.equal(4);
  });

  it('revert under the write policy: a field the caller may not write answers as the same update would, nothing appended', async () => {
    const product = (await admin().post('/products').send({ name: 'Guarded', sku: ctx.unique('G'), price: 9, cost: 4 })).body.model as Rec;
    expect((await admin().patch(`/products/${product.id}`).send({ cost: 6 })).status).to.equal(200);
    const [top] = await history('products', product.id);
    const direct = await as(editor.token).patch(`/products/${product.id}`).send({ cost: 4 });
    const revert = await as(editor.token).post(`/products/${product.id}/history/${top.version - 1}/revert`);
    // cost is written by admins only: the same 422 as the PATCH an editor could send
    expectError(direct, 422, 'validation_error');
    expectError(revert, 422, 'validation_error');
    expect(revert.body.errors).to.have.property('cost');
    expect(await history('products', product.id)).to.have.length(2);
  });

  it('an Idempotency-Key replay appends nothing', async () => {
    const created = await newOrder({ notes: 'idem' });
    const key = ctx.unique('idem');
    const first = await admin().patch(`/orders/${created.id}`).set('Idempotency-Key', key).send({ notes: 'once' });
    expect(first.status, first.text).to.equal(200);
    const replay = await admin().patch(`/orders/${created.id}`).set('Idempotency-Key', key).send({ notes: 'once' });
    expect(replay.headers['idempotent-replayed']).to.equal('true');
    expect((await history('orders', created.id)).map((e) => e.op)).to.deep.equal(['updated', 'created']);
  });

  it('an upsert that changes nothing appends nothing', async () => {
    const created = await newOrder({ notes: 'same' });
    const up = await admin().post('/orders/upsert').send({ match: ['number'], order: [{ number: created.number, notes: 'same' }] });
    expect(up.status, up.text).to.equal(200);
    expect(up.body.unchanged).to.equal(1);
    expect(await history('orders', created.id)).to.have.length(1);
  });

  it('an upsert of changed, unchanged and new records: the unchanged answer whole, entries for the others only', async () => {
    const changed = await newOrder({ notes: 'c1' });
    const kept = await newOrder({ notes: 'k' });
    const fresh = ctx.unique('UPM');
    const up = await admin().post('/orders/upsert').send({ match: ['number'], order: [{ number: changed.number, notes: 'c2' }, { number: kept.number, notes: 'k' }, order({ number: fresh })] });
    expect(up.status, up.text).to.equal(200);
    expect(up.body.models.map((m: { action: string }) => m.action)).to.deep.equal(['updated', 'unchanged', 'created']);
    const shown = await admin().get(`/orders/${kept.id}`);
    expect(shown.status, shown.text).to.equal(200);
    expect(up.body.models[1].model).to.deep.equal(shown.body);
    expect(up.body.models[0].model).to.include({ id: changed.id, notes: 'c2' });
    const [top] = await history('orders', changed.id);
    expect(top).to.include({ op: 'updated', version: 2 });
    expect(top.changes).to.deep.equal({ notes: ['c1', 'c2'] });
    expect(await history('orders', kept.id)).to.have.length(1);
    expect((await history('orders', up.body.models[2].model.id)).map((e) => e.op)).to.deep.equal(['created']);
  });

  it('a resource without history has no history routes (JSON 404)', async () => {
    const tag = await ctx.tagRec();
    const res = await ctx.request().get(`${API}/tags/${tag.id}/history`);
    expectError(res, 404, 'not_found');
    // products keep no history in the example app, and have relation routes: still the JSON 404, not a relation error
    const product = await ctx.product();
    expectError(await ctx.request().get(`${API}/products/${product.id}/history`), 404, 'not_found');
    expectError(await ctx.request().post(`${API}/products/${product.id}/history/1/revert`), 404, 'not_found');
  });
});
