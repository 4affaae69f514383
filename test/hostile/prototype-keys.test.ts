import { expect } from 'chai';
import { API, expectBadRequest, forEachDriver, type Fixture } from '../support/contract-app';

/**
 * Decision 72 on every route kind that takes parameters, both drivers: a prototype key
 * (`__proto__`, `constructor`, `prototype`) in bracket notation at any depth is a 400 naming it,
 * as the JSON form is; as a parameter of its own it is an unknown parameter (decision 64). Before,
 * the pair was dropped and the filter, group or order with it: the answer widened. Each case
 * checks the 400 and that the same request without the hostile pair still narrows (the control).
 */
const NAMES = ['__proto__', 'constructor', 'prototype'];

/** A query string with raw brackets (values encoded), as a browser or curl sends it. */
const raw = (pairs: Array<[string, string]>): string => pairs.map(([k, v]) => `${k.replace(/[^[\]]+/g, encodeURIComponent)}=${encodeURIComponent(v)}`).join('&');

forEachDriver('hostile: prototype keys in parameters (decision 72)', (ctx) => {
  let fx: Fixture;
  before(async () => {
    fx = await ctx.fixture();
  });

  const get = (path: string, pairs: Array<[string, string]>) => ctx.request().get(`${API}${path}?${raw(pairs)}`);

  it('lists: a prototype key in filter, attr, eq, oper, orderby, select, relations, pagination or hierarchy is a 400 naming it', async () => {
    const control = await get('/products', [['attr[status]', 'draft']]);
    expect(control.status).to.equal(200);
    expect(control.body.data.map((r: { name: string }) => r.name)).to.deep.equal(['Delta Book']);
    for (const key of NAMES) {
      for (const [name, before, after] of [
        ['filter', '', '[x]'], ['attr', '', ''], ['attr', '', '[status]'], ['eq', '', ''], ['oper', '', '[and][0]'], ['oper', '[and][0]', ''],
        ['oper', '[category]', '[and][0]'], ['oper', '[or][0][and][0]', ''], ['orderby', '', ''], ['orderby', '[0]', ''],
        ['select', '', ''], ['relations', '', ''], ['pagination', '', ''], ['hierarchy', '', ''],
      ] as const) {
        const res = await get('/categories', [['attr[name]', 'Books'], [`${name}${before}[${key}]${after}`, 'x']]);
        const body = expectBadRequest(res, `"${key}"`);
        expect(body.message, `${name}${before}[${key}]${after}`).to.equal(`Key "${key}" is not allowed in ${name}.`);
        expect(body).to.not.have.property('data');
      }
    }
  });

  it('the bracket form answers as the JSON form does', async () => {
    for (const key of NAMES) {
      const json = await ctx.request().get(`${API}/products`).query({ attr: `{"${key}": {"status": "draft"}}` });
      const brackets = await get('/products', [[`attr[${key}][status]`, 'draft']]);
      expectBadRequest(json, key);
      expect(brackets.status).to.equal(json.status);
      expect(brackets.body).to.deep.equal(json.body);
    }
  });

  it('a top-level prototype name is an unknown parameter on lists, first, show, aggregate, export, changes and relation routes', async () => {
    const paths = ['/products', '/products/first', `/products/${fx.prod.alpha.id}`, '/products/aggregate', '/products/export/excel', '/products/changes', `/products/${fx.prod.alpha.id}/reviews`, `/products/${fx.prod.alpha.id}/tags/${fx.tag.red.id}`];
    for (const path of paths) {
      for (const key of NAMES) {
        for (const pairs of [[[key, '1']], [[`${key}[x]`, '1']], [[key, '']]] as Array<Array<[string, string]>>) {
          const res = await get(path, pairs);
          const body = expectBadRequest(res, `"${key}"`);
          expect(body.message, path).to.match(new RegExp(`^Unknown parameter "${key}"\\. Accepted: `));
          expect(res.headers['content-type'], path).to.match(/application\/json/);
        }
      }
    }
    // a write's query string too (its body is data)
    const write = await ctx.request().post(`${API}/tags?constructor=1`).send({ name: ctx.unique('tag') });
    expectBadRequest(write, 'Unknown parameter "constructor"');
  });

  it('every route kind with parameters refuses a nested prototype key (first, show, aggregate, export, changes, relation lists)', async () => {
    const cases: Array<[string, string, string]> = [
      ['/products/first', 'oper[and][0][__proto__]', 'oper'],
      [`/products/${fx.prod.alpha.id}`, 'relations[0][constructor]', 'relations'],
      ['/products/aggregate', 'group_by[prototype]', 'group_by'],
      ['/products/aggregate', 'aggregate[sum][__proto__]', 'aggregate'],
      ['/products/aggregate', 'aggregate[constructor][0]', 'aggregate'],
      ['/products/aggregate', 'orderby[0][prototype]', 'orderby'],
      ['/products/export/excel', 'attr[constructor]', 'attr'],
      ['/products/changes', 'oper[and][__proto__]', 'oper'],
      [`/products/${fx.prod.alpha.id}/reviews`, 'attr[prototype][rating]', 'attr'],
      [`/products/${fx.prod.alpha.id}/tags`, 'select[constructor]', 'select'],
    ];
    for (const [path, key, name] of cases) {
      const res = await get(path, [[key, '5']]);
      const forbidden = NAMES.find((n) => key.includes(n)) as string;
      const body = expectBadRequest(res, forbidden);
      expect(body.message, `${path} ${key}`).to.equal(`Key "${forbidden}" is not allowed in ${name}.`);
    }
  });

  it('aggregate: group_by[prototype] does not drop the groups (the answer would be one widened group)', async () => {
    const control = await get('/products/aggregate', [['group_by[0]', 'status']]);
    expect(control.status).to.equal(200);
    expect(control.body.total).to.equal(3);
    const res = await get('/products/aggregate', [['group_by[prototype]', 'status']]);
    expectBadRequest(res, 'prototype');
  });

  it('read bodies: a prototype name at the top is unknown, below a parameter a 400 naming it', async () => {
    for (const key of NAMES) {
      const top = await ctx.request().get(`${API}/products`).set('Content-Type', 'application/json').send(`{"${key}": {"status": "draft"}, "select": "name"}`);
      expectBadRequest(top, `Unknown parameter "${key}"`);
      for (const [name, json] of [['attr', `{"${key}": {"status": "draft"}}`], ['pagination', `{"${key}": {"page": 2}}`], ['oper', `{"and": [{"${key}": ["price|=|0"]}]}`], ['group_by', `{"${key}": "status"}`]]) {
        const path = name === 'group_by' ? '/products/aggregate' : '/products';
        const res = await ctx.request().get(`${API}${path}`).set('Content-Type', 'application/json').send(`{"${name}": ${json}}`);
        expectBadRequest(res, `Key "${key}" is not allowed in ${name}.`);
      }
    }
    expect(({} as Record<string, unknown>).status).to.equal(undefined);
  });
});
