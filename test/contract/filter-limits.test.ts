import { expect } from 'chai';
import { expectBadRequest, expectError, forEachDriver, names } from '../support/contract-app';

/** Depth and condition limits and the operator allowlist (decision 9). */
function nestedGroups(depth: number, leaf: string): Record<string, unknown> {
  // depth 1 is the oper object itself; each inner group object adds one level
  let node: Record<string, unknown> = { and: [leaf] };
  for (let level = depth; level > 1; level -= 1) node = { [level % 2 === 0 ? 'or' : 'and']: [node] };
  return node;
}

forEachDriver('filters: limits and allowlists', (ctx) => {
  before(async () => {
    await ctx.fixture();
  });

  it('accepts a filter of depth 5 (the default limit)', async () => {
    const res = await ctx.get('/products', { oper: nestedGroups(5, 'price|=|0') });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Epsilon Thing']);
  });

  it('rejects a filter of depth 6 with "Maximum nesting depth (5) exceeded."', async () => {
    const res = await ctx.get('/products', { oper: nestedGroups(6, 'price|=|0') });
    expectError(res, 400, 'bad_request', 'Maximum nesting depth (5) exceeded.');
  });

  it('counts a dot path of two relations as two levels (depth 5 accepted)', async () => {
    const oper = { 'category.parent': { and: [{ or: [{ and: ['name|=|Electronics'] }] }] } };
    const res = await ctx.get('/products', { oper });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Alpha Phone', 'Gamma Laptop', 'beta phone']);
  });

  it('counts a dot path of two relations as two levels (depth 6 rejected)', async () => {
    const oper = { 'category.parent': { and: [{ or: [{ and: [{ or: ['name|=|Electronics'] }] }] }] } };
    expectError(await ctx.get('/products', { oper }), 400, 'bad_request', 'Maximum nesting depth (5) exceeded.');
  });

  it('accepts exactly 100 conditions', async () => {
    const conditions = Array.from({ length: 100 }, (_, i) => `stock|!=|${1000 + i}`);
    const res = await ctx.get('/products', { oper: { and: conditions } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.have.length(6);
  });

  it('rejects 101 conditions with "Maximum conditions (100) exceeded."', async () => {
    const conditions = Array.from({ length: 101 }, (_, i) => `stock|!=|${1000 + i}`);
    expectError(await ctx.get('/products', { oper: { and: conditions } }), 400, 'bad_request', 'Maximum conditions (100) exceeded.');
  });

  it('counts conditions across nested groups and relation trees', async () => {
    const half = Array.from({ length: 50 }, (_, i) => `stock|!=|${1000 + i}`);
    const oper = { and: [...half, { or: half }], category: { and: ['name|!=|x'] } };
    expectError(await ctx.get('/products', { oper }), 400, 'bad_request', 'Maximum conditions (100) exceeded.');
  });

  it('an operator outside the allowlist is a 400 naming it and listing the allowed ones', async () => {
    const body = expectBadRequest(await ctx.get('/products', { oper: { and: ['name|regexp|^A'] } }), 'regexp');
    expect(String(body.message)).to.include('ilike').and.include('not between');
  });

  it('a disallowed operator inside a relation tree is a 400 too', async () => {
    expectBadRequest(await ctx.get('/products', { oper: { category: { and: ['name|~|Ph'] } } }), '~');
  });

  it('an unknown relation key is a 400 naming it and the allowed relations', async () => {
    const body = expectBadRequest(await ctx.get('/products', { oper: { supplier: { and: ['name|=|x'] } } }), 'supplier');
    expect(String(body.message)).to.include('category');
  });

  it('an unknown segment in a relation dot path is a 400 naming it', async () => {
    expectBadRequest(await ctx.get('/products', { oper: { 'category.owner': { and: ['name|=|x'] } } }), 'owner');
  });

  it('an unknown field inside a relation tree is a 400 naming it', async () => {
    expectBadRequest(await ctx.get('/products', { oper: { category: { and: ['title|=|x'] } } }), 'title');
  });

  it('a relation that exists on another model only is a 400 (reviews.tags)', async () => {
    expectBadRequest(await ctx.get('/reviews', { oper: { tags: { and: ['name|=|red'] } } }), 'tags');
  });

  it('a write-only field inside a relation tree is a 400 (reviews -> user.api_token)', async () => {
    expectBadRequest(await ctx.get('/reviews', { oper: { user: { and: ['api_token|=|secret-ann'] } } }), 'api_token');
  });

  it('a __proto__ key in oper is rejected, not merged', async () => {
    const res = await ctx.request().get('/api/v1/products').query({ oper: '{"__proto__": {"and": ["price|=|0"]}}' });
    expectBadRequest(res, '__proto__');
  });
});
