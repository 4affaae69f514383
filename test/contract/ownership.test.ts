import { expect } from 'chai';
import { API, expectError, forEachDriver, type Member, type Rec } from '../support/contract-app';

/**
 * Ownership (decision 40): reviews are owned through user_id, users through id. Customers hold
 * read-any + create/update/delete-own on reviews and read-own on users.
 */
forEachDriver('authorization: ownership', (ctx) => {
  let carol: Member;
  let dave: Member;
  let product: Rec;
  let carolsReview: Rec;
  let davesReview: Rec;

  before(async () => {
    await ctx.reset();
    carol = await ctx.member(['customer'], { name: 'Carol' });
    dave = await ctx.member(['customer'], { name: 'Dave' });
    product = await ctx.product();
    carolsReview = await ctx.create('reviews', { product_id: product.id, user_id: carol.user.id, rating: 5 });
    davesReview = await ctx.create('reviews', { product_id: product.id, user_id: dave.user.id, rating: 2 });
  });

  it('a create under an own grant is stamped with the caller, whatever the body says', async () => {
    const res = await carol.agent().post(`${API}/reviews`).send({ product_id: product.id, user_id: dave.user.id, rating: 4 });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.model.user_id).to.equal(carol.user.id);
    const bulk = await carol.agent().post(`${API}/reviews`).send({ review: [{ product_id: product.id, rating: 3 }, { product_id: product.id, user_id: null, rating: 1 }] });
    expect(bulk.status, bulk.text).to.equal(200);
    for (const m of bulk.body.models) expect(m.model.user_id).to.equal(carol.user.id);
  });

  it('read-any reviews: every review is listed; a read-own resource (users) is narrowed to the caller', async () => {
    const reviews = await carol.agent().get(`${API}/reviews`);
    expect(reviews.body.data.map((r: Rec) => r.id)).to.include.members([carolsReview.id, davesReview.id]);
    const users = await carol.agent().get(`${API}/users`);
    expect(users.status).to.equal(200);
    expect(users.body.data.map((u: Rec) => u.id)).to.deep.equal([carol.user.id]);
    const paged = await carol.agent().get(`${API}/users`).query({ pagination: JSON.stringify({ page: 1, pageSize: 10 }) });
    expect(paged.body.total).to.equal(1);
    expect((await carol.agent().get(`${API}/users/first`).query({ oper: JSON.stringify({ and: ['name|=|Dave'] }) })).body.data).to.equal(null);
    expect((await carol.agent().get(`${API}/users/${carol.user.id}`)).status).to.equal(200);
    // a record the caller may not read is absent (404), not forbidden
    expectError(await carol.agent().get(`${API}/users/${dave.user.id}`), 404, 'not_found');
  });

  it('relations to a read-own resource show only the caller\'s records', async () => {
    const res = await carol.agent().get(`${API}/reviews`).query({ relations: 'user', oper: JSON.stringify({ and: [`product_id|=|${product.id}`] }) });
    expect(res.status, res.text).to.equal(200);
    for (const review of res.body.data) {
      if (review.user_id === carol.user.id) expect(review.user.name).to.equal('Carol');
      else expect(review.user).to.equal(null);
    }
    expect(res.text).to.not.include('Dave');
  });

  it('update, delete and their bulk forms: another\'s readable record is a 403 and nothing changes', async () => {
    expectError(await carol.agent().patch(`${API}/reviews/${davesReview.id}`).send({ rating: 1 }), 403, 'forbidden');
    expectError(await carol.agent().put(`${API}/reviews/${davesReview.id}`).send({ rating: 1 }), 403, 'forbidden');
    expectError(await carol.agent().delete(`${API}/reviews/${davesReview.id}`), 403, 'forbidden');
    expectError(await carol.agent().patch(`${API}/reviews/batch`).send({ review: [{ id: carolsReview.id, rating: 1 }, { id: davesReview.id, rating: 1 }] }), 403, 'forbidden');
    expectError(await carol.agent().post(`${API}/reviews/update-multiple`).send({ review: [{ id: davesReview.id, rating: 1 }] }), 403, 'forbidden');
    expectError(await carol.agent().delete(`${API}/reviews/batch`).send({ ids: [carolsReview.id, davesReview.id] }), 403, 'forbidden');
    expect((await ctx.fetch('reviews', davesReview.id)).rating).to.equal(2);
    expect((await ctx.fetch('reviews', carolsReview.id)).rating).to.equal(5);
  });

  it('an update cannot give a record away; own records update and delete', async () => {
    const res = await carol.agent().patch(`${API}/reviews/${carolsReview.id}`).send({ rating: 3, user_id: dave.user.id });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.model).to.include({ rating: 3, user_id: carol.user.id });
    const mine = await ctx.create('reviews', { product_id: product.id, user_id: carol.user.id, rating: 1 });
    expect((await carol.agent().delete(`${API}/reviews/${mine.id}`)).status).to.equal(200);
    // restore needs update: own trashed review (restore) vs another's
    expect((await carol.agent().post(`${API}/reviews/${mine.id}/restore`)).status).to.equal(200);
    const his = await ctx.create('reviews', { product_id: product.id, user_id: dave.user.id, rating: 1 });
    expect((await ctx.request().delete(`${API}/reviews/${his.id}`)).status).to.equal(200);
    expectError(await carol.agent().post(`${API}/reviews/${his.id}/restore`), 403, 'forbidden');
    expectError(await carol.agent().delete(`${API}/reviews/${his.id}/force`), 403, 'forbidden');
  });

  it('no grant at all for the action is the middleware\'s 403, before any record is looked at', async () => {
    expectError(await carol.agent().patch(`${API}/users/${carol.user.id}`).send({ name: 'x' }), 403, 'forbidden');
    expectError(await carol.agent().patch(`${API}/users/${'f'.repeat(24)}`).send({ name: 'x' }), 403, 'forbidden');
  });
});

