import { expect } from 'chai';
import { expectError, expectRecordShape, forEachDriver, type Fixture } from '../support/contract-app';

/** GET /{resource}/first and GET /{resource}/{id}. */
forEachDriver('first and show', (ctx) => {
  let fx: Fixture;
  before(async () => {
    fx = await ctx.fixture();
  });

  it('/first answers {data: record} for the first record of the order', async () => {
    const res = await ctx.get('/products/first', { orderby: [{ price: 'desc' }] });
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body)).to.deep.equal(['data']);
    expect(res.body.data.name).to.equal('Gamma Laptop');
    expectRecordShape(res.body.data);
  });

  it('/first applies oper', async () => {
    const res = await ctx.get('/products/first', { oper: { and: ['status|=|draft'] } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.name).to.equal('Delta Book');
  });

  it('/first applies attr', async () => {
    const res = await ctx.get('/products/first', { attr: { sku: 'SKU-006' } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.name).to.equal('Zeta Book');
  });

  it('/first with no match answers {data: null}', async () => {
    const res = await ctx.get('/products/first', { oper: { and: ['price|>|99999'] } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ data: null });
  });

  it('/first loads relations', async () => {
    const res = await ctx.get('/products/first', { attr: { name: 'Alpha Phone' }, relations: ['category', 'tags'] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.category.name).to.equal('Phones');
    expect(res.body.data.tags).to.have.length(2);
  });

  it('/first with a relation filter', async () => {
    const res = await ctx.get('/products/first', { oper: { reviews: { and: ['rating|=|4'] } } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.name).to.equal('Gamma Laptop');
  });

  it('/first rejects an unknown field like the list does', async () => {
    expectError(await ctx.get('/products/first', { oper: { and: ['colour|=|x'] } }), 400, 'bad_request', /colour/);
  });

  it('show answers the bare record with every field and JSON types', async () => {
    const res = await ctx.get(`/products/${fx.prod.alpha.id}`);
    expect(res.status, res.text).to.equal(200);
    expectRecordShape(res.body);
    expect(res.body).to.include({ id: fx.prod.alpha.id, name: 'Alpha Phone', sku: 'SKU-001', price: 100, stock: 5, status: 'active', featured: true, description: 'Best (new) phone.' });
    expect(String(res.body.category_id)).to.equal(String(fx.cat.phones.id));
    expect(res.body).to.not.have.property('data');
  });

  it('show of a record with nulls', async () => {
    const res = await ctx.get(`/products/${fx.prod.epsilon.id}`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ category_id: null, price: 0, sku: '00123' });
    const beta = await ctx.get(`/products/${fx.prod.beta.id}`);
    expect(beta.body.description).to.equal(null);
  });

  it('show loads nested relations', async () => {
    const res = await ctx.get(`/products/${fx.prod.gamma.id}`, { relations: ['category.parent', 'reviews.user'] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.category.parent.name).to.equal('Electronics');
    expect(res.body.reviews[0].user.name).to.equal('Ann');
    expect(res.text).to.not.include('secret-ann');
  });

  it('show of a user never contains api_token', async () => {
    const res = await ctx.get(`/users/${fx.user.ann.id}`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.name).to.equal('Ann');
    expect(res.body).to.not.have.property('api_token');
    expect(res.text).to.not.include('secret-ann');
  });

  it('show with relations in a JSON body', async () => {
    const res = await ctx.getWithBody(`/categories/${fx.cat.electronics.id}`, { relations: ['children'] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.children.map((c: { name: string }) => c.name).sort()).to.deep.equal(['Laptops', 'Phones']);
  });

  it('show of a valid but absent id is a 404 not_found', async () => {
    const absent = await ctx.absentId('products');
    expectError(await ctx.get(`/products/${absent}`), 404, 'not_found');
  });

  it('show of a malformed id (abc) is a 404 not_found', async () => {
    expectError(await ctx.get('/products/abc'), 404, 'not_found');
  });

  it('show of a malformed id (negative number) is a 404', async () => {
    expectError(await ctx.get('/products/-5'), 404, 'not_found');
  });

  it('show with an unknown relation is a 400', async () => {
    expectError(await ctx.get(`/products/${fx.prod.alpha.id}`, { relations: ['supplier'] }), 400, 'bad_request', /supplier/);
  });

  it('show of an absent category id is a 404', async () => {
    const absent = await ctx.absentId('categories');
    expectError(await ctx.get(`/categories/${absent}`), 404, 'not_found');
  });
});
