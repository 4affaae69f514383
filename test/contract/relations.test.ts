import { expect } from 'chai';
import { expectBadRequest, forEachDriver, names, sameId, type Fixture, type Rec } from '../support/contract-app';

/** Eager loading through `relations` (decisions 11, 12, 14). */
type Row = Record<string, unknown>;
const byName = (rows: unknown, name: string): Row => {
  const row = (rows as Row[]).find((r) => r.name === name);
  expect(row, `row named ${name}`).to.not.equal(undefined);
  return row as Row;
};
const keys = (row: unknown) => Object.keys(row as Row).sort();

forEachDriver('relations: eager loading', (ctx) => {
  let fx: Fixture;
  before(async () => {
    fx = await ctx.fixture();
  });

  it('loads a belongsTo relation by name (null when absent)', async () => {
    const res = await ctx.get('/products', { relations: ['category'] });
    expect(res.status, res.text).to.equal(200);
    const alpha = byName(res.body.data, 'Alpha Phone');
    expect((alpha.category as Row).name).to.equal('Phones');
    expect(sameId((alpha.category as Row).id, fx.cat.phones.id)).to.equal(true);
    expect(byName(res.body.data, 'Epsilon Thing').category).to.equal(null);
  });

  it('name:c1,c2 selects columns of the relation and adds its key', async () => {
    const res = await ctx.get('/products', { relations: ['category:name'] });
    expect(res.status, res.text).to.equal(200);
    const category = byName(res.body.data, 'Alpha Phone').category as Row;
    expect(keys(category)).to.deep.equal(['id', 'name']);
    expect(category.name).to.equal('Phones');
  });

  it('a.b loads a nested relation', async () => {
    const res = await ctx.get('/products', { relations: ['category.parent'] });
    expect(res.status, res.text).to.equal(200);
    const category = byName(res.body.data, 'Gamma Laptop').category as Row;
    expect(category.name).to.equal('Laptops');
    expect((category.parent as Row).name).to.equal('Electronics');
    expect((byName(res.body.data, 'Delta Book').category as Row).parent).to.equal(null);
  });

  it('a.b:cols selects columns of the nested relation only', async () => {
    const res = await ctx.get('/products', { relations: ['category.parent:name'] });
    expect(res.status, res.text).to.equal(200);
    const category = byName(res.body.data, 'Alpha Phone').category as Row;
    expect(category).to.include.keys('id', 'name', 'parent_id', 'created_at');
    expect(keys(category.parent)).to.deep.equal(['id', 'name']);
  });

  it('all loads every relation in RELATIONS', async () => {
    const res = await ctx.get('/products', { relations: ['all'] });
    expect(res.status, res.text).to.equal(200);
    const alpha = byName(res.body.data, 'Alpha Phone');
    expect(alpha).to.include.keys('category', 'reviews', 'tags');
    expect(alpha.reviews).to.have.length(2);
    expect(alpha.tags).to.have.length(2);
  });

  it('accepts the comma-separated string form (columns follow their relation)', async () => {
    const res = await ctx.request().get('/api/v1/products').query({ relations: 'category:name,parent_id,reviews' });
    expect(res.status, res.text).to.equal(200);
    const alpha = byName(res.body.data, 'Alpha Phone');
    expect(keys(alpha.category)).to.deep.equal(['id', 'name', 'parent_id']);
    expect(alpha.reviews).to.have.length(2);
  });

  it('accepts relations as a JSON-encoded array in the query string', async () => {
    const res = await ctx.request().get('/api/v1/products').query({ relations: '["category","tags"]' });
    expect(res.status, res.text).to.equal(200);
    expect(byName(res.body.data, 'Gamma Laptop')).to.include.keys('category', 'tags');
  });

  it('loads hasMany records carrying their foreign key', async () => {
    const res = await ctx.get('/products', { relations: ['reviews'] });
    expect(res.status, res.text).to.equal(200);
    const alpha = byName(res.body.data, 'Alpha Phone');
    const reviews = alpha.reviews as Row[];
    expect(reviews.map((r) => r.rating).sort()).to.deep.equal([2, 5]);
    for (const r of reviews) expect(sameId(r.product_id, alpha.id)).to.equal(true);
    expect(byName(res.body.data, 'beta phone').reviews).to.deep.equal([]);
  });

  it('hasMany with a column selection adds the key and the foreign key', async () => {
    const res = await ctx.get('/products', { relations: ['reviews:rating'] });
    expect(res.status, res.text).to.equal(200);
    for (const r of byName(res.body.data, 'Alpha Phone').reviews as Row[]) expect(keys(r)).to.deep.equal(['id', 'product_id', 'rating']);
  });

  it('many-to-many items carry pivot {product_id, tag_id, position, note}', async () => {
    const res = await ctx.get('/products', { relations: ['tags'] });
    expect(res.status, res.text).to.equal(200);
    const alpha = byName(res.body.data, 'Alpha Phone');
    expect(names(alpha.tags)).to.deep.equal(['green', 'red']);
    const red = byName(alpha.tags, 'red');
    const green = byName(alpha.tags, 'green');
    expect(keys(red.pivot)).to.deep.equal(['note', 'position', 'product_id', 'tag_id']);
    const redPivot = red.pivot as Row;
    expect(sameId(redPivot.product_id, fx.prod.alpha.id)).to.equal(true);
    expect(sameId(redPivot.tag_id, fx.tag.red.id)).to.equal(true);
    expect(redPivot.position).to.equal(1);
    expect(redPivot.note).to.equal('first');
    expect((green.pivot as Row).position).to.equal(2);
    expect((green.pivot as Row).note).to.equal(null);
    expect(byName(res.body.data, 'beta phone').tags).to.deep.equal([]);
  });

  it('many-to-many with a column selection keeps id and pivot', async () => {
    const res = await ctx.get('/products', { relations: ['tags:name'] });
    expect(res.status, res.text).to.equal(200);
    const red = byName(byName(res.body.data, 'Gamma Laptop').tags, 'red');
    expect(keys(red)).to.deep.equal(['id', 'name', 'pivot']);
    expect((red.pivot as Row).position).to.equal(1);
  });

  it('many-to-many from the other side carries the same pivot', async () => {
    const res = await ctx.get('/tags', { relations: ['products'] });
    expect(res.status, res.text).to.equal(200);
    const red = byName(res.body.data, 'red');
    expect(names(red.products)).to.deep.equal(['Alpha Phone', 'Gamma Laptop']);
    const alpha = byName(red.products, 'Alpha Phone');
    expect((alpha.pivot as Row).note).to.equal('first');
    expect(sameId((alpha.pivot as Row).tag_id, fx.tag.red.id)).to.equal(true);
    expect(byName(res.body.data, 'blue').products).to.deep.equal([]);
  });

  it('loads a nested path over hasMany (reviews.user) without write-only fields', async () => {
    const res = await ctx.get('/products', { relations: ['reviews.user'] });
    expect(res.status, res.text).to.equal(200);
    const reviews = byName(res.body.data, 'Alpha Phone').reviews as Row[];
    expect(reviews.map((r) => (r.user as Row).name).sort()).to.deep.equal(['Ann', 'Bob']);
    expect(res.text).not.to.include('secret-ann');
    for (const r of reviews) expect(r.user).not.to.have.property('api_token');
  });

  it('loads self relations (children, parent) of categories', async () => {
    const res = await ctx.get('/categories', { relations: ['children', 'parent', 'products'] });
    expect(res.status, res.text).to.equal(200);
    const electronics = byName(res.body.data, 'Electronics');
    expect(names(electronics.children)).to.deep.equal(['Laptops', 'Phones']);
    expect(electronics.parent).to.equal(null);
    expect((byName(res.body.data, 'Phones').parent as Row).name).to.equal('Electronics');
    expect(names(byName(res.body.data, 'Books').products)).to.deep.equal(['Delta Book', 'Zeta Book']);
  });

  it('root select keeps the foreign key needed to attach a belongsTo', async () => {
    const res = await ctx.get('/products', { select: ['name'], relations: ['category:name'] });
    expect(res.status, res.text).to.equal(200);
    const alpha = byName(res.body.data, 'Alpha Phone');
    expect(keys(alpha)).to.deep.equal(['category', 'category_id', 'id', 'name']);
  });

  it('an unknown relation is a 400 naming it', async () => {
    expectBadRequest(await ctx.get('/products', { relations: ['supplier'] }), 'supplier');
  });

  it('an unknown nested segment is a 400 naming it', async () => {
    expectBadRequest(await ctx.get('/products', { relations: ['category.owner'] }), 'owner');
  });

  it('an unknown column in a relation column list is a 400 naming it', async () => {
    expectBadRequest(await ctx.get('/products', { relations: ['category:title'] }), 'title');
  });

  it('a write-only column in a relation column list is a 400', async () => {
    expectBadRequest(await ctx.get('/reviews', { relations: ['user:name,api_token'] }), 'api_token');
  });

  it('relations on show load the same shapes', async () => {
    const rec = await ctx.fetch('products', (fx.prod.alpha as Rec).id, { relations: ['category', 'tags'] });
    expect((rec.category as Row).name).to.equal('Phones');
    expect((byName(rec.tags, 'red').pivot as Row).position).to.equal(1);
  });
});
