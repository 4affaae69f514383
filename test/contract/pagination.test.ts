import { expect } from 'chai';
import { expectBadRequest, forEachDriver, orderedNames } from '../support/contract-app';

/** Offset pagination (decision 15). The fixture has 6 products. */
forEachDriver('pagination: offset', (ctx) => {
  before(async () => {
    await ctx.fixture();
  });

  const page = (pagination: unknown, extra: Record<string, unknown> = {}) =>
    ctx.get('/products', { pagination, orderby: [{ price: 'asc' }], ...extra });

  it('answers the envelope {current_page, data, total, per_page, last_page, from, to}', async () => {
    const res = await page({ page: 1, pageSize: 2 });
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body).sort()).to.deep.equal(['current_page', 'data', 'from', 'last_page', 'per_page', 'to', 'total']);
    expect(res.body).to.include({ current_page: 1, total: 6, per_page: 2, last_page: 3, from: 1, to: 2 });
    expect(orderedNames(res.body.data)).to.deep.equal(['Epsilon Thing', 'Delta Book']);
  });

  it('the last page has from/to of its slice', async () => {
    const res = await page({ page: 3, pageSize: 2 });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ current_page: 3, from: 5, to: 6, last_page: 3 });
    expect(orderedNames(res.body.data)).to.deep.equal(['beta phone', 'Gamma Laptop']);
  });

  it('a partial last page', async () => {
    const res = await page({ page: 2, pageSize: 4 });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ current_page: 2, from: 5, to: 6, last_page: 2, total: 6, per_page: 4 });
    expect(res.body.data).to.have.length(2);
  });

  it('a page past the end is empty with from/to null', async () => {
    const res = await page({ page: 9, pageSize: 2 });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ current_page: 9, data: [], total: 6, per_page: 2, last_page: 3, from: null, to: null });
  });

  it('an empty result has total 0, from/to null', async () => {
    const res = await page({ page: 1, pageSize: 5 }, { oper: { and: ['price|>|99999'] } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ current_page: 1, total: 0, from: null, to: null, per_page: 5 });
    expect(res.body.data).to.deep.equal([]);
  });

  it('pages concatenate to the whole ordered list without gaps or duplicates', async () => {
    const all = await ctx.get('/products', { orderby: [{ price: 'asc' }] });
    const seen: string[] = [];
    for (let p = 1; p <= 3; p += 1) seen.push(...orderedNames((await page({ page: p, pageSize: 2 })).body.data));
    expect(seen).to.deep.equal(orderedNames(all.body.data));
  });

  it('total and last_page follow the filter', async () => {
    const res = await page({ page: 1, pageSize: 2 }, { oper: { and: ['status|=|active'] } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ total: 3, last_page: 2, to: 2 });
  });

  it('total follows a relation filter', async () => {
    const res = await page({ page: 1, pageSize: 10 }, { oper: { tags: { and: ['name|=|red'] } } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ total: 2, last_page: 1 });
  });

  it('pagesize is accepted as an alias of pageSize', async () => {
    const res = await page({ page: 2, pagesize: 5 });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ per_page: 5, current_page: 2, from: 6, to: 6, last_page: 2 });
  });

  it('pageSize defaults to 15 and page to 1', async () => {
    const res = await page({});
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ current_page: 1, per_page: 15, total: 6, last_page: 1, from: 1, to: 6 });
  });

  it('pageSize above the maximum is clamped to 1000', async () => {
    const res = await page({ page: 1, pageSize: 5000 });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.per_page).to.equal(1000);
    expect(res.body.data).to.have.length(6);
  });

  it('pagination as a JSON body on GET', async () => {
    const res = await ctx.getWithBody('/products', { pagination: { page: 2, pageSize: 3 }, orderby: [{ price: 'asc' }] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ current_page: 2, per_page: 3, from: 4, to: 6 });
  });

  it('pagination composes with relations and select', async () => {
    const res = await page({ page: 1, pageSize: 1 }, { select: ['name'], relations: ['category:name'], orderby: [{ price: 'desc' }] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.have.length(1);
    expect(res.body.data[0].name).to.equal('Gamma Laptop');
    expect(res.body.data[0].category.name).to.equal('Laptops');
  });

  it('page 0 is a 400 naming page', async () => {
    expectBadRequest(await page({ page: 0, pageSize: 2 }), 'page');
  });

  it('a negative page is a 400', async () => {
    expectBadRequest(await page({ page: -1, pageSize: 2 }), 'page');
  });

  it('pageSize 0 is a 400 naming pageSize', async () => {
    expectBadRequest(await page({ page: 1, pageSize: 0 }), 'pageSize');
  });

  it('a non-numeric page is a 400', async () => {
    expectBadRequest(await page({ page: 'abc', pageSize: 2 }), 'page');
  });
});
