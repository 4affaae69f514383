import { expect } from 'chai';
import { expectBadRequest, forEachDriver, names } from '../support/contract-app';

/** Request intake: query string vs body, JSON decoding, attr/eq (decisions 1-3). */
forEachDriver('parameters: intake, attr and eq', (ctx) => {
  before(async () => {
    await ctx.fixture();
  });

  const raw = (query: Record<string, string>) => ctx.request().get('/api/v1/products').query(query);

  it('attr filters by equality', async () => {
    const res = await ctx.get('/products', { attr: { status: 'active' } });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Alpha Phone', 'Epsilon Thing', 'Gamma Laptop']);
  });

  it('eq is an alias of attr', async () => {
    const res = await ctx.get('/products', { eq: { status: 'draft' } });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Delta Book']);
  });

  it('attr and eq on different keys are merged (AND)', async () => {
    const res = await ctx.get('/products', { attr: { status: 'active' }, eq: { featured: true } });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Alpha Phone', 'Gamma Laptop']);
  });

  it('attr wins over eq on the same key', async () => {
    const res = await ctx.get('/products', { attr: { status: 'draft' }, eq: { status: 'active' } });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Delta Book']);
  });

  it('an array value in attr means IN', async () => {
    const res = await ctx.get('/products', { attr: { status: ['draft', 'inactive'] } });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Delta Book', 'Zeta Book', 'beta phone']);
  });

  it('a null value in attr means IS NULL', async () => {
    const res = await ctx.get('/products', { attr: { description: null } });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['beta phone']);
  });

  it('an id-typed value in attr (category_id) matches', async () => {
    const fx = await ctx.get('/categories', { attr: { name: 'Books' } });
    const books = fx.body.data[0];
    const res = await ctx.get('/products', { attr: { category_id: books.id } });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Delta Book', 'Zeta Book']);
  });

  it('attr combines with oper (AND)', async () => {
    const res = await ctx.get('/products', { attr: { status: 'active' }, oper: { and: ['price|>|50'] } });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Alpha Phone', 'Gamma Laptop']);
  });

  it('attr with a string number on a number field is typed', async () => {
    const res = await ctx.get('/products', { attr: { price: '20' } });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Delta Book', 'Zeta Book']);
  });

  it('an unknown field in attr is a 400 naming it', async () => {
    expectBadRequest(await ctx.get('/products', { attr: { colour: 'red' } }), 'colour');
  });

  it('an unknown field in eq is a 400 naming it', async () => {
    expectBadRequest(await ctx.get('/products', { eq: { weight: 3 } }), 'weight');
  });

  it('attr on the write-only api_token is a 400', async () => {
    expectBadRequest(await ctx.get('/users', { attr: { api_token: 'secret-ann' } }), 'api_token');
  });

  it('parameters in a JSON body on GET are used', async () => {
    const res = await ctx.getWithBody('/products', { attr: { status: 'inactive' } });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Zeta Book', 'beta phone']);
  });

  it('query string and body are merged (different parameters)', async () => {
    const res = await ctx.request().get('/api/v1/products').query({ select: 'name' }).send({ oper: { and: ['price|=|0'] } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.deep.equal([{ id: res.body.data[0].id, name: 'Epsilon Thing' }]);
  });

  it('the body wins over the query string on the same parameter', async () => {
    const res = await ctx
      .request()
      .get('/api/v1/products')
      .query({ oper: JSON.stringify({ and: ['price|=|0'] }) })
      .send({ oper: { and: ['price|=|200'] } });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['beta phone']);
  });

  it('malformed JSON in oper is a 400 naming oper', async () => {
    expectBadRequest(await raw({ oper: '{"and": ["price|=|0"' }), 'oper');
  });

  it('malformed JSON in pagination is a 400 naming pagination', async () => {
    expectBadRequest(await raw({ pagination: '{page:1}' }), 'pagination');
  });

  it('malformed JSON in orderby is a 400 naming orderby', async () => {
    expectBadRequest(await raw({ orderby: '[{"price":"asc"}' }), 'orderby');
  });

  it('malformed JSON in attr is a 400 naming attr', async () => {
    expectBadRequest(await raw({ attr: '{"status":}' }), 'attr');
  });

  it('malformed JSON in relations (a JSON array) is a 400 naming relations', async () => {
    expectBadRequest(await raw({ relations: '["category"' }), 'relations');
  });

  it('oper that is not an object (a JSON number) is a 400 naming oper', async () => {
    expectBadRequest(await raw({ oper: '42' }), 'oper');
  });

  it('a malformed JSON request body on GET is a 400', async () => {
    const res = await ctx.request().get('/api/v1/products').set('Content-Type', 'application/json').send('{"oper": ');
    expectBadRequest(res);
  });
});
