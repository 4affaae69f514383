import { expect } from 'chai';
import { API, forEachDriver, names, type ContractContext, type Params } from '../support/contract-app';

/**
 * Decision 64: bracket notation (`oper[and][0]=...`, `attr[status]=...`, `pagination[page]=2`,
 * `select[]=name`, `orderby[0][price]=desc`) means what the JSON form means, raw or with the
 * brackets percent-encoded (as the qs library sends them), whatever query parser the Express app
 * uses. Each case compares the whole answer with the JSON form's and checks the data itself.
 */

type Pair = [string, string];

/** Bracket pairs of a parameter object, as qs.stringify writes them (`indices`) or with `[]` for lists. */
function bracketPairs(value: unknown, key: string, lists: 'indices' | 'brackets'): Pair[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => bracketPairs(item, `${key}[${lists === 'indices' ? i : ''}]`, lists));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => bracketPairs(v, `${key}[${k}]`, lists));
  return [[key, value === null ? 'null' : String(value)]];
}

/** The query string: brackets raw (values encoded) or percent-encoded too. */
function bracketQuery(params: Params, options: { encodeBrackets: boolean; lists: 'indices' | 'brackets' }): string {
  const pairs = Object.entries(params).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as Pair] : bracketPairs(v, k, options.lists)));
  const key = (k: string) => (options.encodeBrackets ? encodeURIComponent(k) : k.replace(/[^[\]]+/g, (part) => encodeURIComponent(part)));
  return pairs.map(([k, v]) => `${key(k)}=${encodeURIComponent(v)}`).join('&');
}

interface Case {
  name: string;
  path: string;
  params: Params;
  check(body: Record<string, unknown>): void;
}

const FORMS = [
  { label: 'raw brackets, indices', encodeBrackets: false, lists: 'indices' as const },
  { label: 'raw brackets, [] lists', encodeBrackets: false, lists: 'brackets' as const },
  { label: 'percent-encoded brackets (qs)', encodeBrackets: true, lists: 'indices' as const },
];

const data = (body: Record<string, unknown>) => body.data as Array<Record<string, unknown>>;

