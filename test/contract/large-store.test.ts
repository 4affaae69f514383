import { expect } from 'chai';
import { API, expectError, expectValidation, forEachDriver, sameId, type Rec } from '../support/contract-app';

/**
 * POST /{resource} with hundreds of records: the same answers as a small bulk create, wherever in
 * the batch a problem sits (PostgreSQL validates and inserts such a batch in overlapping chunks of
 * 250 or more; see lib/service/writes/pipelined-insert.ts). All or nothing, every item's errors.
 */
forEachDriver('store, large batches', (ctx) => {
  before(async () => {
    await ctx.reset();
  });

  const SIZE = 1000;
  const post = (body: unknown) => ctx.request().post('/api/v1/products').send(body as object);
  const batch = (prefix: string, categoryId: unknown) =>
    Array.from({ length: SIZE }, (_, i): Record<string, unknown> => ({ name: `Large ${i}`, sku: `${prefix}-${i}`, price: i % 50, stock: i % 7, category_id: categoryId }));
  const written = (prefix: string) => ctx.count('products', { oper: { and: [`sku|like|${prefix}-%`] } });

  it(`${SIZE} records are all written and answered in input order`, async () => {
    const prefix = ctx.unique('LARGE');
    const category = await ctx.category();
    const res = await post({ product: batch(prefix, category.id) });
    expect(res.status, res.text.slice(0, 300)).to.equal(200);
    const models = res.body.models.map((m: { model: Rec }) => m.model);
    expect(models.map((m: Rec) => m.sku)).to.deep.equal(batch(prefix, null).map((p) => p.sku));
    expect(models.every((m: Rec) => sameId(m.category_id, category.id))).to.equal(true);
    expect(new Set(models.map((m: Rec) => String(m.id))).size).to.equal(SIZE);
    expect(await written(prefix)).to.equal(SIZE);
  });

  it('invalid items at the start and the end: every error reported, nothing written', async () => {
    const prefix = ctx.unique('LARGE');
    const items = batch(prefix, null);
    items[3].price = -1;
    items[SIZE - 2].name = 42;
    items[SIZE - 1].category_id = 'abc';
    const errors = expectValidation(await post({ product: items }), 'product.3.price', `product.${SIZE - 2}.name`, `product.${SIZE - 1}.category_id`);
    expect(Object.keys(errors).sort()).to.deep.equal(['product.3.price', `product.${SIZE - 2}.name`, `product.${SIZE - 1}.category_id`].sort());
    expect(await written(prefix)).to.equal(0);
  });

  it('an absent belongsTo near the end is a 422 naming that item, nothing written', async () => {
    const prefix = ctx.unique('LARGE');
    const category = await ctx.category();
    const items = batch(prefix, category.id);
    items[SIZE - 10].category_id = await ctx.absentId('categories');
    const errors = expectValidation(await post({ product: items }), `product.${SIZE - 10}.category_id`);
    expect(Object.keys(errors)).to.deep.equal([`product.${SIZE - 10}.category_id`]);
    expect(await written(prefix)).to.equal(0);
  });

  it('a duplicate sku between the first and the last item is a 409, nothing written', async () => {
    const prefix = ctx.unique('LARGE');
    const items = batch(prefix, null);
    items[SIZE - 1].sku = items[0].sku;
    expect(expectError(await post({ product: items }), 409, 'unique_violation').field).to.equal('sku');
    expect(await written(prefix)).to.equal(0);
  });

  it('a duplicate sku early and an invalid item late: the item errors win (422), nothing written', async () => {
    const prefix = ctx.unique('LARGE');
    const existing = await ctx.product();
    const items = batch(prefix, null);
    items[1].sku = existing.sku;
    items[SIZE - 1].stock = 1.5;
    const errors = expectValidation(await post({ product: items }), `product.${SIZE - 1}.stock`);
    expect(Object.keys(errors)).to.deep.equal([`product.${SIZE - 1}.stock`]);
    expect(await written(prefix)).to.equal(0);
  });

  it('a relation route bulk create of 600 sets every foreign key; an invalid last item writes none of them', async () => {
    const product = await ctx.product();
    const other = await ctx.product();
    const url = `${API}/products/${product.id}/reviews`;
    const reviews = Array.from({ length: 600 }, (_, i): Record<string, unknown> => ({ rating: 1 + (i % 5), product_id: other.id }));
    reviews[599].rating = 9;
    const refused = await ctx.request().post(url).query({ _scenario: 'bulk_create' }).send({ reviews });
    expect(Object.keys(expectValidation(refused, 'reviews.599.rating'))).to.deep.equal(['reviews.599.rating']);
    expect(await ctx.count('reviews', { oper: { and: [`product_id|=|${product.id}`] } })).to.equal(0);
    reviews[599].rating = 5;
    const res = await ctx.request().post(url).query({ _scenario: 'bulk_create' }).send({ reviews });
    expect(res.status, res.text.slice(0, 300)).to.equal(201);
    expect(res.body.models.every((m: { model: Rec }) => sameId(m.model.product_id, product.id))).to.equal(true);
    expect(res.body.models.map((m: { model: Rec }) => m.model.rating)).to.deep.equal(reviews.map((r) => r.rating));
    expect(await ctx.count('reviews', { oper: { and: [`product_id|=|${product.id}`] } })).to.equal(600);
    expect(await ctx.count('reviews', { oper: { and: [`product_id|=|${other.id}`] } })).to.equal(0);
  });
});
