import { expect } from 'chai';
import { API, forEachDriver, type Rec } from '../support/contract-app';
import { ChangeStream, listen } from '../support/change-stream';

/** Nested writes reach the change feed (decision 60): one event per related record after the commit, nothing for a rollback. */
forEachDriver('nested writes: change feed', (ctx) => {
  let server: { url: string; close(): Promise<void> };
  let open: ChangeStream[] = [];
  const feed = async (resource: string): Promise<ChangeStream> => {
    const stream = await ChangeStream.open(`${server.url}${API}/${resource}/changes`, { token: ctx.app.info.adminToken });
    open.push(stream);
    return stream;
  };

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

  it('created, updated and deleted events for the nested reviews, and created for the product', async () => {
    const products = await feed('products');
    const reviews = await feed('reviews');
    const res = await ctx.request().post(`${API}/products`).send({ name: 'Fed', sku: ctx.unique('sku'), price: 1, reviews: [{ rating: 4 }, { rating: 5 }] });
    expect(res.status, res.text).to.equal(200);
    const product = res.body.model as Rec & { reviews: Rec[] };
    expect((await products.take(1)).map((e) => [e.type, e.data.id])).to.deep.equal([['created', product.id]]);
    const created = await reviews.take(2);
    expect(created.map((e) => e.type)).to.deep.equal(['created', 'created']);
    expect(created.map((e) => String(e.data.id)).sort()).to.deep.equal(product.reviews.map((r) => String(r.id)).sort());
    const [first, second] = product.reviews;
    const patched = await ctx.request().patch(`${API}/products/${product.id}`).send({ reviews: { update: [{ id: first.id, rating: 1 }], delete: [second.id] } });
    expect(patched.status, patched.text).to.equal(200);
    const changed = await reviews.take(2);
    expect(changed.map((e) => [e.type, String(e.data.id)]).sort()).to.deep.equal([['deleted', String(second.id)], ['updated', String(first.id)]].sort());
  });

  it('a rolled-back nested write emits nothing', async () => {
    const product = await ctx.product();
    const reviews = await feed('reviews');
    const absent = await ctx.absentId('tags');
    const res = await ctx.request().patch(`${API}/products/${product.id}`).send({ reviews: { create: [{ rating: 5 }] }, tags: [absent] });
    expect(res.status).to.equal(422);
    await reviews.none(300);
  });
});
