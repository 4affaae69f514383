import { expect } from 'chai';
import { expectError, expectRecordShape, expectValidation, forEachDriver, sameId, TIMESTAMP, type Rec } from '../support/contract-app';

/** POST /{resource}: one and several records (decisions 17, 18, 21, 24). */
forEachDriver('store', (ctx) => {
  before(async () => {
    await ctx.reset();
  });

  const post = (resource: string, body: unknown) => ctx.request().post(`/api/v1/${resource}`).send(body as object);
  const countSkus = (...skus: string[]) => ctx.count('products', { oper: { and: [`sku|in|[${skus.join(',')}]`] } });

  it('store one answers 200 {success: true, model} with defaults applied', async () => {
    const sku = ctx.unique('sku');
    const res = await post('products', { name: 'Lamp', sku, price: 12.5 });
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body).sort()).to.deep.equal(['model', 'success']);
    expect(res.body.success).to.equal(true);
    expectRecordShape(res.body.model);
    expect(res.body.model).to.include({ name: 'Lamp', sku, price: 12.5, stock: 0, status: 'draft', featured: false, description: null, category_id: null });
  });

  it('the created record has ISO timestamps with six fractional digits', async () => {
    const model = await ctx.product();
    expect(model.created_at).to.match(TIMESTAMP);
    expect(model.updated_at).to.match(TIMESTAMP);
    expect(Math.abs(Date.parse(String(model.created_at)) - Date.now())).to.be.below(60_000);
  });

  it('the created record is readable through show', async () => {
    const model = await ctx.product({ name: 'Readable', stock: 4, description: 'x' });
    const rec = await ctx.fetch('products', model.id);
    expect(rec).to.deep.equal(model);
  });

  it('stores a record with a belongsTo to an existing record', async () => {
    const category = await ctx.category();
    const model = await ctx.product({ category_id: category.id });
    expect(sameId(model.category_id, category.id)).to.equal(true);
    const child = await ctx.category({ parent_id: category.id });
    expect(sameId(child.parent_id, category.id)).to.equal(true);
  });

  it('store several with {product: [...]} answers {success, models: [{success, model}]} in order', async () => {
    const skus = [ctx.unique('sku'), ctx.unique('sku')];
    const res = await post('products', { product: [{ name: 'One', sku: skus[0], price: 1 }, { name: 'Two', sku: skus[1], price: 2 }] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.success).to.equal(true);
    expect(res.body.models).to.have.length(2);
    for (const item of res.body.models) {
      expect(Object.keys(item).sort()).to.deep.equal(['model', 'success']);
      expect(item.success).to.equal(true);
      expectRecordShape(item.model);
    }
    expect(res.body.models.map((m: { model: Rec }) => m.model.sku)).to.deep.equal(skus);
    expect(await countSkus(...skus)).to.equal(2);
  });

  it('store several with a bare array', async () => {
    const skus = [ctx.unique('sku'), ctx.unique('sku'), ctx.unique('sku')];
    const res = await post('products', skus.map((sku, i) => ({ name: `Bare ${i}`, sku, price: i })));
    expect(res.status, res.text).to.equal(200);
    expect(res.body.models.map((m: { model: Rec }) => m.model.name)).to.deep.equal(['Bare 0', 'Bare 1', 'Bare 2']);
    expect(await countSkus(...skus)).to.equal(3);
  });

  it('store several is all or nothing: a duplicate sku in item 2 writes nothing (409)', async () => {
    const existing = await ctx.product();
    const fresh = [ctx.unique('sku'), ctx.unique('sku')];
    const res = await post('products', { product: [{ name: 'A', sku: fresh[0], price: 1 }, { name: 'B', sku: fresh[1], price: 1 }, { name: 'C', sku: existing.sku, price: 1 }] });
    const body = expectError(res, 409, 'unique_violation', 'The sku has already been taken.');
    expect(body.field).to.equal('sku');
    expect(await countSkus(...fresh)).to.equal(0);
  });

  it('a duplicate sku inside the same batch writes nothing (409)', async () => {
    const sku = ctx.unique('sku');
    const res = await post('products', [{ name: 'A', sku, price: 1 }, { name: 'B', sku, price: 1 }]);
    expect(expectError(res, 409, 'unique_violation').field).to.equal('sku');
    expect(await countSkus(sku)).to.equal(0);
  });

  it('a validation error in item 1 is a 422 with the path product.1.<field> and nothing is written', async () => {
    const skus = [ctx.unique('sku'), ctx.unique('sku')];
    const res = await post('products', { product: [{ name: 'Ok', sku: skus[0], price: 1 }, { name: 'Bad', sku: skus[1], price: -3 }] });
    expectValidation(res, 'product.1.price');
    expect(Object.keys(res.body.errors)).to.deep.equal(['product.1.price']);
    expect(await countSkus(...skus)).to.equal(0);
  });

  it('a missing required field in item 0 of a bare array uses the path product.0.sku', async () => {
    const res = await post('products', [{ name: 'No sku', price: 1 }]);
    expectValidation(res, 'product.0.sku');
  });

  it('an empty bare array is a 400', async () => {
    expectError(await post('products', []), 400, 'bad_request');
  });

  it('an empty wrapped array is a 400 naming product', async () => {
    expectError(await post('products', { product: [] }), 400, 'bad_request', /product/);
  });

  it('missing required fields: 422 "<first> (and 2 more errors)" with one entry per field', async () => {
    const res = await post('products', {});
    const errors = expectValidation(res, 'name', 'sku', 'price');
    expect(Object.keys(errors).sort()).to.deep.equal(['name', 'price', 'sku']);
    const first = Object.values(errors)[0][0];
    expect(res.body.message).to.equal(`${first} (and 2 more errors)`);
  });

  for (const [field, value] of [
    ['price', -1],
    ['price', 'cheap'],
    ['stock', 1.5],
    ['stock', -2],
    ['status', 'archived'],
    ['featured', 'maybe'],
    ['name', 'x'.repeat(201)],
  ] as Array<[string, unknown]>) {
    it(`rejects ${field}=${JSON.stringify(value).slice(0, 20)} with 422 naming ${field}, writing nothing`, async () => {
      const sku = ctx.unique('sku');
      const res = await post('products', { name: 'Bad', sku, price: 1, [field]: value });
      const errors = expectValidation(res, field);
      expect(Object.keys(errors)).to.deep.equal([field]);
      expect(await countSkus(sku)).to.equal(0);
    });
  }

  it('a batch mixing typed values and strings to cast stores both alike (quick check and yup paths)', async () => {
    // 300 items: the pipelined create on PostgreSQL; every third one sends price, stock and featured as strings
    const items = Array.from({ length: 300 }, (_, i) => {
      const sku = ctx.unique('sku');
      return i % 3 === 0 ? { name: `Cast ${i}`, sku, price: ' 12.5', stock: '4', featured: 'true' } : { name: `Cast ${i}`, sku, price: 12.5, stock: 4, featured: true };
    });
    const res = await post('products', { product: items });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.models).to.have.length(300);
    for (const [i, { model }] of (res.body.models as Array<{ model: Rec }>).entries()) {
      expect(model, `item ${i}`).to.include({ name: `Cast ${i}`, sku: items[i].sku, price: 12.5, stock: 4, featured: true });
    }
    expect(await countSkus(items[0].sku, items[1].sku, items[299].sku)).to.equal(3);
  });

  it('accepts a name of exactly 200 characters', async () => {
    const model = await ctx.product({ name: 'n'.repeat(200) });
    expect(model.name).to.have.length(200);
  });

  it('keys that are no field of the model are a 422 unknown_field naming each (decision 77); nothing is written', async () => {
    const sku = ctx.unique('sku');
    const res = await post('products', { name: 'Bogus', sku, price: 1, bogus: 'x', color: 'red' });
    expect(expectError(res, 422, 'unknown_field').errors).to.have.all.keys('bogus', 'color');
    expect(await countSkus(sku)).to.equal(0);
  });

  it('id, created_at and updated_at are never written from the body', async () => {
    const other = await ctx.product();
    const res = await post('products', { name: 'Ids', sku: ctx.unique('sku'), price: 1, id: other.id, created_at: '2001-01-01T00:00:00.000000Z', updated_at: '2001-01-01T00:00:00.000000Z' });
    expect(res.status, res.text).to.equal(200);
    expect(sameId(res.body.model.id, other.id)).to.equal(false);
    expect(res.body.model.created_at).to.not.match(/^2001/);
    expect(res.body.model.updated_at).to.not.match(/^2001/);
    expect((await ctx.fetch('products', other.id)).name).to.equal('Product');
  });

  it('a duplicate sku is a 409 unique_violation with field and message', async () => {
    const existing = await ctx.product();
    const res = await post('products', { name: 'Dup', sku: existing.sku, price: 1 });
    const body = expectError(res, 409, 'unique_violation', 'The sku has already been taken.');
    expect(body).to.deep.equal({ message: 'The sku has already been taken.', type: 'unique_violation', field: 'sku', status: 409 });
  });

  it('a duplicate tag name is a 409 naming name', async () => {
    const tag = await ctx.tagRec();
    const body = expectError(await post('tags', { name: tag.name }), 409, 'unique_violation', 'The name has already been taken.');
    expect(body.field).to.equal('name');
  });

  it('a duplicate user email is a 409 naming email', async () => {
    const user = await ctx.user();
    const body = expectError(await post('users', { name: 'X', email: user.email }), 409, 'unique_violation', 'The email has already been taken.');
    expect(body.field).to.equal('email');
  });

  it('a belongsTo to an absent record is a 422 naming the field, nothing written', async () => {
    const absent = await ctx.absentId('categories');
    const sku = ctx.unique('sku');
    expectValidation(await post('products', { name: 'Orphan', sku, price: 1, category_id: absent }), 'category_id');
    expect(await countSkus(sku)).to.equal(0);
  });

  it('a belongsTo given a malformed id is a 422 naming the field', async () => {
    expectValidation(await post('products', { name: 'Orphan', sku: ctx.unique('sku'), price: 1, category_id: 'abc' }), 'category_id');
  });

  it('a review for an absent product is a 422 naming product_id', async () => {
    const absent = await ctx.absentId('products');
    expectValidation(await post('reviews', { product_id: absent, rating: 3 }), 'product_id');
  });

  it('a category whose parent is absent is a 422 naming parent_id', async () => {
    const absent = await ctx.absentId('categories');
    expectValidation(await post('categories', { name: 'Lost', parent_id: absent }), 'parent_id');
  });

  it('a review rating outside 1..5 is a 422 naming rating', async () => {
    const product = await ctx.product();
    expectValidation(await post('reviews', { product_id: product.id, rating: 6 }), 'rating');
    expectValidation(await post('reviews', { product_id: product.id, rating: 0 }), 'rating');
  });

  it('a review with user_id null is stored', async () => {
    const product = await ctx.product();
    const review = await ctx.create('reviews', { product_id: product.id, user_id: null, rating: 3 });
    expect(review).to.include({ user_id: null, rating: 3, comment: null });
    expect(sameId(review.product_id, product.id)).to.equal(true);
  });

  it('a user stores roles and api_token but never returns the token', async () => {
    const res = await post('users', { name: 'Tok', email: `${ctx.unique('e')}@example.test`, roles: ['editor', 'admin'], api_token: 'tok-123-secret' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.model).to.include({ name: 'Tok', is_superuser: false });
    expect(res.body.model.roles).to.deep.equal(['editor', 'admin']);
    expect(res.body.model).to.not.have.property('api_token');
    expect(res.text).to.not.include('tok-123-secret');
    const shown = await ctx.get(`/users/${res.body.model.id}`);
    expect(shown.text).to.not.include('tok-123-secret');
  });

  it('a category name over 100 characters is a 422', async () => {
    expectValidation(await post('categories', { name: 'c'.repeat(101) }), 'name');
  });

  it('a malformed JSON body is a 400', async () => {
    const res = await ctx.request().post('/api/v1/products').set('Content-Type', 'application/json').send('{"name": "x",');
    expectError(res, 400, 'bad_request');
  });
});
