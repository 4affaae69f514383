import { expect } from 'chai';
import { expectBadRequest, forEachDriver, type Fixture } from '../support/contract-app';

/** `select` (decisions 1, 10, 12, 14). */
const keys = (row: unknown) => Object.keys(row as Record<string, unknown>).sort();

forEachDriver('select', (ctx) => {
  let fx: Fixture;
  before(async () => {
    fx = await ctx.fixture();
  });

  it('returns every column by default', async () => {
    const res = await ctx.get('/products', { oper: { and: ['name|=|Alpha Phone'] } });
    expect(res.status, res.text).to.equal(200);
    expect(keys(res.body.data[0])).to.deep.equal(
      ['category_id', 'cost', 'created_at', 'description', 'featured', 'id', 'name', 'price', 'sku', 'status', 'stock', 'updated_at'],
    );
  });

  it('an array selects those columns and always keeps id', async () => {
    const res = await ctx.get('/products', { select: ['name', 'price'] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.have.length(6);
    for (const row of res.body.data) expect(keys(row)).to.deep.equal(['id', 'name', 'price']);
  });

  it('a comma-separated string selects those columns', async () => {
    const res = await ctx.request().get('/api/v1/products').query({ select: 'name,stock' });
    expect(res.status, res.text).to.equal(200);
    for (const row of res.body.data) expect(keys(row)).to.deep.equal(['id', 'name', 'stock']);
  });

  it('a JSON-encoded array in the query string works', async () => {
    const res = await ctx.request().get('/api/v1/products').query({ select: '["sku"]' });
    expect(res.status, res.text).to.equal(200);
    for (const row of res.body.data) expect(keys(row)).to.deep.equal(['id', 'sku']);
  });

  it('select in a JSON body on GET', async () => {
    const res = await ctx.getWithBody('/products', { select: ['status'] });
    expect(res.status, res.text).to.equal(200);
    for (const row of res.body.data) expect(keys(row)).to.deep.equal(['id', 'status']);
  });

  it('selected values keep their JSON types (number, boolean, null)', async () => {
    const res = await ctx.get('/products', { select: ['price', 'featured', 'description', 'stock'], oper: { and: ['name|=|beta phone'] } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data[0]).to.include({ price: 200, featured: false, description: null, stock: 0 });
  });

  it('an unknown column is a 400 naming it', async () => {
    expectBadRequest(await ctx.get('/products', { select: ['name', 'colour'] }), 'colour');
  });

  it('the write-only api_token cannot be selected (400)', async () => {
    expectBadRequest(await ctx.get('/users', { select: ['name', 'api_token'] }), 'api_token');
  });

  it('users never return api_token, selected or not', async () => {
    // the superuser the suite authenticates as is a user too
    const res = await ctx.get('/users', { oper: { and: ['is_superuser|=|false'] } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.have.length(2);
    for (const row of res.body.data) expect(row).to.not.have.property('api_token');
    expect(res.text).to.not.include('secret-ann');
    const ann = res.body.data.find((u: { name: string }) => u.name === 'Ann');
    expect(ann.roles).to.deep.equal(['admin']);
    expect(ann.is_superuser).to.equal(false);
  });

  it('select applies on show', async () => {
    const res = await ctx.get(`/products/${fx.prod.gamma.id}`, { select: ['name'] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ id: fx.prod.gamma.id, name: 'Gamma Laptop' });
  });

  it('select applies on /first', async () => {
    const res = await ctx.get('/products/first', { select: ['sku'], oper: { and: ['sku|=|00123'] } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ data: { id: fx.prod.epsilon.id, sku: '00123' } });
  });
});
