import { expect } from 'chai';
import { expectValidation, forEachDriver, type Rec } from '../support/contract-app';

/**
 * Decision 74 on both drivers: an aggregate whose result is not a finite number (a sum, or the sum
 * under an average, overflowing a double, either sign) is a 422 naming the function and the field
 * (`sum.price`); never null (MongoDB rendered Infinity as null), never an unnamed 400 (PostgreSQL's
 * 22003). Sums and averages in range, near the limit included, answer as before. Each set of
 * products is marked by its own sku prefix, so a filter picks exactly it.
 */
forEachDriver('hostile: aggregates overflowing a double (decision 74)', (ctx) => {
  let run = 0;
  /** Products with these prices under a fresh sku prefix; the filter that picks them. */
  async function products(prices: number[]): Promise<{ oper: { and: string[] }; recs: Rec[] }> {
    run += 1;
    const prefix = `OVF${run}-${ctx.unique('x')}`;
    const recs: Rec[] = [];
    for (const [i, price] of prices.entries()) {
      const rec = await ctx.product({ name: `Overflow ${i}`, sku: `${prefix}-${i}`, price: Math.abs(price), stock: i, status: i % 2 ? 'active' : 'draft' });
      if (price < 0 || Object.is(price, -0)) await ctx.rawSet('products', rec, 'price', price);
      recs.push(rec);
    }
    return { oper: { and: [`sku|like|${prefix}-%`] }, recs };
  }
  const aggregate = (params: Record<string, unknown>) => ctx.get('/products/aggregate', params);

  before(() => ctx.reset());

  it('two prices of 1e308: sum.price is a 422 naming it, with and without groups', async () => {
    const { oper } = await products([1e308, 1e308]);
    const res = await aggregate({ oper, aggregate: { sum: ['price'] } });
    const errors = expectValidation(res, 'sum.price');
    expect(Object.keys(errors)).to.deep.equal(['sum.price']);
    expect(res.body.message).to.include('sum.price');
    expect(res.body).to.not.have.property('data');
    // grouped by sku prefix's status: both land in different groups, each finite
    const grouped = await aggregate({ oper, group_by: ['status'], aggregate: { sum: ['price'], count: '*' } });
    expect(grouped.status, grouped.text).to.equal(200);
    expect(grouped.body.data).to.deep.equal([
      { group: { status: 'active' }, count: 1, sum: { price: 1e308 } },
      { group: { status: 'draft' }, count: 1, sum: { price: 1e308 } },
    ]);
    // one group overflowing among others: the answer is the 422, not a page with a null in it
    const one = await aggregate({ oper, group_by: ['featured'], aggregate: { sum: ['price', 'stock'], count: '*' } });
    expectValidation(one, 'sum.price');
  });

  it('avg.price overflows with its sum (as MongoDB averages), and names itself; both named together', async () => {
    const { oper } = await products([1.5e308, 1.5e308, 1.5e308]);
    expectValidation(await aggregate({ oper, aggregate: { avg: ['price'] } }), 'avg.price');
    const both = expectValidation(await aggregate({ oper, aggregate: { count: '*', sum: ['price'], avg: ['price'], max: ['price'] } }), 'sum.price');
    expect(Object.keys(both)).to.have.length(1);
    // ordered by the overflowing sum: still the 422
    expectValidation(await aggregate({ oper, group_by: ['status'], aggregate: { sum: ['price'] }, orderby: [{ 'sum.price': 'desc' }] }), 'sum.price');
  });

  it('negative overflow: -1e308 twice is a 422 too; mixed signs that stay in range are a number', async () => {
    const negative = await products([-1e308, -1e308]);
    expectValidation(await aggregate({ oper: negative.oper, aggregate: { sum: ['price'] } }), 'sum.price');
    expectValidation(await aggregate({ oper: negative.oper, aggregate: { avg: ['price'] } }), 'avg.price');
    const mixed = await products([1e308, -1e308, 5]);
    const res = await aggregate({ oper: mixed.oper, aggregate: { sum: ['price'], avg: ['price'], min: ['price'], max: ['price'] } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.deep.equal([{ group: {}, sum: { price: 5 }, avg: { price: 5 / 3 }, min: { price: -1e308 }, max: { price: 1e308 } }]);
  });

  it('in range: near the limit, ordinary prices, integer sums and empty sums answer as before', async () => {
    const near = await products([8e307, 8e307]);
    const big = await aggregate({ oper: near.oper, aggregate: { sum: ['price'], avg: ['price'] } });
    expect(big.status, big.text).to.equal(200);
    expect(big.body.data).to.deep.equal([{ group: {}, sum: { price: 1.6e308 }, avg: { price: 8e307 } }]);
    const normal = await products([0.1, 0.2, 1299.99, 20]);
    const res = await aggregate({ oper: normal.oper, aggregate: { count: '*', sum: ['price', 'stock'], avg: ['price', 'stock'] } });
    expect(res.status, res.text).to.equal(200);
    const item = res.body.data[0];
    // the float8 additions in record order, as before: 0.1 + 0.2 is 0.30000000000000004
    expect(item.sum.price).to.equal(0.1 + 0.2 + 1299.99 + 20);
    expect(item.avg.price).to.equal((0.1 + 0.2 + 1299.99 + 20) / 4);
    expect(item.sum.stock).to.equal(6);
    expect(Number.isInteger(item.sum.stock)).to.equal(true);
    expect(item.avg.stock).to.equal(1.5);
    const nothing = await aggregate({ oper: { and: ['sku|=|no-such-sku'] }, aggregate: { sum: ['price'], avg: ['price'] } });
    expect(nothing.body.data).to.deep.equal([{ group: {}, sum: { price: null }, avg: { price: null } }]);
  });

  it('tiny values keep their bits (down to 2^-958, about 2e-289: the SQL scale is exact above it)', async () => {
    const tiny = await products([1e-280, 3e-280]);
    const res = await aggregate({ oper: tiny.oper, aggregate: { sum: ['price'], avg: ['price'] } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.deep.equal([{ group: {}, sum: { price: 1e-280 + 3e-280 }, avg: { price: (1e-280 + 3e-280) / 2 } }]);
  });
});
