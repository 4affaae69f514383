import { expect } from 'chai';
import { API, expectError, forEachDriver, type Member, type Rec } from '../support/contract-app';

/** Relation routes (spec "Relation endpoints", decisions 30-34, 47-51) on the example's products and /me. */
forEachDriver('relation routes', (ctx) => {
  let product: Rec;
  let other: Rec;
  let tags: Rec[];
  const base = () => `${API}/products/${product.id}`;
  const req = () => ctx.request();
  const ids = (rows: Rec[]) => rows.map((r) => String(r.id)).sort();

  beforeEach(async () => {
    await ctx.reset();
    product = await ctx.product({ name: 'Parent' });
    other = await ctx.product({ name: 'Other' });
    tags = [];
    for (let i = 0; i < 4; i += 1) tags.push(await ctx.tagRec({ name: ctx.unique(`t${i}`) }));
  });

  describe('one-to-many (products/{id}/reviews)', () => {
    it('create single (201) sets the foreign key whatever the body says; bulk with _scenario', async () => {
      const one = await req().post(`${base()}/reviews`).send({ reviews: { rating: 5, product_id: other.id } });
      expect(one.status, one.text).to.equal(201);
      expect(one.body).to.include({ success: true });
      expect(one.body.model).to.include({ rating: 5, product_id: product.id });
      const bulk = await req().post(`${base()}/reviews`).query({ _scenario: 'bulk_create' }).send({ reviews: [{ rating: 1 }, { rating: 2 }] });
      expect(bulk.status, bulk.text).to.equal(201);
      expect(bulk.body.models.map((m: { model: Rec }) => m.model.product_id)).to.deep.equal([product.id, product.id]);
      const invalid = await req().post(`${base()}/reviews`).query({ _scenario: 'bulk_create' }).send({ reviews: [{ rating: 1 }, { rating: 9 }] });
      expectError(invalid, 422, 'validation_error');
      expect(invalid.body.errors).to.have.property('reviews.1.rating');
      expect(await ctx.count('reviews')).to.equal(3);
    });

    it('list with every list parameter and the offset envelope; show; other parents\' records are absent', async () => {
      for (const rating of [1, 3, 5]) await ctx.create('reviews', { product_id: product.id, rating });
      const foreign = await ctx.create('reviews', { product_id: other.id, rating: 4 });
      const list = await req().get(`${base()}/reviews`).query({ oper: JSON.stringify({ and: ['rating|>=|3'] }), orderby: JSON.stringify([{ rating: 'desc' }]), pagination: JSON.stringify({ page: 1, pageSize: 1 }) });
      expect(list.status, list.text).to.equal(200);
      expect(list.body).to.include({ total: 2, per_page: 1, current_page: 1, last_page: 2 });
      expect(list.body.data[0].rating).to.equal(5);
      const all = await req().get(`${base()}/reviews`).query({ relations: 'product:name' });
      expect(all.body.data).to.have.length(3);
      expect(all.body.data[0].product.name).to.equal('Parent');
      const shown = await req().get(`${base()}/reviews/${all.body.data[0].id}`);
      expect(shown.status).to.equal(200);
      const absent = await req().get(`${base()}/reviews/${foreign.id}`);
      const body = expectError(absent, 404, 'not_found', `Review with id ${foreign.id} not found in relation 'reviews'`);
      expect(body.success).to.equal(false);
      // decision 67: the id is rendered like the records' ids (an integer on PostgreSQL)
      expect(body.error).to.deep.include({ relation: 'reviews', id: foreign.id });
      expect((body.error as { suggested_fix: string }).suggested_fix).to.include(`GET /products/${product.id}/reviews`);
    });

    it('update single and bulk; unknown ids in bulk are a 207 partial success, the found ones updated', async () => {
      const a = await ctx.create('reviews', { product_id: product.id, rating: 1 });
      const b = await ctx.create('reviews', { product_id: product.id, rating: 1 });
      const foreign = await ctx.create('reviews', { product_id: other.id, rating: 1 });
      // decision 67: the single update reads its record under the dataKey too; the spec's plain
      // attributes object is still accepted
      const plain = await req().put(`${base()}/reviews/${a.id}`).send({ rating: 3 });
      expect(plain.status, plain.text).to.equal(200);
      expect(plain.body.model).to.include({ rating: 3 });
      const one = await req().put(`${base()}/reviews/${a.id}`).send({ reviews: { rating: 4, product_id: other.id } });
      expect(one.status, one.text).to.equal(200);
      expect(one.body.model).to.include({ rating: 4, product_id: product.id });
      expectError(await req().put(`${base()}/reviews/${foreign.id}`).send({ reviews: { rating: 4 } }), 404, 'not_found');
      const bulk = await req().put(`${base()}/reviews`).query({ _scenario: 'bulk_update' }).send({ reviews: [{ id: b.id, rating: 2 }, { id: foreign.id, rating: 2 }] });
      expect(bulk.status, bulk.text).to.equal(207);
      expect(bulk.body.success).to.equal(false);
      expect(bulk.body.models.map((m: { model: Rec }) => m.model.id)).to.deep.equal([b.id]);
      expect(bulk.body.error).to.deep.include({ relation: 'reviews', not_found_ids: [foreign.id] });
      expect(bulk.body.error.message).to.equal(`1 Review record(s) not found in relation 'reviews': [${foreign.id}]`);
      expect((await ctx.fetch('reviews', b.id)).rating).to.equal(2);
      expect((await ctx.fetch('reviews', foreign.id)).rating).to.equal(1);
      expectError(await req().put(`${base()}/reviews`).send({ reviews: [] }), 400, 'bad_request');
    });

    it('delete single and bulk (reviews are soft-deletable: trashed); ids as array, {ids}, {review_ids}, dataKey', async () => {
      const rs: Rec[] = [];
      for (let i = 0; i < 5; i += 1) rs.push(await ctx.create('reviews', { product_id: product.id, rating: 3 }));
      const one = await req().delete(`${base()}/reviews/${rs[0].id}`);
      expect(one.status, one.text).to.equal(200);
      expect(one.body.model.deleted_at).to.be.a('string');
      for (const [i, body] of [[1, [rs[1].id]], [2, { ids: [rs[2].id] }], [3, { review_ids: [rs[3].id] }], [4, { reviews: [rs[4].id] }]] as const) {
        const res = await req().delete(`${base()}/reviews`).query({ _scenario: 'bulk_delete' }).send(body as object);
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.deep.equal({ success: true, models: [{ id: rs[i].id }] });
      }
      expect((await req().get(`${base()}/reviews`)).body.data).to.have.length(0);
      expectError(await req().delete(`${base()}/reviews`).send([rs[0].id]), 400, 'bad_request');
    });

    it('an unknown parent is a 404 naming it', async () => {
      const gone = await ctx.absentId('products');
      expectError(await req().get(`${API}/products/${gone}/reviews`), 404, 'not_found', `No product found with id ${gone}.`);
      expectError(await req().get(`${API}/products/not-an-id/reviews`), 404, 'not_found');
    });
  });

  describe('many-to-many (products/{id}/tags)', () => {
    const attach = (scenario: string | null, body: unknown) => {
      const r = req().post(`${base()}/tags/attach`);
      return (scenario ? r.query({ _scenario: scenario }) : r).send(body as object);
    };
    const linked = async () => (await req().get(`${base()}/tags`)).body.data as Rec[];

    it('attach (default scenario) with pivot data; idempotent; records carry pivot; note is not writable', async () => {
      const first = await attach(null, { tag_id: tags[0].id, position: 3, note: 'ignored' });
      expect(first.status, first.text).to.equal(200);
      expect(first.body).to.deep.equal({ attached: [tags[0].id] });
      expect((await attach(null, { tag_id: tags[0].id, position: 9 })).body).to.deep.equal({ attached: [] });
      const rows = await linked();
      expect(rows).to.have.length(1);
      expect(rows[0].pivot).to.deep.equal({ product_id: product.id, tag_id: tags[0].id, position: 3, note: null });
      const unknown = await ctx.absentId('tags');
      expectError(await attach('attach', { tag_id: unknown }), 404, 'not_found');
      expectError(await attach('attach', { tag_id: tags[1].id, position: 'x' }), 422, 'validation_error');
      expectError(await attach('explode', {}), 400, 'bad_request');
    });

    it('bulk_attach takes the three pivot input shapes; unknown ids are a 207 with the rest attached', async () => {
      expect((await attach('bulk_attach', { tags: [tags[0].id] })).body).to.deep.equal({ attached: [tags[0].id] });
      expect((await attach('bulk_attach', { tags: [{ tag_id: tags[1].id, position: 2 }] })).body).to.deep.equal({ attached: [tags[1].id] });
      expect((await attach('bulk_attach', { tags: { [String(tags[2].id)]: { position: 5 } } })).body).to.deep.equal({ attached: [tags[2].id] });
      const unknown = await ctx.absentId('tags');
      const partial = await attach('bulk_attach', { tags: [tags[3].id, unknown] });
      expect(partial.status, partial.text).to.equal(207);
      expect(partial.body).to.deep.include({ success: false, attached: [tags[3].id] });
      expect(partial.body.error.not_found_ids).to.deep.equal([unknown]);
      const positions = Object.fromEntries((await linked()).map((t) => [String(t.id), (t.pivot as Rec).position]));
      expect(positions).to.deep.equal({ [String(tags[0].id)]: null, [String(tags[1].id)]: 2, [String(tags[2].id)]: 5, [String(tags[3].id)]: null });
    });

    it('sync replaces the set and reports attached, detached, updated; toggle flips membership', async () => {
      await attach('bulk_attach', { tags: [{ tag_id: tags[0].id, position: 1 }, { tag_id: tags[1].id, position: 1 }] });
      const sync = await attach('sync', { tags: [{ tag_id: tags[1].id, position: 7 }, { tag_id: tags[2].id }] });
      expect(sync.status, sync.text).to.equal(200);
      expect(sync.body).to.deep.equal({ attached: [tags[2].id], detached: [tags[0].id], updated: [tags[1].id] });
      expect(ids(await linked())).to.deep.equal(ids([tags[1], tags[2]]));
      const toggle = await attach('toggle', { tags: [tags[2].id, tags[3].id] });
      expect(toggle.body).to.deep.equal({ attached: [tags[3].id], detached: [tags[2].id] });
      expect(ids(await linked())).to.deep.equal(ids([tags[1], tags[3]]));
      expect((await attach('sync', { tags: [] })).body.detached).to.have.length(2);
      expect(await linked()).to.have.length(0);
    });

    it('detach single and bulk count what was attached; the tag itself stays', async () => {
      await attach('bulk_attach', { tags: tags.map((t) => t.id) });
      expect((await req().delete(`${base()}/tags/${tags[0].id}/detach`)).body).to.deep.equal({ detached: 1 });
      expect((await req().delete(`${base()}/tags/${tags[0].id}/detach`)).body).to.deep.equal({ detached: 0 });
      const bulk = await req().delete(`${base()}/tags/detach`).query({ _scenario: 'bulk_detach' }).send([tags[1].id, tags[2].id]);
      expect(bulk.body).to.deep.equal({ detached: 2 });
      expect(ids(await linked())).to.deep.equal(ids([tags[3]]));
      expect((await ctx.fetch('tags', tags[0].id)).name).to.equal(tags[0].name);
      // deleteRelated false: deleteRelation only detaches
      const del = await req().delete(`${base()}/tags/${tags[3].id}`);
      expect(del.status, del.text).to.equal(200);
      expect(await linked()).to.have.length(0);
      expect((await req().get(`${API}/tags/${tags[3].id}`)).status).to.equal(200);
    });

    it('single and bulk answer the same shape: attach {attached: ids}, detach {detached: count} (every id form; unknown ids count 0)', async () => {
      const single = await attach(null, { tag_id: tags[0].id });
      const bulk = await attach('bulk_attach', { tags: [tags[0].id, tags[1].id, tags[2].id] });
      expect([single.status, bulk.status]).to.deep.equal([200, 200]);
      expect(single.body).to.deep.equal({ attached: [tags[0].id] });
      expect(bulk.body).to.deep.equal({ attached: [tags[1].id, tags[2].id] });
      const detach = (body: unknown) => req().delete(`${base()}/tags/detach`).query({ _scenario: 'bulk_detach' }).send(body as object);
      const one = await req().delete(`${base()}/tags/${tags[0].id}/detach`);
      expect(one.status, one.text).to.equal(200);
      expect(one.body).to.deep.equal({ detached: 1 });
      for (const [body, count] of [[{ ids: [tags[1].id, tags[0].id] }, 1], [{ tag_ids: [tags[2].id] }, 1], [{ tags: [tags[2].id] }, 0]] as const) {
        const res = await detach(body);
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.deep.equal({ detached: count });
      }
      // an id that exists nowhere is not attached: 0, single and bulk alike (decision 32), not a 404/207
      const unknown = await ctx.absentId('tags');
      const singleUnknown = await req().delete(`${base()}/tags/${unknown}/detach`);
      expect([singleUnknown.status, singleUnknown.body]).to.deep.equal([200, { detached: 0 }]);
      const bulkUnknown = await detach([unknown]);
      expect([bulkUnknown.status, bulkUnknown.body]).to.deep.equal([200, { detached: 0 }]);
      expect(await linked()).to.have.length(0);
    });

    it('pivot updates: single answers the record with its pivot; not attached is a 404; bulk partial is a 207', async () => {
      await attach('bulk_attach', { tags: [tags[0].id, tags[1].id] });
      const one = await req().put(`${base()}/tags/${tags[0].id}/pivot`).send({ position: 4, note: 'ignored' });
      expect(one.status, one.text).to.equal(200);
      expect(one.body.pivot).to.deep.equal({ product_id: product.id, tag_id: tags[0].id, position: 4, note: null });
      expectError(await req().put(`${base()}/tags/${tags[2].id}/pivot`).send({ position: 1 }), 404, 'not_found');
      const bulk = await req().put(`${base()}/tags/pivot`).query({ _scenario: 'bulk_update_pivot' }).send({ tags: [{ tag_id: tags[1].id, position: 8 }, { tag_id: tags[2].id, position: 8 }] });
      expect(bulk.status, bulk.text).to.equal(207);
      expect(bulk.body.models.map((m: Rec) => (m.pivot as Rec).position)).to.deep.equal([8]);
      expect(bulk.body.error.not_found_ids).to.deep.equal([tags[2].id]);
    });

    it('create a tag through the relation attaches it (201) with allowed pivot data', async () => {
      const res = await req().post(`${base()}/tags`).send({ tags: { name: ctx.unique('new'), pivot: { position: 2, note: 'no' } } });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.model.pivot).to.deep.include({ position: 2, note: null });
      expect(await linked()).to.have.length(1);
    });
  });

  describe('permissions and the implicit parent (/me/reviews)', () => {
    let carol: Member;
    let viewer: Member;
    let editor: Member;
    beforeEach(async () => {
      carol = await ctx.member(['customer']);
      viewer = await ctx.member(['viewer']);
      editor = await ctx.member(['editor']);
    });

    it('attach needs update on the parent; listing needs read on the related resource', async () => {
      expectError(await viewer.agent().post(`${base()}/tags/attach`).send({ tag_id: tags[0].id }), 403, 'forbidden');
      expect((await editor.agent().post(`${base()}/tags/attach`).send({ tag_id: tags[0].id })).status).to.equal(200);
      expect((await viewer.agent().get(`${base()}/tags`)).status).to.equal(200);
      expectError(await ctx.as(null).get(`${base()}/tags`), 401, 'unauthenticated');
      // creating a tag through products needs create on tags and update on products (decision 54)
      expect((await editor.agent().post(`${base()}/tags`).send({ tags: { name: ctx.unique('e') } })).status).to.equal(201);
      expectError(await carol.agent().post(`${base()}/tags`).send({ tags: { name: ctx.unique('c') } }), 403, 'forbidden');
    });

    it('/me/reviews lists and creates the caller\'s reviews; another user\'s review is a relation 404', async () => {
      const mine = await ctx.create('reviews', { product_id: product.id, user_id: carol.user.id, rating: 5 });
      const theirs = await ctx.create('reviews', { product_id: product.id, user_id: viewer.user.id, rating: 1 });
      const list = await carol.agent().get(`${API}/me/reviews`);
      expect(list.status, list.text).to.equal(200);
      expect(ids(list.body.data)).to.deep.equal([String(mine.id)]);
      const made = await carol.agent().post(`${API}/me/reviews`).send({ reviews: { product_id: product.id, rating: 4, user_id: viewer.user.id } });
      expect(made.status, made.text).to.equal(201);
      expect(made.body.model.user_id).to.equal(carol.user.id);
      const other = expectError(await carol.agent().get(`${API}/me/reviews/${theirs.id}`), 404, 'not_found');
      expect(other.error).to.deep.include({ relation: 'reviews' });
      expectError(await carol.agent().put(`${API}/me/reviews/${theirs.id}`).send({ reviews: { rating: 5 } }), 404, 'not_found');
      expect((await ctx.fetch('reviews', theirs.id)).rating).to.equal(1);
      expectError(await ctx.as(null).get(`${API}/me/reviews`), 401, 'unauthenticated');
      expect((await viewer.agent().get(`${API}/me/reviews`)).body.data.map((r: Rec) => r.id)).to.deep.equal([theirs.id]);
    });
  });
});

forEachDriver('relation routes: unconfigured segments', (ctx) => {
  it('a segment the parent does not configure is a 400 naming the relation and the parent', async () => {
    const product = await ctx.product();
    const res = expectError(await ctx.request().get(`${API}/products/${product.id}/colours`), 400, 'bad_request');
    expect(res.message).to.equal('Relation "colours" is not configured on products (configured: reviews, tags).');
    expectError(await ctx.request().post(`${API}/products/${product.id}/colours/attach`).send({}), 400, 'bad_request');
    expectError(await ctx.as(null).get(`${API}/products/${product.id}/colours`), 401, 'unauthenticated');
  });
});