forEachDriver('authorization: hostile credentials', (ctx) => {
  let viewer: Member;
  before(async () => {
    await ctx.reset();
    viewer = await ctx.member(['viewer']);
  });

  it('malformed, unknown, oversized or misplaced credentials are 401s', async () => {
    const headers = [
      viewer.token, // no scheme
      `Basic ${viewer.token}`,
      `Bearer`,
      `Bearer `,
      `Bearer  ${viewer.token}`,
      `bearer${viewer.token}`,
      `Bearer ${viewer.token} ${viewer.token}`,
      `Bearer ${viewer.token}x`,
      `Bearer ${'a'.repeat(10_000)}`,
      `Bearer ${viewer.token}\u0000`,
      `Bearer {"$ne":null}`,
    ];
    for (const header of headers) {
      const res = await ctx.as(null).get(`${API}/products`).set('Authorization', header.replace(/\u0000/g, '%00'));
      expectError(res, 401, 'unauthenticated', 'Unauthenticated.');
    }
    // beyond Node's header limit the server itself refuses the request
    expect((await ctx.as(null).get(`${API}/products`).set('Authorization', `Bearer ${'a'.repeat(100_000)}`)).status).to.equal(431);
    // a token in the query string or the body is never read
    expectError(await ctx.as(null).get(`${API}/products`).query({ api_token: viewer.token, token: viewer.token }), 401, 'unauthenticated');
    expectError(await ctx.as(null).get(`${API}/products`).send({ api_token: viewer.token }), 401, 'unauthenticated');
    expect((await viewer.agent().get(`${API}/products`)).status).to.equal(200);
  });

  it('a role change applies to the next request; a removed token stops working', async () => {
    const body = { name: 'Promoted', sku: ctx.unique('pr'), price: 1 };
    expectError(await viewer.agent().post(`${API}/products`).send(body), 403, 'forbidden');
    expect((await ctx.request().patch(`${API}/users/${viewer.user.id}`).send({ roles: ['editor'] })).status).to.equal(200);
    expect((await viewer.agent().post(`${API}/products`).send(body)).status).to.equal(200);
    expect((await viewer.agent().get(`${API}/products`)).body.data[0]).to.have.property('cost');
    expect((await ctx.request().patch(`${API}/users/${viewer.user.id}`).send({ roles: ['viewer'] })).status).to.equal(200);
    expect((await viewer.agent().get(`${API}/products`)).body.data[0]).to.not.have.property('cost');
    expect((await ctx.request().patch(`${API}/users/${viewer.user.id}`).send({ api_token: null })).status).to.equal(200);
    expectError(await viewer.agent().get(`${API}/products`), 401, 'unauthenticated');
  });

  it('tokens are stored only as hashes and never answered', async () => {
    const res = await ctx.request().get(`${API}/users`);
    expect(res.text).to.not.include(viewer.token);
    expect(res.body.data[0]).to.not.have.property('api_token');
  });
});
