import { expect } from 'chai';
import type { RestConfig } from '../../lib/config';
import { API, expectError, forEachDriver, type Member, type Rec } from '../support/contract-app';

/**
 * Issue 28 (2, 6): an eager load that fans out (products.category.products...) is refused quickly
 * with a 400 naming the limit, and the app keeps answering; a caller cannot learn values of related
 * records they may not read by ordering or filtering on them.
 */
forEachDriver('hostile: eager-load fan-out and relation-field oracles', (ctx) => {
  let category: Rec;
  let viewer: Member;
  let carol: Member;
  let others: Rec[];
  let reviews: Rec[];

  before(async () => {
    await ctx.reset();
    category = await ctx.category({ name: 'Crowded' });
    for (let i = 0; i < 20; i += 1) await ctx.product({ name: `P${String(i).padStart(2, '0')}`, category_id: category.id });
    viewer = await ctx.member(['viewer']);
    carol = await ctx.member(['customer'], { name: 'Mmm Carol' });
    // names in an order that differs from the creation (id) order
    others = [];
    for (const name of ['Zed', 'Aaron', 'Nina', 'Bert']) others.push(await ctx.user({ name }));
    const product = await ctx.product({ name: 'Reviewed' });
    reviews = [];
    for (const user of [others[0], carol.user, others[1], others[2], carol.user, others[3]]) {
      reviews.push(await ctx.create('reviews', { product_id: product.id, user_id: user.id, rating: 3 }));
    }
  });

  const fanOut = (times: number): string => Array.from({ length: times }, () => 'products.category').join('.');

  it('a 10-segment fan-out (products.category x5) is a 400 naming REST_MAX_RELATION_DEPTH, fast, on show and list', async () => {
    for (const path of [`/categories/${category.id}`, '/categories']) {
      const started = Date.now();
      const res = await viewer.agent().get(`${API}${path}`).query({ relations: fanOut(5) });
      expect(Date.now() - started, path).to.be.below(2000);
      const body = expectError(res, 400, 'bad_request', /REST_MAX_RELATION_DEPTH/);
      expect(body.message).to.match(/10 levels deep; at most 3/);
    }
    const health = await ctx.request().get(`${API}/health`);
    expect(health.status).to.equal(200);
  });

  it('12 segments, in a JSON array among other items, is refused the same way', async () => {
    const started = Date.now();
    const res = await viewer.agent().get(`${API}/categories/${category.id}`).query({ relations: JSON.stringify(['parent', fanOut(6)]) });
    expectError(res, 400, 'bad_request', /REST_MAX_RELATION_DEPTH/);
    expect(Date.now() - started).to.be.below(2000);
  });

  it('three levels within the limits load whole (20 products, their category, its 20 products each)', async () => {
    const res = await viewer.agent().get(`${API}/categories/${category.id}`).query({ relations: 'products.category.products' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.products).to.have.length(20);
    for (const p of res.body.products) expect(p.category.products).to.have.length(20);
  });

  it('more related records than REST_MAX_LOADED_RECORDS is a 400 naming it, before the answer is built; /health answers', async () => {
    // the app's live settings (the services read this object): lowered for this test only
    const config = (ctx.app.api as unknown as { config: RestConfig }).config;
    const saved = config.maxLoadedRecords;
    config.maxLoadedRecords = 100; // 20 + 20 + 400 records below
    try {
      for (const path of [`/categories/${category.id}`, '/categories']) {
        const started = Date.now();
        const res = await viewer.agent().get(`${API}${path}`).query({ relations: 'products.category.products' });
        expectError(res, 400, 'bad_request', /more than 100 related records \(REST_MAX_LOADED_RECORDS\)/);
        expect(Date.now() - started, path).to.be.below(2000);
      }
      // one level within the limit loads whole
      const ok = await viewer.agent().get(`${API}/categories/${category.id}`).query({ relations: 'products' });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.products).to.have.length(20);
      // one level over it: refused by the driver's own bound (SQL statement LIMIT, MongoDB $lookup $limit), never cut short
      config.maxLoadedRecords = 10;
      expectError(await viewer.agent().get(`${API}/categories/${category.id}`).query({ relations: 'products' }), 400, 'bad_request', /more than 10 related records/);
      expectError(await viewer.agent().get(`${API}/products`).query({ relations: 'category', pagination: JSON.stringify({ page: 1, pageSize: 15 }) }), 400, 'bad_request', /REST_MAX_LOADED_RECORDS/);
      const page = await viewer.agent().get(`${API}/products`).query({ relations: 'category', pagination: JSON.stringify({ page: 1, pageSize: 10 }) });
      expect(page.status, page.text).to.equal(200);
    } finally {
      config.maxLoadedRecords = saved;
    }
    expect((await ctx.request().get(`${API}/health`)).status).to.equal(200);
  });

  it('MongoDB: a page whose one result document would pass 16 MB is a 400 in the API\'s words (10334), and the app answers on', async function () {
    this.timeout(120_000);
    if (ctx.driver !== 'mongo') this.skip();
    const big = await ctx.category({ name: 'Heavy' });
    const chunk = 'd'.repeat(1024 * 1024);
    // written straight into the collection: the API's body limit would refuse 1 MB values
    const direct = (ctx as unknown as { direct(sql: unknown, mongo: (db: import('mongodb').Db, oid: (id: unknown) => unknown) => Promise<unknown>): Promise<void> }).direct.bind(ctx);
    await direct(null, async (db, oid) => {
      await db.collection('products').insertMany(Array.from({ length: 18 }, (_, i) => ({ name: `Heavy ${i}`, sku: `heavy-${i}-${Date.now()}`, price: 1, description: chunk, category_id: oid(big.id) })) as never[]);
    });
    try {
      const res = await ctx.get('/products', { attr: { category_id: big.id }, pagination: { page: 1, pageSize: 50 } });
      const body = expectError(res, 400, 'bad_request', /larger than the database can return in one document \(16 MB\)/);
      expect(JSON.stringify(body)).to.not.match(/BSONObj|10334/);
      expect((await ctx.request().get(`${API}/health`)).status).to.equal(200);
      const small = await ctx.get('/products', { attr: { category_id: big.id }, select: 'name', pagination: { page: 1, pageSize: 50 } });
      expect(small.status, small.text).to.equal(200);
      expect(small.body.total).to.equal(18);
    } finally {
      await direct(null, (db) => db.collection('products').deleteMany({ name: /^Heavy / }));
    }
  });

  it('ordering reviews by user.name (users: read own) sorts the users the caller cannot read as null', async () => {
    const mine = (r: Rec) => r.user_id === carol.user.id;
    const ids = (rows: Rec[]) => rows.map((r) => r.id);
    const productId = reviews[0].product_id;
    const oper = JSON.stringify({ and: [`product_id|=|${productId}`] });
    const asc = await carol.agent().get(`${API}/reviews`).query({ oper, orderby: JSON.stringify([{ 'user.name': 'asc' }]) });
    expect(asc.status, asc.text).to.equal(200);
    // nulls first ascending, then the caller's own; ties by id: the order says nothing about the names
    expect(ids(asc.body.data)).to.deep.equal(ids([...reviews.filter((r) => !mine(r)), ...reviews.filter(mine)]));
    const desc = await carol.agent().get(`${API}/reviews`).query({ oper, orderby: JSON.stringify([{ 'user.name': 'desc' }]) });
    expect(desc.status, desc.text).to.equal(200);
    expect(ids(desc.body.data)).to.deep.equal(ids([...reviews.filter(mine), ...reviews.filter((r) => !mine(r))]));
    // a cursor page through the same order neither reveals nor skips anything
    const walked: Rec[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages += 1) {
      const pagination: Record<string, unknown> = { infinity: true, pageSize: 2, ...(cursor ? { cursor } : {}) };
      const page = await carol.agent().get(`${API}/reviews`).query({ oper, orderby: JSON.stringify([{ 'user.name': 'asc' }]), pagination: JSON.stringify(pagination) });
      expect(page.status, page.text).to.equal(200);
      walked.push(...page.body.data);
      cursor = page.body.next_cursor;
      if (!cursor) break;
      expect(Buffer.from(cursor, 'base64url').toString('utf8')).to.not.match(/Zed|Aaron|Nina|Bert/);
    }
    expect(ids(walked)).to.deep.equal(ids(asc.body.data));
    // the superuser still sees the names' order
    const admin = await ctx.get('/reviews', { oper, orderby: [{ 'user.name': 'asc' }] });
    const nameOf = new Map<unknown, string>([[carol.user.id, 'Mmm Carol'], ...others.map((u): [unknown, string] => [u.id, u.name as string])]);
    const names = (admin.body.data as Rec[]).map((r) => nameOf.get(r.user_id));
    expect(names).to.deep.equal([...names].sort());
  });

  it('filtering reviews on user.name (users: read own) matches only the users the caller can read', async () => {
    for (const name of ['Zed', 'Aaron']) {
      const res = await carol.agent().get(`${API}/reviews`).query({ oper: JSON.stringify({ user: { and: [`name|=|${name}`] } }) });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data, name).to.have.length(0);
      const like = await carol.agent().get(`${API}/reviews`).query({ oper: JSON.stringify({ user: { and: [`name|like|${name.slice(0, 1)}%`] } }) });
      expect(like.body.data, `${name} like`).to.have.length(0);
    }
    const own = await carol.agent().get(`${API}/reviews`).query({ oper: JSON.stringify({ user: { and: ['name|=|Mmm Carol'] } }) });
    expect(own.body.data.map((r: Rec) => r.id)).to.have.members(reviews.filter((r) => r.user_id === carol.user.id).map((r) => r.id));
  });

  it('a caller with no grant on users cannot order or filter reviews by a user field (400, relation unknown)', async () => {
    expectError(await viewer.agent().get(`${API}/reviews`).query({ orderby: JSON.stringify([{ 'user.name': 'asc' }]) }), 400, 'bad_request', /user/);
    expectError(await viewer.agent().get(`${API}/reviews`).query({ oper: JSON.stringify({ user: { and: ['name|=|Zed'] } }) }), 400, 'bad_request', /user/);
  });

  it('a field hidden by the read policy cannot be a sort key through a relation (products.cost for a viewer)', async () => {
    expectError(await viewer.agent().get(`${API}/reviews`).query({ orderby: JSON.stringify([{ 'product.cost': 'asc' }]) }), 400, 'bad_request', /cost/);
    expectError(await viewer.agent().get(`${API}/reviews`).query({ oper: JSON.stringify({ product: { and: ['cost|>|0'] } }) }), 400, 'bad_request', /cost/);
  });
});
