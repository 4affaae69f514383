import { expect } from 'chai';
import { expectError, forEachDriver, type Rec } from '../support/contract-app';

/**
 * Soft delete (decisions 36, 46, 51) on the example's reviews: trashed records are hidden from
 * every read path by default, `soft_delete=with|only` on the root, restore and force delete.
 */
forEachDriver('soft delete', (ctx) => {
  let product: Rec;
  let user: Rec;
  let kept: Rec;
  let trashed: Rec;
  const del = (path: string) => ctx.request().delete(`/api/v1${path}`);
  const post = (path: string) => ctx.request().post(`/api/v1${path}`);
  const ids = (res: { body: { data: Rec[] } }) => res.body.data.map((r) => String(r.id)).sort();

  before(async () => {
    await ctx.reset();
    product = await ctx.product({ name: 'Reviewed lamp' });
    user = await ctx.user();
    kept = await ctx.create('reviews', { product_id: product.id, user_id: user.id, rating: 5 });
    trashed = await ctx.create('reviews', { product_id: product.id, user_id: user.id, rating: 1, comment: 'bad' });
    const res = await del(`/reviews/${trashed.id}`);
    expect(res.status, res.text).to.equal(200);
    // decision 51: a soft destroy answers the record with its deletion time set
    expect(res.body.model.id).to.equal(trashed.id);
    expect(res.body.model.deleted_at).to.be.a('string');
  });

  it('the trashed record is still in the database with its deletion time (with)', async () => {
    const res = await ctx.get(`/reviews/${trashed.id}`, { soft_delete: 'with' });
    expect(res.status).to.equal(200);
    expect(res.body.deleted_at).to.be.a('string');
    expect(res.body.comment).to.equal('bad');
  });

  it('lists, /first, show and counts exclude trashed records by default', async () => {
    expect(ids(await ctx.get('/reviews', { attr: { product_id: product.id } }))).to.deep.equal([String(kept.id)]);
    expect((await ctx.get('/reviews/first', { attr: { rating: 1 } })).body.data).to.equal(null);
    expectError(await ctx.get(`/reviews/${trashed.id}`), 404, 'not_found');
    expect(await ctx.count('reviews', { attr: { product_id: product.id } })).to.equal(1);
  });

  it('eager-loaded relations and nested loads exclude trashed records', async () => {
    const shown = await ctx.get(`/products/${product.id}`, { relations: 'reviews' });
    expect(shown.body.reviews.map((r: Rec) => r.id)).to.deep.equal([kept.id]);
    const nested = await ctx.get(`/users/${user.id}`, { relations: 'reviews.product' });
    expect(nested.body.reviews.map((r: Rec) => r.id)).to.deep.equal([kept.id]);
  });

  it('relation existence filters ignore trashed records', async () => {
    const res = await ctx.get('/products', { oper: { reviews: { and: ['rating|=|1'] } }, attr: { id: product.id } });
    expect(res.body.data).to.deep.equal([]);
    const withFive = await ctx.get('/products', { oper: { reviews: { and: ['rating|=|5'] } }, attr: { id: product.id } });
    expect(withFive.body.data.map((p: Rec) => p.id)).to.deep.equal([product.id]);
  });

  it('soft_delete=with includes, only returns only trashed; it applies to the root only', async () => {
    expect(ids(await ctx.get('/reviews', { attr: { product_id: product.id }, soft_delete: 'with' }))).to.deep.equal([String(kept.id), String(trashed.id)].sort());
    expect(ids(await ctx.get('/reviews', { attr: { product_id: product.id }, soft_delete: 'only' }))).to.deep.equal([String(trashed.id)]);
    expect(ids(await ctx.get('/reviews', { attr: { product_id: product.id }, soft_delete: true }))).to.have.length(2);
    // eager-loaded reviews never include trashed ones; products are not soft-deletable, so
    // soft_delete on them is a 400 saying so (issue 44), not a way to reach their relations
    const root = await ctx.get(`/products/${product.id}`, { relations: 'reviews' });
    expect(root.body.reviews.map((r: Rec) => r.id)).to.deep.equal([kept.id]);
    expectError(await ctx.get(`/products/${product.id}`, { relations: 'reviews', soft_delete: 'with' }), 400, 'bad_request', /"soft_delete" does not apply to products/);
  });

  it('exports exclude trashed records', async () => {
    const res = await ctx.get('/reviews/export/pdf', { attr: { product_id: product.id }, columns: 'id,rating' });
    expect(res.status).to.equal(200);
    expect(res.headers['x-total-count']).to.equal('1');
    const only = await ctx.get('/reviews/export/pdf', { attr: { product_id: product.id }, soft_delete: 'only' });
    expect(only.headers['x-total-count']).to.equal('1');
  });

  it('any other soft_delete value is a 400 naming it', async () => {
    expectError(await ctx.get('/reviews', { soft_delete: 'sometimes' }), 400, 'bad_request', /soft_delete/);
  });

  it('writes do not see trashed records: update and delete are 404s, batch deletes name them', async () => {
    expectError(await ctx.request().patch(`/api/v1/reviews/${trashed.id}`).send({ rating: 2 }), 404, 'not_found');
    expectError(await del(`/reviews/${trashed.id}`), 404, 'not_found');
    const batch = await ctx.request().delete('/api/v1/reviews/batch').send({ ids: [kept.id, trashed.id] });
    expectError(batch, 404, 'not_found');
    expect((await ctx.get(`/reviews/${kept.id}`)).status).to.equal(200);
  });

  it('the deletion field is never written from a body', async () => {
    const res = await ctx.request().patch(`/api/v1/reviews/${kept.id}`).send({ deleted_at: '2020-01-01T00:00:00Z', comment: 'fine' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.model.deleted_at).to.equal(null);
    expect((await ctx.get(`/reviews/${kept.id}`)).status).to.equal(200);
  });

  it('DELETE /batch soft-deletes every id; restore brings one back; restoring a live record is a 404', async () => {
    const a = await ctx.create('reviews', { product_id: product.id, rating: 3 });
    const b = await ctx.create('reviews', { product_id: product.id, rating: 4 });
    const res = await ctx.request().delete('/api/v1/reviews/batch').send({ ids: [a.id, b.id] });
    expect(res.body).to.deep.equal({ success: true, deleted: 2 });
    expect(ids(await ctx.get('/reviews', { attr: { product_id: product.id }, soft_delete: 'only' }))).to.include.members([String(a.id), String(b.id)]);
    const restored = await post(`/reviews/${a.id}/restore`);
    expect(restored.status, restored.text).to.equal(200);
    expect(restored.body.model.deleted_at).to.equal(null);
    expect((await ctx.get(`/reviews/${a.id}`)).status).to.equal(200);
    expectError(await post(`/reviews/${a.id}/restore`), 404, 'not_found');
    expectError(await post('/reviews/999999/restore'), 404, 'not_found');
  });

  it('force delete removes a record for good, trashed or not', async () => {
    const live = await ctx.create('reviews', { product_id: product.id, rating: 2 });
    const gone = await del(`/reviews/${live.id}/force`);
    expect(gone.status, gone.text).to.equal(200);
    expect(gone.body.model.id).to.equal(live.id);
    expectError(await ctx.get(`/reviews/${live.id}`, { soft_delete: 'with' }), 404, 'not_found');
    const forced = await del(`/reviews/${trashed.id}/force`);
    expect(forced.status).to.equal(200);
    expectError(await ctx.get(`/reviews/${trashed.id}`, { soft_delete: 'with' }), 404, 'not_found');
    expectError(await del(`/reviews/${trashed.id}/force`), 404, 'not_found');
  });

  it('parallel soft destroys of one record: exactly one 200; parallel restores: exactly one 200', async () => {
    const review = await ctx.create('reviews', { product_id: product.id, rating: 4 });
    const destroys = await Promise.all(Array.from({ length: 6 }, () => del(`/reviews/${review.id}`)));
    expect(destroys.filter((r) => r.status === 200)).to.have.length(1);
    for (const r of destroys) expect(r.status).to.be.oneOf([200, 404]);
    const restores = await Promise.all(Array.from({ length: 6 }, () => post(`/reviews/${review.id}/restore`)));
    expect(restores.filter((r) => r.status === 200)).to.have.length(1);
    for (const r of restores) expect(r.status).to.be.oneOf([200, 404]);
  });

  it('restore and force exist only for soft-deletable resources', async () => {
    const res = await post(`/products/${product.id}/restore`);
    expect(res.status).to.equal(404);
  });

  it('a trashed review still holds its reference: the product cannot be deleted while it exists (restrict)', async () => {
    const other = await ctx.product({ name: 'Only trashed reviews' });
    const review = await ctx.create('reviews', { product_id: other.id, rating: 2 });
    await del(`/reviews/${review.id}`);
    expectError(await del(`/products/${other.id}`), 409, 'foreign_key_violation');
    await del(`/reviews/${review.id}/force`);
    expect((await del(`/products/${other.id}`)).status).to.equal(200);
  });
});
