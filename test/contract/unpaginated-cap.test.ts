import { expect } from 'chai';
import { forEachDriver } from '../support/contract-app';

/**
 * A list without pagination is bounded (REST_MAX_UNPAGINATED, 1000): at most that many rows, and
 * `truncated: true` in the envelope when more matched; an uncut list is the plain `{data}`.
 */
forEachDriver('unpaginated lists are capped', (ctx) => {
  const tag = `cap${Date.now()}`;
  before(async function () {
    this.timeout(60_000);
    await ctx.reset();
    const rows = Array.from({ length: 1003 }, (_, i) => ({ name: `${tag} ${i}`, sku: ctx.unique('cap'), price: i }));
    const res = await ctx.request().post('/api/v1/products').send({ product: rows });
    expect(res.status, res.text).to.equal(200);
  });

  it('a list that matches more than the cap answers the cap and truncated: true', async () => {
    const res = await ctx.get('/products', { oper: { and: [`name|like|${tag}%`] }, select: 'id' });
    expect(res.status).to.equal(200);
    expect(res.body.data).to.have.length(1000);
    expect(res.body.truncated).to.equal(true);
  });

  it('a list within the cap is the plain {data} envelope', async () => {
    const res = await ctx.get('/products', { oper: { and: [`name|like|${tag}%`, 'price|<|1000'] }, select: 'id' });
    expect(res.body.data).to.have.length(1000);
    expect(Object.keys(res.body)).to.deep.equal(['data']);
  });
});
