import { expect } from 'chai';
import { forEachDriver, names, sameId } from '../support/contract-app';

/** Relation existence filters in `oper` (decisions 7-8): belongsTo, hasMany, many-to-many, dot paths. */
interface Case {
  title: string;
  resource: string;
  oper: unknown;
  expected: string[];
}

const cases: Case[] = [
  { title: 'belongsTo', resource: '/products', oper: { category: { and: ['name|=|Phones'] } }, expected: ['Alpha Phone', 'beta phone'] },
  { title: 'dot path category.parent', resource: '/products', oper: { 'category.parent': { and: ['name|=|Electronics'] } }, expected: ['Alpha Phone', 'Gamma Laptop', 'beta phone'] },
  { title: 'many-to-many tags', resource: '/products', oper: { tags: { and: ['name|=|red'] } }, expected: ['Alpha Phone', 'Gamma Laptop'] },
  { title: 'many-to-many with in', resource: '/products', oper: { tags: { and: ['name|in|[green,blue]'] } }, expected: ['Alpha Phone'] },
  { title: 'many-to-many with no match', resource: '/products', oper: { tags: { and: ['name|=|blue'] } }, expected: [] },
  { title: 'hasMany reviews', resource: '/products', oper: { reviews: { and: ['rating|>=|4'] } }, expected: ['Alpha Phone', 'Gamma Laptop'] },
  { title: 'hasMany with or inside the relation tree', resource: '/products', oper: { reviews: { or: ['rating|=|4', 'comment|null'] } }, expected: ['Alpha Phone', 'Gamma Laptop'] },
  { title: 'root conditions and a relation key combined with AND', resource: '/products', oper: { and: ['price|>|100'], tags: { and: ['name|=|red'] } }, expected: ['Gamma Laptop'] },
  { title: 'two relation keys combined with AND', resource: '/products', oper: { tags: { and: ['name|=|red'] }, category: { and: ['name|=|Laptops'] } }, expected: ['Gamma Laptop'] },
  { title: 'a relation key inside a nested or group', resource: '/products', oper: { or: ['price|=|0', { category: { and: ['name|=|Books'] } }] }, expected: ['Delta Book', 'Epsilon Thing', 'Zeta Book'] },
  { title: 'a relation key inside a nested and group within or', resource: '/products', oper: { or: [{ and: ['status|=|active', { tags: { and: ['name|=|green'] } }] }, 'price|=|200'] }, expected: ['Alpha Phone', 'beta phone'] },
  { title: 'a relation key inside a relation tree', resource: '/products', oper: { category: { and: ['name|!=|Laptops'], parent: { and: ['name|=|Electronics'] } } }, expected: ['Alpha Phone', 'beta phone'] },
  { title: 'a nested-relation dot path over hasMany (reviews.user)', resource: '/products', oper: { 'reviews.user': { and: ['name|=|Bob'] } }, expected: ['Alpha Phone'] },
  { title: 'hasMany from categories (products)', resource: '/categories', oper: { products: { and: ['status|=|draft'] } }, expected: ['Books'] },
  { title: 'self relation children', resource: '/categories', oper: { children: { and: ['name|=|Laptops'] } }, expected: ['Electronics'] },
  { title: 'self relation parent with null condition on its parent', resource: '/categories', oper: { parent: { and: ['parent_id|null'] } }, expected: ['Laptops', 'Phones'] },
  { title: 'many-to-many from the other side (tags.products)', resource: '/tags', oper: { products: { and: ['name|like|Gamma%'] } }, expected: ['red'] },
  { title: 'hasMany from users', resource: '/users', oper: { reviews: { and: ['rating|=|2'] } }, expected: ['Bob'] },
];

forEachDriver('filters: relation existence', (ctx) => {
  before(async () => {
    await ctx.fixture();
  });

  for (const c of cases) {
    it(`${c.title}: ${c.resource} ${JSON.stringify(c.oper)}`, async () => {
      const res = await ctx.get(c.resource, { oper: c.oper });
      expect(res.status, res.text).to.equal(200);
      expect(names(res.body.data)).to.deep.equal([...c.expected].sort());
    });
  }

  // an offset page counts with its own statement (on PostgreSQL a belongs-to filter on an indexed
  // foreign key takes another form there: compile-count-filter.ts): the total agrees with the rows
  for (const c of cases) {
    it(`the page total agrees: ${c.title}`, async () => {
      const res = await ctx.get(c.resource, { oper: c.oper, pagination: { page: 1, pageSize: 2 } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.total).to.equal(c.expected.length);
      expect(res.body.data).to.have.length(Math.min(2, c.expected.length));
    });
  }

  it('dot path from reviews (product.category)', async () => {
    const res = await ctx.get('/reviews', { oper: { 'product.category': { and: ['name|=|Laptops'] } } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.have.length(1);
    expect(res.body.data[0].rating).to.equal(4);
  });

  it('a relation filter does not filter the loaded relation data when _nested is absent', async () => {
    const res = await ctx.get('/products', { oper: { reviews: { and: ['rating|=|5'] } }, relations: ['reviews'] });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Alpha Phone']);
    expect(res.body.data[0].reviews.map((r: { rating: number }) => r.rating).sort()).to.deep.equal([2, 5]);
  });

  it('_nested true also filters the loaded relation data', async () => {
    const res = await ctx.get('/products', { oper: { reviews: { and: ['rating|=|5'] } }, relations: ['reviews'], _nested: true });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Alpha Phone']);
    expect(res.body.data[0].reviews.map((r: { rating: number }) => r.rating)).to.deep.equal([5]);
  });

  it('_nested "false" (a string) is false', async () => {
    const res = await ctx.request().get('/api/v1/products').query({ oper: JSON.stringify({ reviews: { and: ['rating|=|5'] } }), relations: 'reviews', _nested: 'false' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data[0].reviews).to.have.length(2);
  });

  it('_nested "true" (a string) filters many-to-many loaded data', async () => {
    const res = await ctx.request().get('/api/v1/products').query({ oper: JSON.stringify({ tags: { and: ['name|=|green'] } }), relations: 'tags', _nested: 'true' });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Alpha Phone']);
    expect(names(res.body.data[0].tags)).to.deep.equal(['green']);
  });

  it('_nested 1 (numeric) filters the loaded belongsTo and keeps root rows matching', async () => {
    const f = await ctx.get('/products', { oper: { category: { and: ['name|=|Phones'] } }, relations: ['category'], _nested: 1 });
    expect(f.status, f.text).to.equal(200);
    expect(names(f.body.data)).to.deep.equal(['Alpha Phone', 'beta phone']);
    for (const p of f.body.data) expect(p.category.name).to.equal('Phones');
  });

  it('relation filters return each root record once, whatever the number of matches', async () => {
    const res = await ctx.get('/products', { oper: { reviews: { and: ['rating|>=|1'] } } });
    expect(res.status, res.text).to.equal(200);
    const ids = res.body.data.map((p: { id: unknown }) => String(p.id));
    expect(new Set(ids).size).to.equal(ids.length);
    expect(names(res.body.data)).to.deep.equal(['Alpha Phone', 'Gamma Laptop']);
    expect(res.body.data.some((p: { id: unknown }) => sameId(p.id, res.body.data[0].id))).to.equal(true);
  });
});
