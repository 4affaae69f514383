import { expect } from 'chai';
import { API, expectError, forEachDriver, type Rec } from '../support/contract-app';

/**
 * Decision 77: a write body's key that is no field of the model, no relation the route takes and
 * no envelope key is a 422 `unknown_field` keyed by its path, on every write route, nothing written.
 * Decision 50: `_relation` in a body, and `_scenario` where the route takes none, are 400s.
 */
forEachDriver('unknown body fields', (ctx) => {
  let product: Rec;
  let review: Rec;
  let tag: Rec;
  const req = () => ctx.request();
  const sku = () => ctx.unique('sku');

  /** A 422 unknown_field whose errors are exactly `paths`, each saying the field is unknown. */
  const expectUnknown = (res: { status: number; body: unknown; text: string }, ...paths: string[]) => {
    const body = expectError(res, 422, 'unknown_field', /unknown/);
    const errors = body.errors as Record<string, string[]>;
    expect(errors, res.text).to.have.all.keys(...paths);
    for (const path of paths) expect(errors[path][0]).to.match(/field is unknown/).and.include(path.split('.').pop()!);
    return errors;
  };

  /** Nothing written: the fixture's product, review and link as they were, no other record. */
  const unchanged = async () => {
    expect(await ctx.count('products')).to.equal(1);
    expect(await ctx.count('reviews')).to.equal(1);
    const stored = await ctx.fetch('products', product.id, { relations: ['tags'] });
    expect(stored).to.include({ name: 'Parent', price: 10 });
    expect((stored.tags as Rec[]).map((t) => String(t.id))).to.deep.equal([String(tag.id)]);
    expect((await ctx.fetch('reviews', review.id)).rating).to.equal(3);
  };

  beforeEach(async () => {
    await ctx.reset();
    product = await ctx.product({ name: 'Parent' });
    review = await ctx.create('reviews', { product_id: product.id, rating: 3 });
    tag = await ctx.tagRec();
    await ctx.attach(product, tag, { position: 1 });
  });

  describe('resource routes', () => {
    it('store one: a misspelled field is a 422 unknown_field naming it, nothing written', async () => {
      expectUnknown(await req().post(`${API}/products`).send({ name: 'X', sku: sku(), price: 1, nmae: 'x' }), 'nmae');
      // every unknown key is named, beside the usual validation of the known ones
      expectUnknown(await req().post(`${API}/products`).send({ nmae: 'x', prise: 2 }), 'nmae', 'prise');
      await unchanged();
    });

    it('bulk store: paths carry the item (product.1.nmae), in {product: [...]} and in a bare array; an envelope key beside the bulk key is unknown', async () => {
      const good = () => ({ name: 'A', sku: sku(), price: 1 });
      expectUnknown(await req().post(`${API}/products`).send({ product: [good(), { ...good(), nmae: 'x' }] }), 'product.1.nmae');
      expectUnknown(await req().post(`${API}/products`).send([good(), good(), { ...good(), colour: 'red' }]), 'product.2.colour');
      expectUnknown(await req().post(`${API}/products`).send({ product: [good()], extra: true }), 'extra');
      await unchanged();
    });

    it('update PUT and PATCH: 422, the record unchanged', async () => {
      expectUnknown(await req().put(`${API}/products/${product.id}`).send({ name: 'Changed', nmae: 'x' }), 'nmae');
      expectUnknown(await req().patch(`${API}/products/${product.id}`).send({ name: 'Changed', nmae: 'x' }), 'nmae');
      await unchanged();
    });

    it('PATCH /batch and POST /update-multiple: product.0.nmae, and beside the bulk key', async () => {
      for (const path of ['/batch', '/update-multiple']) {
        const method = path === '/batch' ? 'patch' : 'post';
        expectUnknown(await req()[method](`${API}/products${path}`).send({ product: [{ id: product.id, name: 'Changed', nmae: 'x' }] }), 'product.0.nmae');
        expectUnknown(await req()[method](`${API}/products${path}`).send({ product: [{ id: product.id, name: 'Changed' }], other: 1 }), 'other');
      }
      await unchanged();
    });

    it('DELETE /batch: a key beside ids is unknown, nothing deleted; a DELETE of one record ignores its body', async () => {
      const other = await ctx.product({ name: 'Other' });
      expectUnknown(await req().delete(`${API}/products/batch`).send({ ids: [other.id], force: true }), 'force');
      expect((await ctx.fetch('products', other.id)).name).to.equal('Other');
      const one = await req().delete(`${API}/products/${other.id}`).send({ nmae: 'ignored' });
      expect(one.status, one.text).to.equal(200);
      await unchanged();
    });

    it('/validate: 422 unknown_field as a store would answer', async () => {
      expectUnknown(await req().post(`${API}/products/validate`).send({ name: 'X', sku: sku(), price: 1, nmae: 'x' }), 'nmae');
      const valid = await req().post(`${API}/products/validate`).send({ name: 'X', sku: sku(), price: 1 });
      expect(valid.status, valid.text).to.equal(200);
    });

    it('nested parts: reviews.0.ratng, tags.1.colour, reviews.update.0.ratng, tags.attach.0.colour', async () => {
      const base = { name: 'X', sku: sku(), price: 1 };
      expectUnknown(await req().post(`${API}/products`).send({ ...base, reviews: [{ rating: 5, ratng: 4 }], tags: [tag.id, { id: tag.id, position: 2, colour: 'red' }] }), 'reviews.0.ratng', 'tags.1.colour');
      expectUnknown(await req().post(`${API}/products`).send({ product: [base, { ...base, sku: sku(), reviews: [{ rating: 1, stars: 1 }] }] }), 'product.1.reviews.0.stars');
      expectUnknown(await req().put(`${API}/products/${product.id}`).send({ name: 'Changed', reviews: { update: [{ id: review.id, ratng: 5 }], create: [{ rating: 1 }] } }), 'reviews.update.0.ratng');
      expectUnknown(await req().put(`${API}/products/${product.id}`).send({ tags: { attach: [{ id: tag.id, colour: 'red' }] } }), 'tags.attach.0.colour');
      await unchanged();
    });

    it('known fields that are not fillable are ignored as before: a record read from the API is sent back as it is (GET then PUT the same JSON is 200)', async () => {
      const read = await req().get(`${API}/products/${product.id}`);
      expect(read.status).to.equal(200);
      const put = await req().put(`${API}/products/${product.id}`).send(read.body);
      expect(put.status, put.text).to.equal(200);
      expect(put.body.model).to.include({ id: product.id, name: 'Parent', sku: product.sku });
      // a soft-deletable review (deleted_at), and one of a list, as read
      const reviewRead = await req().get(`${API}/reviews/${review.id}`);
      const reviewPut = await req().put(`${API}/reviews/${review.id}`).send(reviewRead.body);
      expect(reviewPut.status, reviewPut.text).to.equal(200);
      const listed = (await req().get(`${API}/products`)).body.data as Rec[];
      const batch = await req().patch(`${API}/products/batch`).send({ product: listed });
      expect(batch.status, batch.text).to.equal(200);
      // ids and timestamps in the body do not change the record's
      const stamped = await req().patch(`${API}/products/${product.id}`).send({ id: 'other', created_at: '2000-01-01T00:00:00.000000Z', name: 'Renamed' });
      expect(stamped.status, stamped.text).to.equal(200);
      expect(stamped.body.model.id).to.equal(product.id);
      expect(stamped.body.model.created_at).to.equal(product.created_at);
    });

    it('permission comes first: a viewer\'s store with an unknown field is a 403', async () => {
      const viewer = await ctx.member(['viewer']);
      expectError(await viewer.agent().post(`${API}/products`).send({ name: 'X', sku: sku(), price: 1, nmae: 'x' }), 403, 'forbidden');
    });
  });

  describe('relation routes', () => {
    it('one-to-many create, update and bulk update: the related record\'s unknown fields, beside the dataKey too', async () => {
      const base = `${API}/products/${product.id}/reviews`;
      expectUnknown(await req().post(base).send({ reviews: { rating: 5, ratng: 1 } }), 'ratng');
      expectUnknown(await req().post(`${base}?_scenario=bulk_create`).send({ reviews: [{ rating: 5 }, { rating: 5, ratng: 1 }] }), 'reviews.1.ratng');
      expectUnknown(await req().post(base).send({ reviews: { rating: 5 }, extra: 1 }), 'extra');
      expectUnknown(await req().put(`${base}/${review.id}`).send({ rating: 4, ratng: 1 }), 'ratng');
      expectUnknown(await req().put(`${base}?_scenario=bulk_update`).send({ reviews: [{ id: review.id, ratng: 1 }] }), 'reviews.0.ratng');
      expectUnknown(await req().delete(`${base}?_scenario=bulk_delete`).send({ ids: [review.id], all: true }), 'all');
      await unchanged();
    });

    it('many-to-many attach, sync and pivot updates: a key that is no pivot column nor id is unknown; pivot columns outside the allowlist stay ignored', async () => {
      const other = await ctx.tagRec();
      const base = `${API}/products/${product.id}/tags`;
      expectUnknown(await req().post(`${base}/attach`).send({ tag_id: other.id, position: 2, colour: 'red' }), 'colour');
      expectUnknown(await req().post(`${base}/attach?_scenario=sync`).send({ tags: [{ tag_id: other.id, colour: 'red' }] }), 'tags.0.colour');
      expectUnknown(await req().post(`${base}/attach?_scenario=bulk_attach`).send({ tags: [other.id], also: [] }), 'also');
      expectUnknown(await req().put(`${base}/${tag.id}/pivot`).send({ position: 3, colour: 'red' }), 'colour');
      await unchanged();
      // decision 75 on the relation route too: id and tag_id naming different records is a 422
      const clash = await req().post(`${base}/attach`).send({ id: tag.id, tag_id: other.id });
      expect(expectError(clash, 422, 'validation_error', /different/).errors).to.have.all.keys('tag_id');
      const clashing = await req().post(`${base}/attach?_scenario=bulk_attach`).send({ tags: [{ id: tag.id, tag_id: other.id }] });
      expect(expectError(clashing, 422, 'validation_error').errors).to.have.all.keys('tags.0');
      await unchanged();
      // note is a pivot column the routes do not write: ignored without error (spec)
      const noted = await req().put(`${base}/${tag.id}/pivot`).send({ position: 3, note: 'n' });
      expect(noted.status, noted.text).to.equal(200);
      // a related record read from the relation route (with its pivot) is sent back as it is
      const listed = (await req().get(base)).body.data as Rec[];
      const back = await req().post(`${base}/attach`).send(listed[0]);
      expect(back.status, back.text).to.equal(200);
    });
  });

  describe('_relation and _scenario (decision 50)', () => {
    it('_relation in a body is a 400 naming it on every write route; in the query too', async () => {
      expectError(await req().post(`${API}/products`).send({ name: 'X', sku: sku(), price: 1, _relation: 'tags' }), 400, 'bad_request', /_relation/);
      expectError(await req().put(`${API}/products/${product.id}`).send({ name: 'X', _relation: 'tags' }), 400, 'bad_request', /_relation/);
      expectError(await req().post(`${API}/products/${product.id}/tags/attach`).send({ tag_id: tag.id, _relation: 'reviews' }), 400, 'bad_request', /_relation/);
      expectError(await req().post(`${API}/products/${product.id}/reviews?_relation=tags`).send({ reviews: { rating: 1 } }), 400, 'bad_request', /_relation/);
      await unchanged();
    });

    it('_scenario where the route takes none is a 400 (resource routes, single-record relation routes); where it does, the body may carry it (decision 1)', async () => {
      expectError(await req().post(`${API}/products`).send({ name: 'X', sku: sku(), price: 1, _scenario: 'bulk_create' }), 400, 'bad_request', /_scenario/);
      expectError(await req().put(`${API}/products/${product.id}/reviews/${review.id}`).send({ rating: 4, _scenario: 'bulk_update' }), 400, 'bad_request', /_scenario/);
      expectError(await req().put(`${API}/products/${product.id}/tags/${tag.id}/pivot?_scenario=bulk_update_pivot`).send({ position: 2 }), 400, 'bad_request', /_scenario/);
      // a scenario of another route is not this route's: 400 naming the ones it offers
      expectError(await req().post(`${API}/products/${product.id}/reviews?_scenario=bulk_delete`).send({ reviews: [{ rating: 1 }] }), 400, 'bad_request', /bulk_create/);
      expectError(await req().delete(`${API}/products/${product.id}/reviews`).send({ _scenario: 'sync', ids: [review.id] }), 400, 'bad_request', /bulk_delete/);
      expectError(await req().post(`${API}/products/${product.id}/tags/attach?_scenario=bulk_update`).send({ tags: [tag.id] }), 400, 'bad_request', /_scenario/);
      await unchanged();
      const bulk = await req().post(`${API}/products/${product.id}/reviews`).send({ _scenario: 'bulk_create', reviews: [{ rating: 1 }, { rating: 2 }] });
      expect(bulk.status, bulk.text).to.equal(201);
      expect(bulk.body.models).to.have.length(2);
    });
  });
});
