import { expect } from 'chai';
import { expectBadRequest, forEachDriver, orderedNames } from '../support/contract-app';

/**
 * `orderby` (decision 13). Fixture creation order: Alpha, beta, Gamma, Delta, Epsilon, Zeta, so the
 * primary-key tie-breaker puts Delta before Zeta (both price 20).
 */
forEachDriver('orderby', (ctx) => {
  before(async () => {
    await ctx.fixture();
  });

  const list = (params: Record<string, unknown>) => ctx.get('/products', params);

  it('an array with one ascending key, ties broken by the primary key', async () => {
    const res = await list({ orderby: [{ price: 'asc' }] });
    expect(res.status, res.text).to.equal(200);
    expect(orderedNames(res.body.data)).to.deep.equal(['Epsilon Thing', 'Delta Book', 'Zeta Book', 'Alpha Phone', 'beta phone', 'Gamma Laptop']);
  });

  it('a descending key', async () => {
    const res = await list({ orderby: [{ stock: 'desc' }] });
    expect(res.status, res.text).to.equal(200);
    expect(orderedNames(res.body.data)).to.deep.equal(['Delta Book', 'Gamma Laptop', 'Zeta Book', 'Alpha Phone', 'Epsilon Thing', 'beta phone']);
  });

  it('a single object instead of an array', async () => {
    const res = await list({ orderby: { price: 'desc' } });
    expect(res.status, res.text).to.equal(200);
    expect(orderedNames(res.body.data).slice(0, 3)).to.deep.equal(['Gamma Laptop', 'beta phone', 'Alpha Phone']);
  });

  it('several keys with mixed directions', async () => {
    const res = await list({ orderby: [{ status: 'asc' }, { price: 'desc' }] });
    expect(res.status, res.text).to.equal(200);
    expect(orderedNames(res.body.data)).to.deep.equal(['Gamma Laptop', 'Alpha Phone', 'Epsilon Thing', 'Delta Book', 'beta phone', 'Zeta Book']);
  });

  it('the primary key breaks ties among equal status values', async () => {
    const res = await list({ orderby: [{ status: 'asc' }] });
    expect(res.status, res.text).to.equal(200);
    expect(orderedNames(res.body.data)).to.deep.equal(['Alpha Phone', 'Gamma Laptop', 'Epsilon Thing', 'Delta Book', 'beta phone', 'Zeta Book']);
  });

  it('direction is case-insensitive (DESC, Asc)', async () => {
    const res = await list({ orderby: [{ featured: 'DESC' }, { name: 'Asc' }] });
    expect(res.status, res.text).to.equal(200);
    expect(orderedNames(res.body.data).slice(0, 2)).to.deep.equal(['Alpha Phone', 'Gamma Laptop']);
  });

  it('a to-one relation field (category.name) is a sort key', async () => {
    const res = await list({ orderby: [{ 'category.name': 'asc' }], oper: { and: ['category_id|not null'] } });
    expect(res.status, res.text).to.equal(200);
    expect(orderedNames(res.body.data)).to.deep.equal(['Delta Book', 'Zeta Book', 'Gamma Laptop', 'Alpha Phone', 'beta phone']);
  });

  it('a relation field descending with a second key', async () => {
    const res = await list({ orderby: [{ 'category.name': 'desc' }, { price: 'desc' }], oper: { and: ['category_id|not null'] } });
    expect(res.status, res.text).to.equal(200);
    expect(orderedNames(res.body.data)).to.deep.equal(['beta phone', 'Alpha Phone', 'Gamma Laptop', 'Delta Book', 'Zeta Book']);
  });

  it('orderby in a JSON body on GET', async () => {
    const res = await ctx.getWithBody('/products', { orderby: [{ price: 'desc' }] });
    expect(res.status, res.text).to.equal(200);
    expect(orderedNames(res.body.data)[0]).to.equal('Gamma Laptop');
  });

  it('a bad direction is a 400', async () => {
    expectBadRequest(await list({ orderby: [{ price: 'up' }] }), 'up');
  });

  it('an unknown field is a 400 naming it', async () => {
    expectBadRequest(await list({ orderby: [{ colour: 'asc' }] }), 'colour');
  });

  it('an unknown relation in a relation sort key is a 400', async () => {
    expectBadRequest(await list({ orderby: [{ 'supplier.name': 'asc' }] }), 'supplier');
  });

  it('a to-many relation field is not a sort key (400)', async () => {
    expectBadRequest(await list({ orderby: [{ 'reviews.rating': 'asc' }] }), 'reviews');
  });

  it('the write-only api_token is not a sort key (400)', async () => {
    expectBadRequest(await ctx.get('/users', { orderby: [{ api_token: 'asc' }] }), 'api_token');
  });
});
