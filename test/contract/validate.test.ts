import { expect } from 'chai';
import { expectError, expectValidation, forEachDriver } from '../support/contract-app';

/** POST /{resource}/validate: a dry run of store's validation; never writes. */
forEachDriver('validate', (ctx) => {
  before(async () => {
    await ctx.reset();
  });

  const validate = (resource: string, body: unknown) => ctx.request().post(`/api/v1/${resource}/validate`).send(body as object);

  it('a valid payload answers 200 {success: true} and writes nothing', async () => {
    const sku = ctx.unique('sku');
    const res = await validate('products', { name: 'Dry', sku, price: 5 });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ success: true });
    expect(await ctx.count('products', { attr: { sku } })).to.equal(0);
  });

  it('an invalid payload is a 422 with errors per field and writes nothing', async () => {
    const sku = ctx.unique('sku');
    const res = await validate('products', { sku, price: -2, status: 'nope' });
    const errors = expectValidation(res, 'name', 'price', 'status');
    expect(Object.keys(errors).sort()).to.deep.equal(['name', 'price', 'status']);
    expect(res.body.message).to.equal(`${Object.values(errors)[0][0]} (and 2 more errors)`);
    expect(await ctx.count('products', { attr: { sku } })).to.equal(0);
  });

  it('an empty payload lists every required field', async () => {
    const errors = expectValidation(await validate('products', {}), 'name', 'sku', 'price');
    expect(Object.keys(errors).sort()).to.deep.equal(['name', 'price', 'sku']);
  });

  it('validates reviews (rating range, product required)', async () => {
    const errors = expectValidation(await validate('reviews', { rating: 9 }), 'rating', 'product_id');
    expect(Object.keys(errors).sort()).to.deep.equal(['product_id', 'rating']);
  });

  it('a valid review payload passes and writes nothing', async () => {
    const product = await ctx.product();
    const res = await validate('reviews', { product_id: product.id, rating: 5, comment: 'ok' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ success: true });
    expect(await ctx.count('reviews')).to.equal(0);
  });

  it('a reference to an absent record is a 422 naming the field', async () => {
    const absent = await ctx.absentId('products');
    expectValidation(await validate('reviews', { product_id: absent, rating: 3 }), 'product_id');
  });

  it('validates categories (name too long)', async () => {
    expectValidation(await validate('categories', { name: 'c'.repeat(101) }), 'name');
  });

  it('validates users (email required)', async () => {
    expectValidation(await validate('users', { name: 'No email' }), 'email');
  });

  it('known fields outside fillable do not fail validation; a key that is no field is a 422 unknown_field (decision 77)', async () => {
    const res = await validate('tags', { name: ctx.unique('t'), id: 5, created_at: '2001-01-01T00:00:00.000000Z' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ success: true });
    expect(expectError(await validate('tags', { name: ctx.unique('t'), whatever: true }), 422, 'unknown_field').errors).to.have.all.keys('whatever');
  });
});
