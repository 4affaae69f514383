import { expect } from 'chai';
import { expectError, forEachDriver, LEAKS } from '../support/contract-app';

/** Error bodies (decisions 23-25): shape, types, no driver text, no prototype pollution. */
forEachDriver('error bodies', (ctx) => {
  before(async () => {
    await ctx.reset();
  });

  it('a 404 body is exactly {message, type: not_found, status: 404}', async () => {
    const res = await ctx.get('/products/abc');
    expectError(res, 404, 'not_found');
    expect(Object.keys(res.body).sort()).to.deep.equal(['message', 'status', 'type']);
    expect(res.headers['content-type']).to.match(/application\/json/);
  });

  it('a 400 body has {message, type: bad_request, status: 400}', async () => {
    const res = await ctx.get('/products', { oper: { and: ['nope|=|1'] } });
    expectError(res, 400, 'bad_request');
    expect(res.body).to.not.have.property('stack');
  });

  it('a 422 body has message, type, status and errors only', async () => {
    const res = await ctx.request().post('/api/v1/products').send({ name: 'x' });
    expectError(res, 422, 'validation_error');
    expect(Object.keys(res.body).sort()).to.deep.equal(['errors', 'message', 'status', 'type']);
    const first = (Object.values(res.body.errors) as string[][])[0][0];
    expect(res.body.message).to.equal(`${first} (and 1 more errors)`);
  });

  it('a unique violation leaks no driver text', async () => {
    const p = await ctx.product();
    const res = await ctx.request().post('/api/v1/products').send({ name: 'x', sku: p.sku, price: 1 });
    expectError(res, 409, 'unique_violation');
    for (const leak of LEAKS) expect(res.text).to.not.include(leak);
    expect(res.text).to.not.match(/\bat .+:\d+:\d+/);
  });

  it('a foreign key violation leaks no driver text and has no field-less extras', async () => {
    const category = await ctx.category();
    await ctx.product({ category_id: category.id });
    const res = await ctx.request().delete(`/api/v1/categories/${category.id}`);
    expectError(res, 409, 'foreign_key_violation');
    expect(res.text).to.not.match(/\bat .+:\d+:\d+/);
    expect(res.text).to.not.include('constraint');
  });

  it('a __proto__ key in a store body neither pollutes objects nor fails', async () => {
    const res = await ctx
      .request()
      .post('/api/v1/products')
      .set('Content-Type', 'application/json')
      .send(`{"name":"Proto","sku":"${ctx.unique('sku')}","price":1,"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted2":true}}}`);
    expect(res.status, res.text).to.equal(200);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    expect(({} as Record<string, unknown>).polluted2).to.equal(undefined);
    expect(res.body.model).to.not.have.property('polluted');
  });

  it('a __proto__ key in attr is rejected or ignored, never applied', async () => {
    const res = await ctx.request().get('/api/v1/products').query({ attr: '{"__proto__":{"polluted3":true}}' });
    expect([200, 400]).to.include(res.status);
    expect(({} as Record<string, unknown>).polluted3).to.equal(undefined);
  });

  it('an operator-injection value in attr stays a literal value', async () => {
    await ctx.product({ name: 'Literal' });
    const res = await ctx.get('/products', { attr: { name: { $ne: 'x' } } });
    if (res.status === 200) expect(res.body.data).to.deep.equal([]);
    else expectError(res, 400, 'bad_request');
  });

  it('SQL-looking values are plain data', async () => {
    const name = "Robert'); DROP TABLE products;--";
    const p = await ctx.product({ name });
    const res = await ctx.get('/products', { oper: { and: [`name|=|${name}`] } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.map((r: { id: unknown }) => String(r.id))).to.deep.equal([String(p.id)]);
  });

  it('a regex-looking like value matches literally (no regex injection)', async () => {
    await ctx.product({ name: 'Plain' });
    const res = await ctx.get('/products', { oper: { and: ['name|like|.*'] } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.deep.equal([]);
  });
});
