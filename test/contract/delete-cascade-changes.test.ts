import { expect } from 'chai';
import { API, forEachDriver } from '../support/contract-app';
import { ChangeStream, listen } from '../support/change-stream';

/**
 * Decision 76 on the example shop: deleting a user sets their reviews' user_id to null (the
 * set-null rule), and the reviews' change feed hears an `updated` event per review, trashed ones
 * included, after the commit; the other users' reviews hear nothing. A pivot cascade (a tag's
 * product_tag rows) removes link rows, which are records of no resource: the tag's `deleted` is
 * the only event, as for a detach.
 */
forEachDriver('change feed: the writes a delete makes on its own behalf (decision 76)', (ctx) => {
  let server: { url: string; close(): Promise<void> };
  let open: ChangeStream[] = [];
  const feed = async (resource: string): Promise<ChangeStream> => {
    const stream = await ChangeStream.open(`${server.url}${API}/${resource}/changes`, { token: ctx.app.info.adminToken });
    expect(stream.status).to.equal(200);
    open.push(stream);
    return stream;
  };
  const admin = () => ctx.request();

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

  it('deleting a user: `updated` with user_id null for each of their reviews (a trashed one too); the user `deleted`', async () => {
    const product = await ctx.product();
    const user = await ctx.user();
    const other = await ctx.user();
    const mine = [await ctx.create('reviews', { product_id: product.id, user_id: user.id, rating: 4 }), await ctx.create('reviews', { product_id: product.id, user_id: user.id, rating: 2 })];
    const theirs = await ctx.create('reviews', { product_id: product.id, user_id: other.id, rating: 5 });
    await admin().delete(`${API}/reviews/${mine[1].id}`).expect(200);
    const reviews = await feed('reviews');
    const users = await feed('users');
    await admin().delete(`${API}/users/${user.id}`).expect(200);
    const [gone] = await users.take(1);
    expect([gone.type, gone.data.id]).to.deep.equal(['deleted', user.id]);
    const events = await reviews.take(2);
    expect(events.map((e) => [e.type, e.data.id, e.data.model!.user_id, e.data.model!.rating])).to.have.deep.members([
      ['updated', mine[0].id, null, 4],
      ['updated', mine[1].id, null, 2],
    ]);
    await reviews.none(300);
    const stored = await ctx.fetch('reviews', mine[0].id);
    expect(stored.user_id).to.equal(null);
    expect((await ctx.fetch('reviews', theirs.id)).user_id).to.equal(other.id);
  });

  it('DELETE /users/batch: one `updated` per review of either user', async () => {
    const product = await ctx.product();
    const [a, b] = [await ctx.user(), await ctx.user()];
    const ra = await ctx.create('reviews', { product_id: product.id, user_id: a.id, rating: 1 });
    const rb = await ctx.create('reviews', { product_id: product.id, user_id: b.id, rating: 3 });
    const reviews = await feed('reviews');
    const res = await admin().delete(`${API}/users/batch`).send({ ids: [a.id, b.id] });
    expect(res.status, res.text).to.equal(200);
    const events = await reviews.take(2);
    expect(events.map((e) => [e.type, e.data.id, e.data.model!.user_id])).to.have.deep.members([['updated', ra.id, null], ['updated', rb.id, null]]);
    await reviews.none(300);
  });

  it('a user without reviews: no review event; a refused product delete (409): no event anywhere', async () => {
    const reviews = await feed('reviews');
    const products = await feed('products');
    const lonely = await ctx.user();
    await admin().delete(`${API}/users/${lonely.id}`).expect(200);
    const product = await ctx.product();
    const [created] = await products.take(1);
    expect(created.type).to.equal('created');
    await ctx.create('reviews', { product_id: product.id, rating: 3 });
    const [review] = await reviews.take(1);
    expect(review.type).to.equal('created');
    expect((await admin().delete(`${API}/products/${product.id}`)).status).to.equal(409);
    await reviews.none(300);
    await products.none(0);
  });

  it('deleting a tag: its product_tag rows go with it; the tag is `deleted`, the linked products hear nothing (their own fields did not change)', async () => {
    const product = await ctx.product();
    const tag = await ctx.tagRec();
    await ctx.attach(product, tag, { position: 1 });
    const tags = await feed('tags');
    const products = await feed('products');
    await admin().delete(`${API}/tags/${tag.id}`).expect(200);
    const [gone] = await tags.take(1);
    expect([gone.type, gone.data.id]).to.deep.equal(['deleted', tag.id]);
    await products.none(300);
    expect((await ctx.fetch('products', product.id, { relations: ['tags'] })).tags).to.deep.equal([]);
  });
});
