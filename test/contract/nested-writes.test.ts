import { expect } from 'chai';
import { API, expectError, forEachDriver, type Member, type Rec } from '../support/contract-app';

/** Nested writes (decisions 58-59): products with their reviews (one-to-many) and tags (many-to-many) in one request. */
forEachDriver('nested writes', (ctx) => {
  let tags: Rec[];
  const req = () => ctx.request();
  const sku = () => ctx.unique('sku');
  const ids = (rows: unknown) => (rows as Rec[]).map((r) => String(r.id)).sort();
  const tagsOf = async (product: Rec) => (await ctx.fetch('products', product.id, { relations: ['tags'] })).tags as Array<Rec & { pivot: Record<string, unknown> }>;
  const reviewsOf = async (product: Rec) => (await ctx.fetch('products', product.id, { relations: ['reviews'] })).reviews as Rec[];
  const put = (product: Rec, body: Record<string, unknown>) => req().put(`${API}/products/${product.id}`).send(body);
  const patch = (product: Rec, body: Record<string, unknown>) => req().patch(`${API}/products/${product.id}`).send(body);

  beforeEach(async () => {
    await ctx.reset();
    tags = [];
    for (let i = 0; i < 4; i += 1) tags.push(await ctx.tagRec({ name: ctx.unique(`t${i}`) }));
  });

  describe('POST', () => {
    it('creates a product with its reviews and tags (ids and {id, pivot columns}) and answers it as a show with them loaded', async () => {
      const res = await req().post(`${API}/products`).send({
        name: 'Nested', sku: sku(), price: 5,
        reviews: [{ rating: 5, comment: 'great' }, { rating: 3 }],
        tags: [tags[0].id, { id: tags[1].id, position: 2, note: 'second' }],
      });
      expect(res.status, res.text).to.equal(200);
      const model = res.body.model;
      expect(model).to.include({ name: 'Nested', price: 5 });
      expect(model.reviews.map((r: Rec) => [r.rating, r.product_id]).sort()).to.deep.equal([[3, model.id], [5, model.id]]);
      expect(ids(model.tags)).to.deep.equal(ids([tags[0], tags[1]]));
      const second = model.tags.find((t: Rec) => String(t.id) === String(tags[1].id));
      expect(second.pivot).to.include({ position: 2, note: 'second' });
      // the database holds what was answered
      expect(await ctx.count('reviews')).to.equal(2);
      expect((await reviewsOf(model)).map((r) => r.rating).sort()).to.deep.equal([3, 5]);
      expect(ids(await tagsOf(model))).to.deep.equal(ids([tags[0], tags[1]]));
    });

    it('bulk: each product gets its own reviews and tags', async () => {
      const res = await req().post(`${API}/products`).send({
        product: [
          { name: 'A', sku: sku(), price: 1, reviews: [{ rating: 1 }, { rating: 2 }], tags: [tags[0].id] },
          { name: 'B', sku: sku(), price: 2, reviews: [{ rating: 4 }], tags: [tags[1].id, tags[2].id] },
        ],
      });
      expect(res.status, res.text).to.equal(200);
      const [a, b] = res.body.models.map((m: { model: Rec }) => m.model);
      expect((a.reviews as Rec[]).map((r) => [r.rating, r.product_id]).sort()).to.deep.equal([[1, a.id], [2, a.id]]);
      expect((b.reviews as Rec[]).map((r) => [r.rating, r.product_id])).to.deep.equal([[4, b.id]]);
      expect(ids(await tagsOf(a))).to.deep.equal(ids([tags[0]]));
      expect(ids(await tagsOf(b))).to.deep.equal(ids([tags[1], tags[2]]));
      expect(await ctx.count('reviews')).to.equal(3);
    });

    it('validation errors are keyed by path (reviews.1.rating, product.1.reviews.0.rating) with the parent\'s own, and nothing is written', async () => {
      const one = await req().post(`${API}/products`).send({ name: 'X', price: 1, reviews: [{ rating: 5 }, { rating: 9 }], tags: [tags[0].id] });
      const body = expectError(one, 422, 'validation_error');
      expect(body.errors).to.have.all.keys('reviews.1.rating', 'sku');
      const bulk = await req().post(`${API}/products`).send({ product: [{ name: 'A', sku: sku(), price: 1 }, { name: 'B', sku: sku(), price: 1, reviews: [{ comment: 'no rating' }] }] });
      expect(expectError(bulk, 422, 'validation_error').errors).to.have.all.keys('product.1.reviews.0.rating');
      expect(await ctx.count('products')).to.equal(0);
      expect(await ctx.count('reviews')).to.equal(0);
    });

    it('the foreign key to the parent sent by the client is a 422; an unknown tag is a 422 naming its path', async () => {
      const other = await ctx.product();
      const fk = await req().post(`${API}/products`).send({ name: 'X', sku: sku(), price: 1, reviews: [{ rating: 5, product_id: other.id }] });
      expect(expectError(fk, 422, 'validation_error').errors).to.have.all.keys('reviews.0.product_id');
      const absent = await ctx.absentId('tags');
      const tag = await req().post(`${API}/products`).send({ name: 'X', sku: sku(), price: 1, reviews: [{ rating: 5 }], tags: [tags[0].id, absent] });
      expect(expectError(tag, 422, 'validation_error').errors).to.have.all.keys('tags.1');
      expect(await ctx.count('products')).to.equal(1);
      expect(await ctx.count('reviews')).to.equal(0);
    });

    it('/validate checks the nested parts as a store would, and writes nothing', async () => {
      const invalid = await req().post(`${API}/products/validate`).send({ name: 'X', sku: sku(), price: 1, reviews: [{ rating: 0 }], tags: ['nope'] });
      expect(expectError(invalid, 422, 'validation_error').errors).to.have.all.keys('reviews.0.rating', 'tags.0');
      const valid = await req().post(`${API}/products/validate`).send({ name: 'X', sku: sku(), price: 1, reviews: [{ rating: 2 }], tags: [tags[0].id] });
      expect(valid.status, valid.text).to.equal(200);
      expect(await ctx.count('products')).to.equal(0);
      expect(await ctx.count('reviews')).to.equal(0);
    });

    it('a relation not opted in, and nesting deeper than one level, are 400s naming them', async () => {
      const category = await req().post(`${API}/products`).send({ name: 'X', sku: sku(), price: 1, category: { name: 'New' } });
      expectError(category, 400, 'bad_request', /category/);
      const deep = await req().post(`${API}/products`).send({ name: 'X', sku: sku(), price: 1, reviews: [{ rating: 5, user: { name: 'U' } }] });
      expectError(deep, 400, 'bad_request', /reviews\.0\.user/);
      expect(await ctx.count('products')).to.equal(0);
      // another resource opts nothing in: its relations are refused by name
      const tag = await req().post(`${API}/tags`).send({ name: 'n', products: [{ name: 'P' }] });
      expectError(tag, 400, 'bad_request', /products/);
    });
  });

  describe('PUT / PATCH', () => {
    let product: Rec;
    let reviews: Rec[];

    beforeEach(async () => {
      product = await ctx.product({ name: 'Parent' });
      reviews = [];
      for (const rating of [1, 2, 3]) reviews.push(await ctx.create('reviews', { product_id: product.id, rating }));
      await ctx.attach(product, tags[0], { position: 1, note: 'first' });
      await ctx.attach(product, tags[1], { position: 2 });
    });

    it('one-to-many: create, update and delete in one request (a soft-deletable review is trashed)', async () => {
      const res = await patch(product, {
        name: 'Renamed',
        reviews: { create: [{ rating: 5, comment: 'new' }], update: [{ id: reviews[0].id, rating: 4 }], delete: [reviews[1].id] },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.model.name).to.equal('Renamed');
      const ratings = (res.body.model.reviews as Rec[]).map((r) => r.rating).sort();
      expect(ratings).to.deep.equal([3, 4, 5]);
      expect((await reviewsOf(product)).map((r) => r.rating).sort()).to.deep.equal([3, 4, 5]);
      const trashed = await ctx.get(`/reviews/${reviews[1].id}`, { soft_delete: 'with' });
      expect(trashed.body.deleted_at).to.be.a('string');
    });

    it('many-to-many: attach and detach; an array syncs (pivot columns written); {sync} too', async () => {
      const res = await put(product, { tags: { attach: [{ id: tags[2].id, position: 3, note: 'third' }], detach: [tags[0].id] } });
      expect(res.status, res.text).to.equal(200);
      expect(ids(res.body.model.tags)).to.deep.equal(ids([tags[1], tags[2]]));
      expect((await tagsOf(product)).find((t) => String(t.id) === String(tags[2].id))!.pivot).to.include({ position: 3, note: 'third' });
      const synced = await put(product, { tags: [{ id: tags[1].id, position: 7 }, tags[3].id] });
      expect(synced.status, synced.text).to.equal(200);
      const now = await tagsOf(product);
      expect(ids(now)).to.deep.equal(ids([tags[1], tags[3]]));
      expect(now.find((t) => String(t.id) === String(tags[1].id))!.pivot).to.include({ position: 7 });
      const viaSync = await patch(product, { tags: { sync: [tags[0].id] } });
      expect(viaSync.status, viaSync.text).to.equal(200);
      expect(ids(await tagsOf(product))).to.deep.equal(ids([tags[0]]));
      const emptied = await patch(product, { tags: [] });
      expect(emptied.status, emptied.text).to.equal(200);
      expect(await tagsOf(product)).to.deep.equal([]);
    });

    it('another product\'s review id is a 404 naming it, and nothing is written (the parent and the other parts neither)', async () => {
      const other = await ctx.product();
      const foreign = await ctx.create('reviews', { product_id: other.id, rating: 1 });
      const res = await put(product, { name: 'Changed', tags: [tags[2].id], reviews: { create: [{ rating: 5 }], update: [{ id: foreign.id, rating: 5 }] } });
      const body = expectError(res, 404, 'not_found', new RegExp(String(foreign.id)));
      expect(body.not_found_ids).to.deep.equal([foreign.id]);
      expect((await ctx.fetch('products', product.id)).name).to.equal('Parent');
      expect(ids(await tagsOf(product))).to.deep.equal(ids([tags[0], tags[1]]));
      expect(await ctx.count('reviews')).to.equal(4);
      expect((await ctx.fetch('reviews', foreign.id)).rating).to.equal(1);
      const del = await put(product, { reviews: { delete: [foreign.id] } });
      expectError(del, 404, 'not_found');
      expect(await ctx.count('reviews')).to.equal(4);
    });

    it('a trashed review is never updated nor deleted again (404)', async () => {
      expect((await req().delete(`${API}/reviews/${reviews[2].id}`)).status).to.equal(200);
      expectError(await put(product, { reviews: { update: [{ id: reviews[2].id, rating: 5 }] } }), 404, 'not_found');
      expectError(await put(product, { reviews: { delete: [reviews[2].id] } }), 404, 'not_found');
      const trashed = await ctx.get(`/reviews/${reviews[2].id}`, { soft_delete: 'with' });
      expect(trashed.body.rating).to.equal(3);
    });

    it('an error midway (an unknown tag after the reviews were written) rolls everything back', async () => {
      const absent = await ctx.absentId('tags');
      const res = await put(product, { name: 'Changed', reviews: { create: [{ rating: 5 }, { rating: 4 }], delete: [reviews[0].id] }, tags: [tags[2].id, absent] });
      expect(expectError(res, 422, 'validation_error').errors).to.have.all.keys('tags.1');
      expect(await ctx.count('reviews')).to.equal(3);
      expect((await ctx.fetch('products', product.id)).name).to.equal('Parent');
      expect(ids(await tagsOf(product))).to.deep.equal(ids([tags[0], tags[1]]));
    });

    it('a database error on a child (unique violation) rolls back the parent, the links and the other children', async () => {
      // MongoDB counts an absent comment as null: the existing reviews get distinct ones first
      for (const review of reviews) expect((await req().patch(`${API}/reviews/${review.id}`).send({ comment: `c${String(review.id)}` })).status).to.equal(200);
      await ctx.uniqueIndex('reviews', ['product_id', 'comment']);
      try {
        const res = await put(product, { name: 'Changed', tags: [tags[3].id], reviews: { update: [{ id: reviews[0].id, rating: 5 }], create: [{ rating: 5, comment: 'twice' }, { rating: 4, comment: 'twice' }] } });
        expectError(res, 409, 'unique_violation');
        expect(await ctx.count('reviews')).to.equal(3);
        expect((await ctx.fetch('reviews', reviews[0].id)).rating).to.equal(1);
        expect((await ctx.fetch('products', product.id)).name).to.equal('Parent');
        expect(ids(await tagsOf(product))).to.deep.equal(ids([tags[0], tags[1]]));
      } finally {
        await ctx.uniqueIndex('reviews', ['product_id', 'comment'], true);
      }
    });

    it('bulk updates take no nested parts: a 400 naming the path, nothing written', async () => {
      const res = await req().patch(`${API}/products/batch`).send({ product: [{ id: product.id, name: 'Changed', tags: [] }] });
      expectError(res, 400, 'bad_request', /product\.0\.tags/);
      // whatever the relation key holds (decision 75's shapes are those of POST and PUT/PATCH)
      expectError(await req().patch(`${API}/products/batch`).send({ product: [{ id: product.id, name: 'Changed', reviews: 7 }] }), 400, 'bad_request', /product\.0\.reviews/);
      expectError(await req().patch(`${API}/products/batch`).send({ product: [{ id: product.id, name: 'Changed', category: null }] }), 400, 'bad_request', /product\.0\.category/);
      expect((await ctx.fetch('products', product.id)).name).to.equal('Parent');
      expect(ids(await tagsOf(product))).to.deep.equal(ids([tags[0], tags[1]]));
    });

    it('shape errors: one-to-many takes {create, update, delete}; a foreign key in an update is a 422', async () => {
      // decision 75: a value that is not the shape of decision 58 is a 422 naming the path
      expect(expectError(await put(product, { reviews: [{ rating: 5 }] }), 422, 'validation_error', /reviews/).errors).to.have.all.keys('reviews');
      expect(expectError(await put(product, { reviews: { replace: [] } }), 422, 'validation_error').errors).to.have.all.keys('reviews.replace');
      expect(expectError(await put(product, { tags: { sync: [], attach: [] } }), 422, 'validation_error', /sync/).errors).to.have.all.keys('tags');
      expectError(await put(product, { reviews: { update: [{ id: reviews[0].id, rating: 5 }], delete: [reviews[0].id] } }), 400, 'bad_request', /more than once in "reviews"/);
      const fk = await put(product, { reviews: { update: [{ id: reviews[0].id, product_id: product.id }] } });
      expect(expectError(fk, 422, 'validation_error').errors).to.have.all.keys('reviews.update.0.product_id');
      const invalid = await put(product, { reviews: { update: [{ id: reviews[0].id, rating: 0 }], create: [{ rating: 6 }] } });
      expect(expectError(invalid, 422, 'validation_error').errors).to.have.all.keys('reviews.update.0.rating', 'reviews.create.0.rating');
      expect((await reviewsOf(product)).map((r) => r.rating).sort()).to.deep.equal([1, 2, 3]);
    });
  });

  describe('checked whole before anything is written (decision 75)', () => {
    let product: Rec;
    let review: Rec;

    beforeEach(async () => {
      product = await ctx.product({ name: 'Parent' });
      review = await ctx.create('reviews', { product_id: product.id, rating: 1 });
      await ctx.attach(product, tags[0], { position: 1 });
    });

    const unchanged = async () => {
      expect((await ctx.fetch('products', product.id)).name).to.equal('Parent');
      expect(await ctx.count('products')).to.equal(1);
      expect(await ctx.count('reviews')).to.equal(1);
      expect((await ctx.fetch('reviews', review.id)).rating).to.equal(1);
      expect(ids(await tagsOf(product))).to.deep.equal(ids([tags[0]]));
    };

    it('more than REST_MAX_NESTED_RECORDS (1,000) nested items is a 422 naming the relation and the limit, before any is read; counted over relations and bulk items', async () => {
      const many = Array.from({ length: 1001 }, () => ({ rating: 5 }));
      const one = await req().post(`${API}/products`).send({ name: 'X', sku: sku(), price: 1, reviews: many });
      const body = expectError(one, 422, 'validation_error', /1000/);
      expect(body.errors).to.have.all.keys('reviews');
      expect(String((body.errors as Record<string, string[]>).reviews[0])).to.match(/1000/).and.match(/reviews/);
      // 600 reviews and 401 tag ids: together past the limit, named where it is crossed
      const mixed = await req().post(`${API}/products`).send({ name: 'X', sku: sku(), price: 1, reviews: many.slice(0, 600), tags: Array.from({ length: 401 }, () => tags[1].id) });
      expect(expectError(mixed, 422, 'validation_error').errors).to.have.all.keys('tags');
      const bulk = await req().post(`${API}/products`).send({ product: [{ name: 'A', sku: sku(), price: 1, reviews: many.slice(0, 500) }, { name: 'B', sku: sku(), price: 1, reviews: many.slice(0, 501) }] });
      expect(expectError(bulk, 422, 'validation_error').errors).to.have.all.keys('product.1.reviews');
      const update = await put(product, { reviews: { create: many.slice(0, 1000), delete: [review.id] } });
      expect(expectError(update, 422, 'validation_error').errors).to.have.all.keys('reviews');
      await unchanged();
      // exactly the limit is written
      const limit = await req().post(`${API}/products`).send({ name: 'Y', sku: sku(), price: 1, reviews: many.slice(0, 1000) });
      expect(limit.status, limit.text).to.equal(200);
      expect(await ctx.count('reviews')).to.equal(1001);
    });

    it('the limit is configurable (REST_MAX_NESTED_RECORDS, config maxNestedRecords)', async () => {
      const small = await ctx.exampleAppWith({ config: { maxNestedRecords: 2 } });
      try {
        const { default: supertest } = await import('supertest');
        const post = (body: object) => supertest(small.app).post(`${API}/products`).set('Authorization', `Bearer ${small.info.adminToken}`).send(body);
        const refused = await post({ name: 'X', sku: sku(), price: 1, reviews: [{ rating: 1 }], tags: [tags[1].id, tags[2].id] });
        expect(String(expectError(refused, 422, 'validation_error').message)).to.match(/at most 2 nested records/);
        await unchanged();
        const taken = await post({ name: 'X', sku: sku(), price: 1, reviews: [{ rating: 1 }], tags: [tags[1].id] });
        expect(taken.status, taken.text).to.equal(200);
      } finally {
        await small.close();
      }
    });

    it('a relation key whose value is not the shape of decision 58 is a 422 naming the path (never silently ignored)', async () => {
      const cases: Array<[Record<string, unknown>, string, 'post' | 'put']> = [
        [{ tags: 5 }, 'tags', 'post'],
        [{ reviews: 7 }, 'reviews', 'post'],
        [{ reviews: null }, 'reviews', 'post'],
        [{ tags: { attach: [] } }, 'tags', 'post'],
        [{ tags: 5 }, 'tags', 'put'],
        [{ reviews: 7 }, 'reviews', 'put'],
        [{ reviews: { delete: 3 } }, 'reviews.delete', 'put'],
        [{ tags: { detach: 'x' } }, 'tags.detach', 'put'],
      ];
      for (const [part, key, method] of cases) {
        const res = method === 'post' ? await req().post(`${API}/products`).send({ name: 'X', sku: sku(), price: 1, ...part }) : await put(product, { name: 'Changed', ...part });
        expect(expectError(res, 422, 'validation_error').errors, JSON.stringify(part)).to.have.all.keys(key);
      }
      await unchanged();
    });

    it('an object or an array as a nested id is a 422 naming its path, never a 404 showing [object Object]', async () => {
      const res = await put(product, { name: 'Changed', reviews: { update: [{ id: { $ne: null }, rating: 5 }], delete: [[review.id]] }, tags: { detach: [{ id: tags[0].id }] } });
      const body = expectError(res, 422, 'validation_error');
      expect(body.errors).to.have.all.keys('reviews.update.0.id', 'reviews.delete.0', 'tags.detach.0');
      expect(res.text).not.to.include('[object Object]');
      const link = await req().post(`${API}/products`).send({ name: 'X', sku: sku(), price: 1, tags: [{ id: { a: 1 } }, [tags[0].id]] });
      expect(expectError(link, 422, 'validation_error').errors).to.have.all.keys('tags.0.id', 'tags.1');
      await unchanged();
    });

    it('a many-to-many item names its record by id or by tag_id; both with different values is a 422 naming the item', async () => {
      const clash = await put(product, { name: 'Changed', tags: [{ id: tags[1].id, tag_id: tags[2].id }] });
      expect(expectError(clash, 422, 'validation_error').errors).to.have.all.keys('tags.0');
      await unchanged();
      const byKey = await put(product, { tags: [{ tag_id: tags[1].id, position: 4 }, { id: tags[2].id, tag_id: tags[2].id }] });
      expect(byKey.status, byKey.text).to.equal(200);
      expect(ids(await tagsOf(product))).to.deep.equal(ids([tags[1], tags[2]]));
    });

    it('a link item carrying a second level is a 400 naming it (decision 58), nothing written', async () => {
      const res = await put(product, { name: 'Changed', tags: [{ id: tags[1].id, products: [{ name: 'P' }] }] });
      expectError(res, 400, 'bad_request', /tags\.0\.products/);
      const created = await req().post(`${API}/products`).send({ name: 'X', sku: sku(), price: 1, tags: [{ id: tags[1].id, products: [] }] });
      expectError(created, 400, 'bad_request', /tags\.0\.products/);
      await unchanged();
    });

    it('a reference to a record that does not exist is a 422 saying so (decision 78): a nested tag id, a category_id, a nested review\'s user_id', async () => {
      const absentTag = await ctx.absentId('tags');
      const tag = await put(product, { tags: [absentTag] });
      const tagErrors = expectError(tag, 422, 'validation_error').errors as Record<string, string[]>;
      expect(tagErrors['tags.0'][0]).to.match(/does not exist/);
      const absentCategory = await ctx.absentId('categories');
      const category = await req().post(`${API}/products`).send({ name: 'X', sku: sku(), price: 1, category_id: absentCategory });
      expect((expectError(category, 422, 'validation_error').errors as Record<string, string[]>).category_id[0]).to.match(/does not exist/);
      const absentUser = await ctx.absentId('users');
      const user = await put(product, { reviews: { create: [{ rating: 2, user_id: absentUser }] } });
      expect((expectError(user, 422, 'validation_error').errors as Record<string, string[]>)['reviews.create.0.user_id'][0]).to.match(/does not exist/);
      await unchanged();
    });
  });

  describe('permissions and field policies', () => {
    let editor: Member;
    let viewer: Member;
    let admin: Member;

    beforeEach(async () => {
      editor = await ctx.member(['editor']);
      viewer = await ctx.member(['viewer']);
      admin = await ctx.member(['admin']);
    });

    it('creating reviews needs create on reviews: an editor (reviews read only) is refused, nothing written; tags need update on products, which an editor holds', async () => {
      const refused = await editor.agent().post(`${API}/products`).send({ name: 'E', sku: sku(), price: 1, reviews: [{ rating: 5 }] });
      expectError(refused, 403, 'forbidden');
      expect(await ctx.count('products')).to.equal(0);
      const linked = await editor.agent().post(`${API}/products`).send({ name: 'E', sku: sku(), price: 1, tags: [tags[0].id] });
      expect(linked.status, linked.text).to.equal(200);
      expect(ids(linked.body.model.tags)).to.deep.equal(ids([tags[0]]));
      const product = linked.body.model as Rec;
      const review = await ctx.create('reviews', { product_id: product.id, rating: 2 });
      expectError(await editor.agent().put(`${API}/products/${product.id}`).send({ reviews: { update: [{ id: review.id, rating: 3 }] } }), 403, 'forbidden');
      expectError(await editor.agent().put(`${API}/products/${product.id}`).send({ reviews: { delete: [review.id] } }), 403, 'forbidden');
      expect((await ctx.fetch('reviews', review.id)).rating).to.equal(2);
      expectError(await viewer.agent().put(`${API}/products/${product.id}`).send({ tags: [] }), 403, 'forbidden');
      expect(ids(await tagsOf(product))).to.deep.equal(ids([tags[0]]));
    });

    it('the parent\'s field write policy holds with nested parts (editor: featured prohibited); an admin writes everything', async () => {
      const res = await editor.agent().post(`${API}/products`).send({ name: 'E', sku: sku(), price: 1, featured: true, tags: [tags[0].id] });
      expect(expectError(res, 422, 'validation_error').errors).to.have.all.keys('featured');
      expect(await ctx.count('products')).to.equal(0);
      const ok = await admin.agent().post(`${API}/products`).send({ name: 'A', sku: sku(), price: 1, featured: true, reviews: [{ rating: 4 }], tags: [{ id: tags[1].id, note: 'n' }] });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.model.featured).to.equal(true);
      expect(ok.body.model.reviews).to.have.length(1);
    });
  });
});
