import { expect } from 'chai';
import supertest from 'supertest';
import { routeParams } from '../../lib/query/route-params';
import { API, expectBadRequest, expectError, forEachDriver, names, type Fixture } from '../support/contract-app';

/**
 * Decision 64: a parameter the route does not know is a 400 naming it and listing the accepted
 * ones (typos and other libraries' spellings are no longer silently dropped); the application's
 * own parameters (`allowParams`) are accepted and ignored; unknown paths under the API answer a
 * JSON 404 in the error shape, never Express's HTML page.
 */
forEachDriver('parameters: unknown names, allowParams, unknown routes', (ctx) => {
  let fx: Fixture;
  before(async () => {
    fx = await ctx.fixture();
  });

  // products are neither soft-deletable nor a tree: soft_delete and hierarchy are not theirs (issue 44)
  const LIST_ACCEPTED = 'Accepted: oper, attr, eq, select, relations, orderby, pagination, _nested, cache, cache_ttl.';

  it('typos and other libraries\' spellings on a list are 400s naming them and listing the accepted ones', async () => {
    for (const [name, value] of [['opr', '{"and":["price|>|10"]}'], ['title', 'Alpha Phone'], ['limit', '2'], ['sort', 'name'], ['filter[status]', 'active'], ['page', '2']]) {
      const res = await ctx.request().get(`${API}/products`).query({ [name]: value });
      const body = expectBadRequest(res, `Unknown parameter "${name.replace(/\[.*$/, '')}"`);
      expect(body.message).to.include(LIST_ACCEPTED);
    }
  });

  it('several unknown names are all named; known ones beside them do not help', async () => {
    const res = await ctx.request().get(`${API}/products?attr[status]=active&opr=x&sort=name`);
    expectBadRequest(res, 'Unknown parameters "opr", "sort"');
  });

  it('an unknown name in the JSON body of a read is a 400 too', async () => {
    expectBadRequest(await ctx.getWithBody('/products', { attr: { status: 'active' }, limit: 2 }), 'Unknown parameter "limit"');
  });

  it('each route accepts its own set: show takes no filter, /first takes the list\'s', async () => {
    const id = fx.prod.alpha.id;
    const show = await ctx.get(`/products/${id}`, { select: 'name', relations: 'category' });
    expect(show.status, show.text).to.equal(200);
    expect(show.body.name).to.equal('Alpha Phone');
    const body = expectBadRequest(await ctx.get(`/products/${id}`, { oper: { and: ['price|>|1000'] } }), 'Unknown parameter "oper"');
    expect(body.message).to.include('Accepted: select, relations, orderby, cache, cache_ttl.');
    const first = await ctx.get('/products/first', { attr: { status: 'draft' } });
    expect(first.status, first.text).to.equal(200);
    expect(first.body.data.name).to.equal('Delta Book');
  });

  it('writes take no query parameters; their body keys are data, not parameters', async () => {
    const before = await ctx.count('products');
    const sku = ctx.unique('sku');
    const refused = await ctx.request().post(`${API}/products?select=name`).send({ name: 'Query Param', sku, price: 5 });
    expect(expectBadRequest(refused, 'Unknown parameter "select"').message).to.include('This route takes no query parameters.');
    expect(await ctx.count('products')).to.equal(before);
    const created = await ctx.request().post(`${API}/products`).send({ name: 'Query Param', sku, price: 5 });
    expect(created.status, created.text).to.equal(200);
    const updated = await ctx.request().put(`${API}/products/${created.body.model.id}`).send({ name: 'Renamed' });
    expect(updated.status, updated.text).to.equal(200);
    expectBadRequest(await ctx.request().delete(`${API}/products/${created.body.model.id}?force=1`), 'Unknown parameter "force"');
    expect((await ctx.fetch('products', created.body.model.id)).name).to.equal('Renamed');
    await ctx.request().delete(`${API}/products/${created.body.model.id}`).expect(200);
  });

  it('relation routes: lists take the list parameters without the cache or the tree; writes take _scenario', async () => {
    const id = fx.prod.alpha.id;
    const list = await ctx.request().get(`${API}/products/${id}/tags?select[]=name&orderby[0][name]=asc`);
    expect(list.status, list.text).to.equal(200);
    expect(list.body.data.map((t: { name: string }) => t.name)).to.deep.equal(['green', 'red']);
    expectBadRequest(await ctx.get(`/products/${id}/tags`, { cache: false }), 'Unknown parameter "cache"');
    expectBadRequest(await ctx.get(`/products/${id}/tags`, { hierarchy: true }), 'Unknown parameter "hierarchy"');
    expectBadRequest(await ctx.request().post(`${API}/products/${id}/tags?_scenari=bulk_create`).send({ tags: [] }), 'Unknown parameter "_scenari"');
  });

  it('exports take the list parameters plus columns and filename; template only on PDF', async () => {
    const ok = await ctx.request().get(`${API}/products/export/excel?attr[status]=draft&columns[]=name&filename=report`);
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.headers['x-total-count']).to.equal('1');
    expectBadRequest(await ctx.request().get(`${API}/products/export/excel?template=pdf`), 'Unknown parameter "template"');
  });

  it('allowParams: the application\'s own parameters are accepted and ignored, API-wide', async () => {
    const other = await ctx.exampleAppWith({ allowParams: ['token', 'trace'] });
    try {
      const agent = () => supertest.agent(other.app).set('Authorization', `Bearer ${other.info.adminToken}`);
      const res = await agent().get(`${API}/products?token=abc&trace=1&attr[status]=active`);
      expect(res.status, res.text).to.equal(200);
      expect(names(res.body.data)).to.deep.equal(['Alpha Phone', 'Epsilon Thing', 'Gamma Laptop']);
      const write = await agent().put(`${API}/products/${fx.prod.delta.id}?token=abc`).send({ stock: 100 });
      expect(write.status, write.text).to.equal(200);
      const body = expectBadRequest(await agent().get(`${API}/products?tokn=abc`), 'Unknown parameter "tokn"');
      expect(body.message).to.include('cache_ttl, token, trace.');
      // the default app does not know them
      expectBadRequest(await ctx.get('/products', { token: 'abc' }), 'Unknown parameter "token"');
    } finally {
      await other.close();
    }
  });

  it('an unknown path under a resource is a JSON 404 in the error shape; a known path with another method names its methods', async () => {
    // (products, which has relation routes, answers its 3-segment paths with "relation not configured")
    for (const path of [`/categories/${fx.cat.books.id}/nothing`, '/categories/export/csv', `/reviews/${fx.review.a1.id}/restore/x`, `/tags/${fx.tag.red.id}/a/b/c`]) {
      const res = await ctx.request().get(`${API}${path}`);
      expectError(res, 404, 'not_found');
      expect(res.headers['content-type']).to.match(/application\/json/);
      expect(res.body.message).to.include(`No route for GET ${API}${path}`);
    }
    const wrong = await ctx.request().delete(`${API}/products`);
    expectError(wrong, 404, 'not_found');
    expect(wrong.body.message).to.include('this path answers GET, HEAD, POST');
    expect(wrong.headers.allow).to.equal('GET, HEAD, POST');
    const restore = await ctx.request().get(`${API}/reviews/${fx.review.a1.id}/restore`);
    expectError(restore, 404, 'not_found');
    expect(restore.headers.allow).to.equal('POST');
  });

  it('every parameter the API description documents for a route is one the route accepts', async () => {
    const doc = await ctx.request().get(`${API}/openapi.json`);
    expect(doc.status, doc.text).to.equal(200);
    const refs = (doc.body.components?.parameters ?? {}) as Record<string, { name: string; in: string }>;
    const byId = new Map<string, Array<{ name?: string; in?: string; $ref?: string }>>();
    for (const ops of Object.values(doc.body.paths as Record<string, Record<string, { operationId: string; parameters?: Array<{ name?: string; in?: string; $ref?: string }> }>>)) {
      for (const op of Object.values(ops)) byId.set(op.operationId, op.parameters ?? []);
    }
    let checked = 0;
    for (const route of ctx.routes()) {
      const accepted = routeParams(route.action);
      expect(accepted, `${route.name} (${route.action}) is in the parameter table`).to.not.equal(null);
      const query = (byId.get(route.name) ?? []).map((p) => (p.$ref ? refs[p.$ref.split('/').pop() as string] : p)).filter((p) => p.in === 'query').map((p) => p.name as string);
      expect(accepted, route.name).to.include.members(query);
      if (route.name === 'categories.index') expect(query).to.include.members(['oper', 'pagination', 'hierarchy']);
      if (route.name === 'reviews.index') expect(query).to.include.members(['oper', 'soft_delete']).and.not.include('hierarchy');
      // documented only where they apply (issue 44): the route refuses them elsewhere
      if (route.model !== 'review') expect(query, route.name).to.not.include('soft_delete');
      if (route.model !== 'category') expect(query, route.name).to.not.include('hierarchy');
      checked += 1;
    }
    expect(checked).to.be.greaterThan(40);
  });

  it('an unknown first segment under the prefix is a JSON 404 too (never Express\'s HTML page)', async () => {
    const res = await ctx.request().get(`${API}/nonexistent/1?opr=x`);
    expectError(res, 404, 'not_found');
    expect(res.text).to.not.include('<');
  });
});
