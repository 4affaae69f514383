import { expect } from 'chai';
import { API, TIMESTAMP, encodeParams, expectBadRequest, expectError, forEachDriver, type Fixture, type Member, type Params } from '../support/contract-app';

/**
 * GET /{resource}/aggregate (decisions 55-57) on the fixture of test/contract/README.md: the list's
 * filters first, then groups (own fields, to-one paths), every function, order and pages of groups,
 * the read rules of a list (permission, ownership, read policy), bad input, the read cache.
 */
type Item = { group: Record<string, unknown>; count?: number; sum?: Record<string, number | null>; avg?: Record<string, number | null>; min?: Record<string, unknown>; max?: Record<string, unknown>; count_distinct?: Record<string, number> };

forEachDriver('aggregates', (ctx) => {
  let fx: Fixture;

  const aggregate = async (resource: string, params: Params = {}, member?: Member) => {
    const res = member ? await member.agent().get(`${API}/${resource}/aggregate`).query(encodeParams(params)) : await ctx.get(`/${resource}/aggregate`, params);
    return res;
  };
  const data = async (resource: string, params: Params = {}): Promise<Item[]> => {
    const res = await aggregate(resource, params);
    expect(res.status, res.text).to.equal(200);
    return res.body.data as Item[];
  };

  before(async () => {
    fx = await ctx.fixture();
  });

  describe('answers', () => {
    it('without group_by or aggregate: one item counting every record, in the list envelope', async () => {
      const res = await aggregate('products');
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ current_page: 1, data: [{ group: {}, count: 6 }], per_page: 1000, total: 1, last_page: 1, from: 1, to: 1 });
    });

    it('every function per group of an own field, only the functions asked, groups in ascending order', async () => {
      const rows = await data('products', {
        group_by: ['status'],
        aggregate: { count: '*', sum: ['price', 'stock'], avg: ['price', 'stock'], min: ['price', 'name', 'created_at'], max: ['price', 'sku'], count_distinct: ['category_id'] },
      });
      expect(rows.map((r) => r.group)).to.deep.equal([{ status: 'active' }, { status: 'draft' }, { status: 'inactive' }]);
      const [active, draft, inactive] = rows;
      expect(Object.keys(active)).to.deep.equal(['group', 'count', 'sum', 'avg', 'min', 'max', 'count_distinct']);
      expect(active).to.deep.include({ count: 3, sum: { price: 1600.5, stock: 18 }, avg: { price: 533.5, stock: 6 }, max: { price: 1500.5, sku: 'SKU-003' }, count_distinct: { category_id: 2 } });
      expect(active.min).to.deep.include({ price: 0, name: 'Alpha Phone' });
      // dates exactly as a show renders them
      expect(active.min!.created_at).to.match(TIMESTAMP).and.equal(fx.prod.alpha.created_at);
      expect(draft).to.deep.include({ count: 1, sum: { price: 20, stock: 100 }, avg: { price: 20, stock: 100 }, count_distinct: { category_id: 1 } });
      // strings compare bytewise (upper case first), on both drivers
      expect(inactive).to.deep.include({ count: 2, sum: { price: 220, stock: 7 }, avg: { price: 110, stock: 3.5 } });
      expect(inactive.min).to.deep.include({ price: 20, name: 'Zeta Book' });
      // numbers are JSON numbers, integer sums integers
      expect(Number.isInteger(active.sum!.stock)).to.equal(true);
    });

    it('a to-one relation path groups by the related field; records without one form the null group (first ascending)', async () => {
      const rows = await data('products', { group_by: ['category.name'], aggregate: { count: '*', sum: ['stock'] } });
      expect(rows).to.deep.equal([
        { group: { 'category.name': null }, count: 1, sum: { stock: 3 } },
        { group: { 'category.name': 'Books' }, count: 2, sum: { stock: 107 } },
        { group: { 'category.name': 'Laptops' }, count: 1, sum: { stock: 10 } },
        { group: { 'category.name': 'Phones' }, count: 2, sum: { stock: 5 } },
      ]);
      const nested = await data('products', { group_by: 'category.parent.name,featured', orderby: { count: 'desc' } });
      expect(nested[0]).to.deep.equal({ group: { 'category.parent.name': null, featured: false }, count: 3 });
    });

    it('ids and null values group as a show renders them', async () => {
      const rows = await data('products', { group_by: ['category_id'], aggregate: { count: ['description'] } });
      expect(rows.map((r) => r.group.category_id)).to.have.members([null, fx.cat.phones.id, fx.cat.laptops.id, fx.cat.books.id]);
      expect(rows[0]).to.deep.equal({ group: { category_id: null }, count: { description: 1 } });
      const phones = rows.find((r) => r.group.category_id === fx.cat.phones.id)!;
      // count of a field counts its non-null values (beta has no description)
      expect(phones.count).to.deep.equal({ description: 1 });
      const byDescription = await data('products', { group_by: ['description'], oper: { and: ['status|=|inactive'] } });
      expect(byDescription.map((r) => r.group.description)).to.deep.equal([null, 'a.b']);
    });

    it('nothing matching: one item without group_by (count 0, the others null); no item with it', async () => {
      const params = { oper: { and: ['price|>|99999'] }, aggregate: { count: '*', sum: ['price'], avg: ['price'], min: ['created_at'], max: ['price'], count_distinct: ['status'] } };
      const res = await aggregate('products', params);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.deep.equal([{ group: {}, count: 0, sum: { price: null }, avg: { price: null }, min: { created_at: null }, max: { price: null }, count_distinct: { status: 0 } }]);
      expect(res.body.total).to.equal(1);
      const grouped = await aggregate('products', { ...params, group_by: ['status'] });
      expect(grouped.body).to.deep.equal({ current_page: 1, data: [], per_page: 1000, total: 0, last_page: 1, from: null, to: null });
    });
  });

  describe('filters apply before grouping', () => {
    it('oper (with a relation filter), attr and eq', async () => {
      const rows = await data('products', { group_by: ['status'], oper: { and: ['price|>=|100'], category: { and: ['name|like|Ph%'] } } });
      expect(rows).to.deep.equal([{ group: { status: 'active' }, count: 1 }, { group: { status: 'inactive' }, count: 1 }]);
      expect(await data('products', { attr: { featured: true }, aggregate: { sum: ['price'] } })).to.deep.equal([{ group: {}, sum: { price: 1600.5 } }]);
      expect(await data('products', { eq: { status: 'draft' } })).to.deep.equal([{ group: {}, count: 1 }]);
    });

    it('bracket notation means the same as the JSON form (decision 64)', async () => {
      const res = await ctx.request().get(`${API}/products/aggregate?group_by[]=featured&aggregate[count]=*&aggregate[max][]=price&orderby[count]=desc&pagination[page]=1&pagination[pageSize]=1`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.include({ data: [{ group: { featured: false }, count: 4, max: { price: 200 } }], total: 2, per_page: 1 });
    });

    it('a JSON body carries the parameters, as on lists', async () => {
      const res = await ctx.getWithBody('/products/aggregate', { group_by: ['featured'], aggregate: { max: ['price'] } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.deep.equal([{ group: { featured: false }, max: { price: 200 } }, { group: { featured: true }, max: { price: 1500.5 } }]);
    });

    it('soft delete: trashed records are left out unless soft_delete asks for them', async () => {
      const trashed = await ctx.create('reviews', { product_id: fx.prod.beta.id, user_id: fx.user.bob.id, rating: 1 });
      expect((await ctx.request().delete(`${API}/reviews/${trashed.id}`)).status).to.equal(200);
      expect(await data('reviews', { aggregate: { count: '*', sum: ['rating'] } })).to.deep.equal([{ group: {}, count: 3, sum: { rating: 11 } }]);
      expect(await data('reviews', { soft_delete: 'with', aggregate: { count: '*', sum: ['rating'] } })).to.deep.equal([{ group: {}, count: 4, sum: { rating: 12 } }]);
      expect(await data('reviews', { soft_delete: 'only' })).to.deep.equal([{ group: {}, count: 1 }]);
      expect((await ctx.request().delete(`${API}/reviews/${trashed.id}/force`)).status).to.equal(200);
    });
  });

  describe('order and pages of groups', () => {
    it('by count, by a function of a field, by a group field; paged with the list envelope', async () => {
      const byCount = await aggregate('products', { group_by: ['status'], orderby: { count: 'desc' }, pagination: { page: 1, pageSize: 2 } });
      expect(byCount.body).to.deep.equal({
        current_page: 1,
        data: [{ group: { status: 'active' }, count: 3 }, { group: { status: 'inactive' }, count: 2 }],
        per_page: 2,
        total: 3,
        last_page: 2,
        from: 1,
        to: 2,
      });
      const second = await aggregate('products', { group_by: ['status'], orderby: { count: 'desc' }, pagination: { page: 2, pageSize: 2 } });
      expect(second.body).to.deep.include({ current_page: 2, data: [{ group: { status: 'draft' }, count: 1 }], total: 3, from: 3, to: 3 });
      const past = await aggregate('products', { group_by: ['status'], pagination: { page: 5, pageSize: 2 } });
      expect(past.body).to.deep.include({ data: [], total: 3, from: null, to: null });
      const bySum = await data('products', { group_by: ['status'], aggregate: { sum: ['price'] }, orderby: [{ 'sum.price': 'desc' }] });
      expect(bySum.map((r) => r.group.status)).to.deep.equal(['active', 'inactive', 'draft']);
      const desc = await data('products', { group_by: ['category.name'], orderby: { 'category.name': 'desc' } });
      expect(desc.map((r) => r.group['category.name'])).to.deep.equal(['Phones', 'Laptops', 'Books', null]);
      // ties on the order key fall back to the group fields ascending
      const ties = await data('products', { group_by: ['category.name'], orderby: { count: 'asc' } });
      expect(ties.map((r) => r.group['category.name'])).to.deep.equal([null, 'Laptops', 'Books', 'Phones']);
    });
  });

  describe('read rules of a list', () => {
    let viewer: Member;
    let editor: Member;
    let carol: Member;

    before(async () => {
      viewer = await ctx.member(['viewer']);
      editor = await ctx.member(['editor']);
      carol = await ctx.member(['customer'], { name: 'Carol' });
      await ctx.create('reviews', { product_id: fx.prod.gamma.id, user_id: carol.user.id, rating: 3 });
    });

    after(async () => {
      fx = await ctx.fixture();
    });

    it('needs the list permission: a role that may not list users may not aggregate them', async () => {
      expectError(await aggregate('users', {}, viewer), 403, 'forbidden');
      expect((await viewer.agent().get(`${API}/users`)).status).to.equal(403);
      expectError(await ctx.as(null).get(`${API}/products/aggregate`), 401, 'unauthenticated');
    });

    it('every role gets on each resource the status its list answers (the list permission)', async () => {
      const nobody = await ctx.member([]);
      const admin = await ctx.member(['admin']);
      const customer = await ctx.member(['customer']);
      const seen = new Set<number>();
      for (const member of [viewer, editor, customer, admin, nobody]) {
        for (const resource of ['products', 'categories', 'tags', 'reviews', 'users']) {
          const list = await member.agent().get(`${API}/${resource}`);
          const res = await aggregate(resource, {}, member);
          expect(res.status, `${resource} as ${member.user.name}: ${res.text}`).to.equal(list.status);
          seen.add(res.status);
        }
      }
      expect([...seen].sort()).to.deep.equal([200, 403]);
    });

    it('a field the caller may not read cannot be grouped, aggregated or ordered by (400 naming it)', async () => {
      expectBadRequest(await aggregate('products', { group_by: ['cost'] }, viewer), 'cost');
      expectBadRequest(await aggregate('products', { aggregate: { sum: ['cost'] } }, viewer), 'cost');
      expectBadRequest(await aggregate('products', { orderby: { 'sum.cost': 'desc' } }, viewer), 'sum.cost');
      expectBadRequest(await aggregate('reviews', { group_by: ['product.cost'] }, viewer), 'cost');
      const res = await aggregate('products', { aggregate: { sum: ['cost'] } }, editor);
      expect(res.status, res.text).to.equal(200);
    });

    it('ownership narrows the records (read-own users) and the related records of a group path', async () => {
      const users = await aggregate('users', {}, carol);
      expect(users.status, users.text).to.equal(200);
      expect(users.body.data).to.deep.equal([{ group: {}, count: 1 }]);
      const byAuthor = await aggregate('reviews', { group_by: ['user.name'] }, carol);
      expect(byAuthor.status, byAuthor.text).to.equal(200);
      // the other authors' names are not Carol's to read: their reviews group as null
      expect(byAuthor.body.data).to.deep.equal([{ group: { 'user.name': null }, count: 3 }, { group: { 'user.name': 'Carol' }, count: 1 }]);
      expect(byAuthor.text).to.not.include('Ann');
    });
  });

  describe('bad input: a 400 naming what is wrong', () => {
    const cases: Array<[string, Params, string]> = [
      ['an unknown group field', { group_by: ['colour'] }, 'colour'],
      ['a write-only field', { group_by: ['api_token'] }, 'api_token'],
      ['a to-many group path', { group_by: ['reviews.rating'] }, 'reviews'],
      ['a relation not in RELATIONS', { group_by: ['nothing.name'] }, 'nothing'],
      ['more than 5 group fields', { group_by: ['name', 'sku', 'price', 'stock', 'status', 'featured'] }, 'group_by'],
      ['sum of a string', { aggregate: { sum: ['name'] } }, 'name'],
      ['avg of a date', { aggregate: { avg: ['created_at'] } }, 'avg'],
      ['min of a boolean', { aggregate: { min: ['featured'] } }, 'featured'],
      ['an unknown function', { aggregate: { median: ['price'] } }, 'median'],
      ['"*" outside count', { aggregate: { sum: '*' } }, 'sum'],
      ['an unknown aggregated field', { aggregate: { max: ['weight'] } }, 'weight'],
      ['more than 20 function-field pairs', { aggregate: { count: ['name', 'sku', 'price', 'stock', 'status', 'featured', 'description', 'category_id'], count_distinct: ['name', 'sku', 'price', 'stock', 'status', 'featured', 'description', 'category_id'], min: ['name', 'sku', 'price', 'stock', 'status'] } }, 'aggregate'],
      ['an orderby key not asked for', { group_by: ['status'], orderby: { price: 'asc' } }, 'price'],
      ['a bad direction', { group_by: ['status'], orderby: { status: 'up' } }, 'up'],
      ['an aggregate that is not an object', { aggregate: ['count'] }, 'aggregate'],
      ['a cursor page', { pagination: { infinity: true } }, 'pagination'],
      ['a list parameter aggregates do not take', { select: ['name'] }, 'select'],
      ['a bad filter', { oper: { and: ['price|~|1'] } }, '~'],
    ];
    for (const [title, params, word] of cases) {
      it(title, async () => {
        const resource = title === 'a write-only field' ? 'users' : 'products';
        expectBadRequest(await aggregate(resource, params), word);
      });
    }
  });

  describe('read cache', () => {
    it('an aggregate is a hit until a write to a model it reads (a group path\'s too)', async () => {
      const cached = await ctx.exampleAppWith({ cache: { enabled: true, store: 'memory', prefix: `agg${Date.now()}` } });
      try {
        const { default: supertest } = await import('supertest');
        const get = (params: Params) => supertest(cached.app).get(`${API}/products/aggregate`).set('Authorization', `Bearer ${cached.info.adminToken}`).query(encodeParams(params));
        const params = { group_by: ['category.name'], aggregate: { count: '*' } };
        const first = await get(params);
        expect(first.status, first.text).to.equal(200);
        expect(first.headers['x-cache']).to.equal('miss');
        const again = await get(params);
        expect(again.headers['x-cache']).to.equal('hit');
        expect(again.body).to.deep.equal(first.body);
        // another grouping of the same filter is another entry
        expect((await get({ group_by: ['status'] })).headers['x-cache']).to.equal('miss');
        // renaming a category (a write through the API) changes the answer
        const renamed = await supertest(cached.app).patch(`${API}/categories/${fx.cat.books.id}`).set('Authorization', `Bearer ${cached.info.adminToken}`).send({ name: 'Novels' });
        expect(renamed.status, renamed.text).to.equal(200);
        const after = await get(params);
        expect(after.headers['x-cache']).to.equal('miss');
        expect(after.body.data.map((r: Item) => r.group['category.name'])).to.include('Novels');
        const product = await supertest(cached.app).post(`${API}/products`).set('Authorization', `Bearer ${cached.info.adminToken}`).send({ name: 'Cached', sku: ctx.unique('agg'), price: 1, category_id: fx.cat.books.id });
        expect(product.status).to.equal(200);
        const counted = await get(params);
        expect(counted.headers['x-cache']).to.equal('miss');
        expect(counted.body.data.find((r: Item) => r.group['category.name'] === 'Novels').count).to.equal(3);
      } finally {
        await cached.close();
        fx = await ctx.fixture();
      }
    });
  });

  it('is in the route table with the list permission', () => {
    const route = ctx.routes().find((r) => r.name === 'products.aggregate');
    expect(route).to.include({ method: 'get', path: '/products/aggregate', access: 'read' });
  });
});
