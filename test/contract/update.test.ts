import { expect } from 'chai';
import { expectError, expectRecordShape, expectValidation, forEachDriver, sameId, TIMESTAMP } from '../support/contract-app';

/** PUT / PATCH /{resource}/{id} (decisions 18, 19, 21). */
forEachDriver('update', (ctx) => {
  before(async () => {
    await ctx.reset();
  });

  const put = (path: string, body: unknown) => ctx.request().put(`/api/v1${path}`).send(body as object);
  const patch = (path: string, body: unknown) => ctx.request().patch(`/api/v1${path}`).send(body as object);

  it('PUT with a partial body answers {success, model} with the whole record', async () => {
    const product = await ctx.product({ name: 'Before', stock: 3, description: 'keep me' });
    const res = await put(`/products/${product.id}`, { price: 99.5 });
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body).sort()).to.deep.equal(['model', 'success']);
    expect(res.body.success).to.equal(true);
    expectRecordShape(res.body.model);
    expect(res.body.model).to.include({ id: product.id, name: 'Before', sku: product.sku, price: 99.5, stock: 3, description: 'keep me', status: 'draft', featured: false });
  });

  it('PATCH behaves like PUT', async () => {
    const product = await ctx.product({ name: 'Patch me' });
    const res = await patch(`/products/${product.id}`, { name: 'Patched', stock: 8 });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.model).to.include({ name: 'Patched', stock: 8, sku: product.sku });
  });

  it('the change is visible through show', async () => {
    const product = await ctx.product();
    await put(`/products/${product.id}`, { status: 'active', featured: true });
    const rec = await ctx.fetch('products', product.id);
    expect(rec).to.include({ status: 'active', featured: true });
  });

  it('created_at is kept and updated_at is a valid timestamp not before it', async () => {
    const product = await ctx.product();
    await new Promise((r) => setTimeout(r, 15));
    const res = await patch(`/products/${product.id}`, { stock: 1 });
    expect(res.body.model.created_at).to.equal(product.created_at);
    expect(res.body.model.updated_at).to.match(TIMESTAMP);
    expect(Date.parse(res.body.model.updated_at)).to.be.greaterThan(Date.parse(String(product.updated_at)));
  });

  it('id, created_at and updated_at in the body are ignored', async () => {
    const product = await ctx.product();
    const other = await ctx.product();
    const res = await put(`/products/${product.id}`, { id: other.id, created_at: '2001-01-01T00:00:00.000000Z', updated_at: '2001-01-01T00:00:00.000000Z', stock: 2 });
    expect(res.status, res.text).to.equal(200);
    expect(sameId(res.body.model.id, product.id)).to.equal(true);
    expect(res.body.model.created_at).to.equal(product.created_at);
    expect(res.body.model.updated_at).to.not.match(/^2001/);
    expect((await ctx.fetch('products', other.id)).stock).to.equal(0);
  });

  it('known fields outside fillable are ignored; a key that is no field is a 422 unknown_field (decision 77), nothing written', async () => {
    const product = await ctx.product();
    const res = await patch(`/products/${product.id}`, { updated_at: '2001-01-01T00:00:00.000000Z', name: 'Still' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.model.name).to.equal('Still');
    const bogus = await patch(`/products/${product.id}`, { bogus: 1, name: 'Changed' });
    expect(expectError(bogus, 422, 'unknown_field').errors).to.have.all.keys('bogus');
    expect((await ctx.fetch('products', product.id)).name).to.equal('Still');
  });

  it('an empty body answers the unchanged record', async () => {
    const product = await ctx.product();
    const res = await patch(`/products/${product.id}`, {});
    expect(res.status, res.text).to.equal(200);
    expect(res.body.model).to.include({ name: product.name, sku: product.sku, price: product.price });
  });

  it('sets a nullable foreign key to null and back', async () => {
    const category = await ctx.category();
    const product = await ctx.product({ category_id: category.id });
    const cleared = await patch(`/products/${product.id}`, { category_id: null });
    expect(cleared.body.model.category_id).to.equal(null);
    const set = await patch(`/products/${product.id}`, { category_id: category.id });
    expect(sameId(set.body.model.category_id, category.id)).to.equal(true);
  });

  it('an invalid value is a 422 and the record is unchanged', async () => {
    const product = await ctx.product({ price: 7 });
    expectValidation(await put(`/products/${product.id}`, { price: -1 }), 'price');
    expect((await ctx.fetch('products', product.id)).price).to.equal(7);
  });

  it('a required field set to null/empty on update is a 422', async () => {
    const product = await ctx.product();
    expectValidation(await patch(`/products/${product.id}`, { name: null }), 'name');
    expect((await ctx.fetch('products', product.id)).name).to.equal('Product');
  });

  it('a sku taken by another product is a 409 and the record is unchanged', async () => {
    const a = await ctx.product();
    const b = await ctx.product();
    const body = expectError(await patch(`/products/${b.id}`, { sku: a.sku }), 409, 'unique_violation', 'The sku has already been taken.');
    expect(body.field).to.equal('sku');
    expect((await ctx.fetch('products', b.id)).sku).to.equal(b.sku);
  });

  it('keeping its own sku is not a conflict', async () => {
    const a = await ctx.product();
    const res = await put(`/products/${a.id}`, { sku: a.sku, name: 'Same sku' });
    expect(res.status, res.text).to.equal(200);
  });

  it('a belongsTo to an absent record is a 422 naming the field', async () => {
    const product = await ctx.product();
    const absent = await ctx.absentId('categories');
    expectValidation(await patch(`/products/${product.id}`, { category_id: absent }), 'category_id');
    expect((await ctx.fetch('products', product.id)).category_id).to.equal(null);
  });

  it('an absent id is a 404 not_found', async () => {
    const absent = await ctx.absentId('products');
    expectError(await put(`/products/${absent}`, { stock: 1 }), 404, 'not_found');
    expectError(await patch(`/products/${absent}`, { stock: 1 }), 404, 'not_found');
  });

  it('a malformed id is a 404 not_found', async () => {
    expectError(await put('/products/abc', { stock: 1 }), 404, 'not_found');
  });

  it('updating a user api_token never returns it', async () => {
    const user = await ctx.user();
    const res = await patch(`/users/${user.id}`, { api_token: 'rotated-secret-1' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.model).to.not.have.property('api_token');
    expect(res.text).to.not.include('rotated-secret-1');
  });
});
