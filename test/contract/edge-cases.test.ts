import { expect } from 'chai';
import { forEachDriver, names, orderedNames, type Fixture } from '../support/contract-app';

/**
 * Cases where the two drivers are most likely to diverge: null semantics of negated operators and
 * null ordering (docs/decisions.md: MongoDB's semantics on both drivers: negated operators match
 * nulls, nulls sort first ascending), array fields, id- and date-typed values, joins that could
 * duplicate rows in counts and pages, keyset pages over nullable sort keys.
 */
forEachDriver('edge cases across drivers', (ctx) => {
  let fx: Fixture;
  before(async () => {
    fx = await ctx.fixture();
  });

  const list = async (params: Record<string, unknown>, resource = '/products') => {
    const res = await ctx.get(resource, params);
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };

  it('!= matches null values (description != a.b)', async () => {
    const body = await list({ oper: { and: ['description|!=|a.b'] } });
    expect(names(body.data)).to.deep.equal(['Alpha Phone', 'Delta Book', 'Epsilon Thing', 'Gamma Laptop', 'beta phone']);
  });

  it('not in matches null values', async () => {
    const body = await list({ oper: { and: ['description|not in|[a.b,axb]'] } });
    expect(names(body.data)).to.deep.equal(['Alpha Phone', 'Delta Book', 'Gamma Laptop', 'beta phone']);
  });

  it('not like matches null values', async () => {
    const body = await list({ oper: { and: ['description|not like|%a%'] } });
    expect(names(body.data)).to.deep.equal(['Alpha Phone', 'beta phone']);
  });

  it('not ilike matches null values', async () => {
    const body = await list({ oper: { and: ['description|not ilike|%A%'] } });
    expect(names(body.data)).to.deep.equal(['Alpha Phone', 'beta phone']);
  });

  it('!= on a foreign key matches records without one', async () => {
    const body = await list({ oper: { and: [`category_id|!=|${fx.cat.books.id}`] } });
    expect(names(body.data)).to.deep.equal(['Alpha Phone', 'Epsilon Thing', 'Gamma Laptop', 'beta phone']);
  });

  it('= on an array field means contains (users.roles)', async () => {
    const body = await list({ oper: { and: ['roles|=|admin', 'is_superuser|=|false'] } }, '/users');
    expect(names(body.data)).to.deep.equal(['Ann']);
  });

  it('in on an array field means contains any (users.roles)', async () => {
    const body = await list({ oper: { and: ['roles|in|[editor,admin]', 'is_superuser|=|false'] } }, '/users');
    expect(names(body.data)).to.deep.equal(['Ann']);
  });

  it('in on a foreign key with ids from the API', async () => {
    const body = await list({ oper: { and: [`category_id|in|[${fx.cat.phones.id},${fx.cat.laptops.id}]`] } });
    expect(names(body.data)).to.deep.equal(['Alpha Phone', 'Gamma Laptop', 'beta phone']);
  });

  it('attr with an array of ids means IN', async () => {
    const body = await list({ attr: { category_id: [fx.cat.books.id, fx.cat.laptops.id] } });
    expect(names(body.data)).to.deep.equal(['Delta Book', 'Gamma Laptop', 'Zeta Book']);
  });

  it('= on the primary key', async () => {
    const body = await list({ oper: { and: [`id|=|${fx.prod.delta.id}`] } });
    expect(names(body.data)).to.deep.equal(['Delta Book']);
  });

  it('a malformed id value in a filter on an id field is a 400 or matches nothing', async () => {
    const res = await ctx.get('/products', { oper: { and: ['category_id|=|not-an-id'] } });
    if (res.status === 200) expect(res.body.data).to.deep.equal([]);
    else expect(res.status).to.equal(400);
  });

  it('date comparison on created_at with a timestamp from the API', async () => {
    const at = String(fx.prod.delta.created_at);
    const after = await list({ oper: { and: [`created_at|>=|${at}`] } });
    expect(names(after.data)).to.include.members(['Delta Book', 'Epsilon Thing', 'Zeta Book']);
    expect(names(after.data)).to.not.include('Alpha Phone');
    const before = await list({ oper: { and: [`created_at|<|${String(fx.prod.alpha.created_at)}`] } });
    expect(before.data).to.deep.equal([]);
  });

  it('between on dates is inclusive', async () => {
    const body = await list({ oper: { and: [`created_at|between|[${String(fx.prod.beta.created_at)},${String(fx.prod.gamma.created_at)}]`] } });
    expect(names(body.data)).to.include.members(['Gamma Laptop', 'beta phone']);
    expect(names(body.data)).to.not.include('Zeta Book');
  });

  it('a many-to-many filter matching one product twice counts it once', async () => {
    const body = await list({ oper: { tags: { and: ['name|in|[red,green]'] } }, pagination: { page: 1, pageSize: 10 } });
    expect(body.total).to.equal(2);
    expect(names(body.data)).to.deep.equal(['Alpha Phone', 'Gamma Laptop']);
  });

  it('a page of 1 with many-to-many loaded holds one product with all its tags', async () => {
    const body = await list({ relations: ['tags'], pagination: { page: 1, pageSize: 1 }, orderby: [{ price: 'asc' }], oper: { and: ['price|=|100'] } });
    expect(body.data).to.have.length(1);
    expect(names(body.data[0].tags)).to.deep.equal(['green', 'red']);
  });

  it('a nested many-to-many path (tags.products) carries pivots at each level', async () => {
    const rec = await ctx.fetch('products', fx.prod.gamma.id, { relations: ['tags.products'] });
    const red = (rec.tags as Array<{ name: string; products: unknown[]; pivot: unknown }>).find((t) => t.name === 'red')!;
    expect(red.pivot).to.be.an('object');
    expect(names(red.products)).to.deep.equal(['Alpha Phone', 'Gamma Laptop']);
    for (const p of red.products as Array<{ pivot: { position: number } }>) expect(p.pivot.position).to.equal(1);
  });

  it('root select with a hasMany relation keeps the key needed to attach it', async () => {
    const body = await list({ select: ['name'], relations: ['reviews:rating'], oper: { and: ['name|=|Alpha Phone'] } });
    expect(body.data[0]).to.have.property('id');
    expect(body.data[0].reviews).to.have.length(2);
  });

  async function walk(orderby: unknown, pageSize: number): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i += 1) {
      const pagination: Record<string, unknown> = { infinity: true, pageSize };
      if (cursor) pagination.cursor = cursor;
      const body = await list({ orderby, pagination });
      seen.push(...orderedNames(body.data));
      cursor = body.next_cursor;
      if (!cursor) return seen;
    }
    throw new Error('cursor walk did not end');
  }

  it('a cursor walk over a nullable key (description asc) equals the full list', async () => {
    const full = orderedNames((await list({ orderby: [{ description: 'asc' }] })).data);
    expect(await walk([{ description: 'asc' }], 2)).to.deep.equal(full);
  });

  it('a cursor walk over a nullable key descending (description desc) equals the full list', async () => {
    const full = orderedNames((await list({ orderby: [{ description: 'desc' }] })).data);
    expect(await walk([{ description: 'desc' }], 1)).to.deep.equal(full);
  });

  it('a cursor walk over a relation sort key (category.name) equals the full list', async () => {
    const full = orderedNames((await list({ orderby: [{ 'category.name': 'asc' }] })).data);
    expect(full).to.have.length(6);
    expect(await walk([{ 'category.name': 'asc' }], 2)).to.deep.equal(full);
  });

  it('offset pages over a nullable key concatenate to the full list', async () => {
    const full = orderedNames((await list({ orderby: [{ description: 'asc' }] })).data);
    const seen: string[] = [];
    for (let p = 1; p <= 3; p += 1) seen.push(...orderedNames((await list({ orderby: [{ description: 'asc' }], pagination: { page: p, pageSize: 2 } })).data));
    expect(seen).to.deep.equal(full);
  });

  it('null sorts first ascending and last descending (docs/decisions.md)', async () => {
    const asc = orderedNames((await list({ orderby: [{ description: 'asc' }] })).data);
    expect(asc[0]).to.equal('beta phone');
    const desc = orderedNames((await list({ orderby: [{ description: 'desc' }] })).data);
    expect(desc[desc.length - 1]).to.equal('beta phone');
  });

  it('a null relation sort key sorts first ascending (category.name)', async () => {
    const asc = orderedNames((await list({ orderby: [{ 'category.name': 'asc' }] })).data);
    expect(asc).to.deep.equal(['Epsilon Thing', 'Delta Book', 'Zeta Book', 'Gamma Laptop', 'Alpha Phone', 'beta phone']);
  });
});
