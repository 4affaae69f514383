import { expect } from 'chai';
import { expectError, expectRecordShape, forEachDriver, names, sameId } from '../support/contract-app';

/** DELETE /{resource}/{id} and DELETE /{resource}/batch (decisions 20, 22). */
/** Decision 78: the message says how many records of which relation hold the record, trashed ones counted. */
const FK_MESSAGE = /^Cannot delete the record: \d+ records? of its \w+ still reference it \(trashed records count too/;

forEachDriver('destroy and deleteById', (ctx) => {
  before(async () => {
    await ctx.reset();
  });

  const del = (path: string) => ctx.request().delete(`/api/v1${path}`);
  const delBatch = (resource: string, body: unknown) => ctx.request().delete(`/api/v1/${resource}/batch`).send(body as object);
  const exists = async (resource: string, id: unknown) => (await ctx.get(`/${resource}/${id}`)).status === 200;

  it('destroy answers {success: true, model} with the record as it was', async () => {
    const product = await ctx.product({ name: 'Doomed', stock: 4 });
    const res = await del(`/products/${product.id}`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.success).to.equal(true);
    expectRecordShape(res.body.model);
    expect(res.body.model).to.deep.equal(product);
  });

  it('the destroyed record is gone (show 404, not listed)', async () => {
    const product = await ctx.product({ name: 'Gone soon' });
    await del(`/products/${product.id}`);
    expectError(await ctx.get(`/products/${product.id}`), 404, 'not_found');
    expect(await ctx.count('products', { attr: { sku: product.sku } })).to.equal(0);
  });

  it('destroying twice: the second is a 404', async () => {
    const product = await ctx.product();
    expect((await del(`/products/${product.id}`)).status).to.equal(200);
    expectError(await del(`/products/${product.id}`), 404, 'not_found');
  });

  it('a malformed id is a 404', async () => {
    expectError(await del('/products/abc'), 404, 'not_found');
  });

  it('deleting a category referenced by a product is a 409 foreign_key_violation; both remain', async () => {
    const category = await ctx.category();
    const product = await ctx.product({ category_id: category.id });
    expect(expectError(await del(`/categories/${category.id}`), 409, 'foreign_key_violation', FK_MESSAGE).error).to.deep.equal({ relation: 'products', count: 1 });
    expect(await exists('categories', category.id)).to.equal(true);
    expect(await exists('products', product.id)).to.equal(true);
  });

  it('deleting a category referenced by a child category is a 409', async () => {
    const parent = await ctx.category();
    await ctx.category({ parent_id: parent.id });
    expect(expectError(await del(`/categories/${parent.id}`), 409, 'foreign_key_violation', FK_MESSAGE).error).to.deep.equal({ relation: 'children', count: 1 });
    expect(await exists('categories', parent.id)).to.equal(true);
  });

  it('deleting a product referenced by a review is a 409; product and review remain', async () => {
    const product = await ctx.product();
    const review = await ctx.create('reviews', { product_id: product.id, rating: 3 });
    expect(expectError(await del(`/products/${product.id}`), 409, 'foreign_key_violation', FK_MESSAGE).error).to.deep.equal({ relation: 'reviews', count: 1 });
    expect(await exists('products', product.id)).to.equal(true);
    expect(await exists('reviews', review.id)).to.equal(true);
  });

  it('a category becomes deletable once nothing references it', async () => {
    const category = await ctx.category();
    const product = await ctx.product({ category_id: category.id });
    await ctx.request().patch(`/api/v1/products/${product.id}`).send({ category_id: null });
    expect((await del(`/categories/${category.id}`)).status).to.equal(200);
  });

  it('deleting a tag cascades its pivot rows; the product remains', async () => {
    const product = await ctx.product({ name: 'Tagged' });
    const keep = await ctx.tagRec({ name: ctx.unique('keep') });
    const drop = await ctx.tagRec({ name: ctx.unique('drop') });
    await ctx.attach(product, keep, { position: 1 });
    await ctx.attach(product, drop, { position: 2 });
    const res = await del(`/tags/${drop.id}`);
    expect(res.status, res.text).to.equal(200);
    const rec = await ctx.fetch('products', product.id, { relations: ['tags'] });
    expect(names(rec.tags)).to.deep.equal([keep.name]);
    expect(await ctx.count('products', { oper: { tags: { and: [`name|=|${drop.name}`] } } })).to.equal(0);
  });

  it('deleting a product cascades its pivot rows; the tag remains', async () => {
    const product = await ctx.product();
    const tag = await ctx.tagRec();
    await ctx.attach(product, tag, { position: 1 });
    expect((await del(`/products/${product.id}`)).status).to.equal(200);
    const rec = await ctx.fetch('tags', tag.id, { relations: ['products'] });
    expect(rec.products).to.deep.equal([]);
  });

  it('deleteById with {ids} answers {success: true, deleted: n}', async () => {
    const a = await ctx.product();
    const b = await ctx.product();
    const res = await delBatch('products', { ids: [a.id, b.id] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ success: true, deleted: 2 });
    expect(await exists('products', a.id)).to.equal(false);
    expect(await exists('products', b.id)).to.equal(false);
  });

  it('deleteById with a bare array', async () => {
    const a = await ctx.tagRec();
    const res = await delBatch('tags', [a.id]);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ success: true, deleted: 1 });
    expect(await exists('tags', a.id)).to.equal(false);
  });

  it('deleteById with an unknown id is a 404 listing it; nothing is deleted', async () => {
    const a = await ctx.product();
    const absent = await ctx.absentId('products');
    const body = expectError(await delBatch('products', { ids: [a.id, absent] }), 404, 'not_found');
    expect(JSON.stringify(body)).to.include(String(absent));
    expect(await exists('products', a.id)).to.equal(true);
  });

  it('deleteById with a malformed id is a 404 listing it; nothing is deleted', async () => {
    const a = await ctx.product();
    const body = expectError(await delBatch('products', { ids: [a.id, 'abc'] }), 404, 'not_found');
    expect(JSON.stringify(body)).to.include('abc');
    expect(await exists('products', a.id)).to.equal(true);
  });

  it('deleteById including a referenced category is a 409; nothing is deleted', async () => {
    const free = await ctx.category();
    const used = await ctx.category();
    await ctx.product({ category_id: used.id });
    expect(expectError(await delBatch('categories', { ids: [free.id, used.id] }), 409, 'foreign_key_violation', FK_MESSAGE).error).to.deep.equal({ relation: 'products', count: 1 });
    expect(await exists('categories', free.id)).to.equal(true);
    expect(await exists('categories', used.id)).to.equal(true);
  });

  it('destroy of a user returns it without api_token', async () => {
    const user = await ctx.user({ api_token: 'gone-secret-9' });
    const res = await del(`/users/${user.id}`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.model).to.not.have.property('api_token');
    expect(res.text).to.not.include('gone-secret-9');
    expect(sameId(res.body.model.id, user.id)).to.equal(true);
  });
});
