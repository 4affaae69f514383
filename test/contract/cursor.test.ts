import { expect } from 'chai';
import { expectBadRequest, forEachDriver, orderedNames } from '../support/contract-app';

/** Cursor (keyset) pagination (decision 16). */
type Params = Record<string, unknown>;

forEachDriver('pagination: cursor', (ctx) => {
  before(async () => {
    await ctx.fixture();
  });

  async function walk(params: Params, pageSize: number): Promise<{ names: string[]; pages: number }> {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const pagination: Params = { infinity: true, pageSize };
      if (cursor) pagination.cursor = cursor;
      const res = await ctx.get('/products', { ...params, pagination });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data.length).to.be.at.most(pageSize);
      seen.push(...orderedNames(res.body.data));
      cursor = res.body.next_cursor;
      expect(res.body.has_more).to.equal(cursor !== null);
      pages += 1;
      expect(pages, 'walk terminates').to.be.below(20);
    } while (cursor);
    return { names: seen, pages };
  }

  async function full(params: Params): Promise<string[]> {
    const res = await ctx.get('/products', params);
    expect(res.status, res.text).to.equal(200);
    return orderedNames(res.body.data);
  }

  it('answers {data, per_page, next_cursor, has_more}', async () => {
    const res = await ctx.get('/products', { pagination: { infinity: true, pageSize: 2 } });
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body).sort()).to.deep.equal(['data', 'has_more', 'next_cursor', 'per_page']);
    expect(res.body.per_page).to.equal(2);
    expect(res.body.has_more).to.equal(true);
    expect(res.body.next_cursor).to.be.a('string').and.match(/^[A-Za-z0-9_-]+=*$/);
    expect(res.body.data).to.have.length(2);
  });

  it('walks the default order in pages of 1 with no duplicates or gaps', async () => {
    const walked = await walk({}, 1);
    expect(walked.names).to.deep.equal(await full({}));
    expect(walked.names).to.have.length(6);
  });

  it('walks an ascending order with ties (price asc)', async () => {
    const params = { orderby: [{ price: 'asc' }] };
    const walked = await walk(params, 2);
    expect(walked.names).to.deep.equal(['Epsilon Thing', 'Delta Book', 'Zeta Book', 'Alpha Phone', 'beta phone', 'Gamma Laptop']);
    expect(walked.pages).to.equal(3);
  });

  it('walks mixed directions (status asc, price desc) with ties across page breaks', async () => {
    const params = { orderby: [{ status: 'asc' }, { price: 'desc' }] };
    const walked = await walk(params, 2);
    expect(walked.names).to.deep.equal(await full(params));
    expect(new Set(walked.names).size).to.equal(6);
  });

  it('walks a boolean key then a descending key (featured asc, price desc) in pages of 4', async () => {
    const params = { orderby: [{ featured: 'asc' }, { price: 'desc' }] };
    const walked = await walk(params, 4);
    expect(walked.names).to.deep.equal(await full(params));
    expect(walked.pages).to.equal(2);
  });

  it('honours a filter while walking', async () => {
    const params = { oper: { and: ['status|in|[active,inactive]'] }, orderby: [{ name: 'desc' }] };
    const walked = await walk(params, 2);
    expect(walked.names).to.deep.equal(await full(params));
    expect(walked.names).to.have.length(5);
  });

  it('the last page has next_cursor null and has_more false', async () => {
    const res = await ctx.get('/products', { pagination: { infinity: true, pageSize: 10 } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ next_cursor: null, has_more: false, per_page: 10 });
    expect(res.body.data).to.have.length(6);
  });

  it('a malformed cursor is a 400 naming the cursor', async () => {
    expectBadRequest(await ctx.get('/products', { pagination: { infinity: true, pageSize: 2, cursor: 'not*a*cursor' } }), 'cursor');
  });

  it('a cursor that decodes to garbage is a 400', async () => {
    const garbage = Buffer.from('{"hello":"world"}').toString('base64url');
    expectBadRequest(await ctx.get('/products', { pagination: { infinity: true, pageSize: 2, cursor: garbage } }), 'Invalid cursor.');
  });

  it('a cursor reused with another filter is a 400', async () => {
    const first = await ctx.get('/products', { pagination: { infinity: true, pageSize: 2 }, oper: { and: ['price|>=|0'] } });
    expect(first.status, first.text).to.equal(200);
    const res = await ctx.get('/products', { pagination: { infinity: true, pageSize: 2, cursor: first.body.next_cursor }, oper: { and: ['price|>=|1'] } });
    // decision 78: the message says why, not just "Invalid cursor."
    expectBadRequest(res, 'This cursor was made for another filter or order');
  });

  it('a cursor reused with another order is a 400', async () => {
    const first = await ctx.get('/products', { pagination: { infinity: true, pageSize: 2 }, orderby: [{ price: 'asc' }] });
    expect(first.status, first.text).to.equal(200);
    const res = await ctx.get('/products', { pagination: { infinity: true, pageSize: 2, cursor: first.body.next_cursor }, orderby: [{ price: 'desc' }] });
    expectBadRequest(res, 'This cursor was made for another filter or order');
    // another resource's cursor says the same
    const tags = await ctx.get('/tags', { pagination: { infinity: true, pageSize: 1 } });
    expect(tags.body.next_cursor, tags.text).to.be.a('string');
    expectBadRequest(await ctx.get('/products', { pagination: { infinity: true, pageSize: 2, cursor: tags.body.next_cursor } }), 'another filter or order');
  });

  it('infinity "true" as a string in a JSON-encoded pagination selects cursor mode', async () => {
    const res = await ctx.request().get('/api/v1/products').query({ pagination: '{"infinity":"true","pageSize":3}' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.have.property('next_cursor');
    expect(res.body).to.not.have.property('total');
  });
});