const CASES: Case[] = [
  { name: 'oper[and][i] with like', path: '/products', params: { oper: { and: ['name|like|A%'] } }, check: (b) => expect(names(b.data)).to.deep.equal(['Alpha Phone']) },
  { name: 'oper[and][i], two conditions', path: '/products', params: { oper: { and: ['price|>|10', 'status|=|active'] } }, check: (b) => expect(names(b.data)).to.deep.equal(['Alpha Phone', 'Gamma Laptop']) },
  { name: 'oper with a nested group', path: '/products', params: { oper: { or: ['price|=|0', { and: ['status|=|draft'] }] } }, check: (b) => expect(names(b.data)).to.deep.equal(['Delta Book', 'Epsilon Thing']) },
  { name: 'oper with a relation key', path: '/products', params: { oper: { category: { and: ['name|=|Books'] } } }, check: (b) => expect(names(b.data)).to.deep.equal(['Delta Book', 'Zeta Book']) },
  { name: 'attr[field]', path: '/products', params: { attr: { status: 'active' } }, check: (b) => expect(names(b.data)).to.deep.equal(['Alpha Phone', 'Epsilon Thing', 'Gamma Laptop']) },
  { name: 'attr[field] list (IN) and eq[field] typed by the field', path: '/products', params: { attr: { status: ['draft', 'inactive'] }, eq: { featured: false, price: 20 } }, check: (b) => expect(names(b.data)).to.deep.equal(['Delta Book', 'Zeta Book']) },
  { name: 'attr[field]=null is IS NULL', path: '/products', params: { attr: { description: null } }, check: (b) => expect(names(b.data)).to.deep.equal(['beta phone']) },
  {
    name: 'orderby[i][field]', path: '/products', params: { orderby: [{ price: 'desc' }, { name: 'asc' }], select: 'name' },
    check: (b) => expect(data(b).map((r) => r.name)).to.deep.equal(['Gamma Laptop', 'beta phone', 'Alpha Phone', 'Delta Book', 'Zeta Book', 'Epsilon Thing']),
  },
  {
    name: 'pagination[page] and pagination[pageSize]', path: '/products', params: { pagination: { page: 2, pageSize: 2 }, orderby: [{ price: 'asc' }, { name: 'asc' }] },
    check: (b) => {
      expect(b).to.include({ current_page: 2, per_page: 2, total: 6, last_page: 3 });
      expect(data(b).map((r) => r.name)).to.deep.equal(['Zeta Book', 'Alpha Phone']);
    },
  },
  {
    name: 'pagination[infinity] (cursor)', path: '/products', params: { pagination: { infinity: true, pageSize: 4 }, orderby: [{ name: 'asc' }] },
    check: (b) => {
      expect(data(b)).to.have.length(4);
      expect(b.next_cursor).to.be.a('string');
    },
  },
  {
    name: 'select[]', path: '/products', params: { select: ['name', 'price'], attr: { sku: 'SKU-004' } },
    check: (b) => expect(data(b).map((r) => Object.keys(r).sort())).to.deep.equal([['id', 'name', 'price']]),
  },
  {
    name: 'relations[] with select', path: '/products', params: { relations: ['category:name'], select: ['name'], attr: { sku: 'SKU-004' } },
    check: (b) => expect((data(b)[0].category as Record<string, unknown>).name).to.equal('Books'),
  },
  {
    name: 'hierarchy[field] on a tree', path: '/categories', params: { hierarchy: { children_key: 'kids' }, attr: { name: 'Electronics' } },
    check: (b) => {
      expect(data(b).map((r) => r.name)).to.deep.equal(['Electronics']);
      expect(names(data(b)[0].kids)).to.deep.equal(['Laptops', 'Phones']);
    },
  },
];

function bracketSuite(ctx: ContractContext): void {
  for (const c of CASES) {
    it(`${c.name}: every bracket form answers what the JSON form answers`, async () => {
      const json = await ctx.get(c.path, c.params);
      expect(json.status, json.text).to.equal(200);
      c.check(json.body);
      for (const form of FORMS) {
        const query = bracketQuery(c.params, form);
        if (!form.encodeBrackets) expect(query).to.include('[');
        const res = await ctx.request().get(`${API}${c.path}?${query}`);
        expect(res.status, `${form.label}: ${query}: ${res.text}`).to.equal(200);
        expect(res.body, `${form.label}: ${query}`).to.deep.equal(json.body);
      }
    });
  }

  it('the same bracket parameters in a JSON body on GET still work (the body wins)', async () => {
    const res = await ctx.request().get(`${API}/products?attr[status]=draft`).send({ attr: { status: 'active' } });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Alpha Phone', 'Epsilon Thing', 'Gamma Laptop']);
  });

  it('bracket values are checked like JSON ones: a bad field, a bad operator, an index past 999 are 400s', async () => {
    for (const query of ['attr[colour]=red', 'oper[and][0]=price|~|3', 'oper[and][99999999]=price|>|1', 'pagination[page]=zero', 'attr={"status":"active"}&attr[status]=draft']) {
      const res = await ctx.request().get(`${API}/products?${query}`);
      expect(res.status, `${query}: ${res.text}`).to.equal(400);
      expect(res.body).to.include({ type: 'bad_request', status: 400 });
    }
  });
}

forEachDriver('parameters: bracket notation (default query parser)', (ctx) => {
  before(async () => {
    await ctx.fixture();
  });
  bracketSuite(ctx);
});

forEachDriver('parameters: bracket notation (app set to the extended query parser)', (ctx) => {
  before(async () => {
    await ctx.fixture();
    ctx.app.app.set('query parser', 'extended');
  });
  after(() => {
    ctx.app.app.set('query parser', 'simple');
  });
  bracketSuite(ctx);
});
