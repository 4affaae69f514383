import { expect } from 'chai';
import { ApiRequestError } from '../../lib/client';
import { servedShop } from '../support/served-shop';

/** The typed client's bulk, batch and validate calls, and its typed relation reads, against the example app on both drivers. */
for (const driver of ['mongo', 'sql'] as const) {
  describe(`typed client: bulk writes, validate, relation reads (${driver})`, function () {
    this.timeout(60_000);
    const served = servedShop(driver, true);
    const stamp = `${driver}-${Date.now()}`;

    it('createMany answers {success, models: [{success, model}]}; updateMany changes them all; destroyMany deletes them', async () => {
      const created = await served.api.products.createMany([
        { name: 'Bulk A', sku: `bulk-a-${stamp}`, price: 4 },
        { name: 'Bulk B', sku: `bulk-b-${stamp}`, price: 6 },
      ]);
      expect(created.success).to.equal(true);
      expect(created.models.map((m) => [m.success, m.model.name, m.model.price])).to.deep.equal([
        [true, 'Bulk A', 4],
        [true, 'Bulk B', 6],
      ]);
      const ids = created.models.map((m) => m.model.id);
      const updated = await served.api.products.updateMany(ids.map((id, i) => ({ id, price: 10 + i })));
      expect(updated.models.map((m) => [m.model.id, m.model.price])).to.deep.equal([
        [ids[0], 10],
        [ids[1], 11],
      ]);
      const missing = await served.api.products.updateMany([{ id: ids[0], price: 1 }, { id: (driver === 'sql' ? 999999 : '65a1b2c3d4e5f60718293a4b') as typeof ids[0], price: 1 }]).catch((e: unknown) => e);
      expect((missing as ApiRequestError).status).to.equal(404);
      expect((await served.api.products.show(ids[0])).price).to.equal(10);
      expect(await served.api.products.destroyMany(ids)).to.deep.equal({ success: true, deleted: 2 });
    });

    it('createMany is all or nothing: an invalid item is a 422 naming its path and nothing is written', async () => {
      const error = await served.api.products.createMany([{ name: 'Fine', sku: `fine-${stamp}`, price: 1 }, { name: 'Bad', sku: `bad-${stamp}`, price: -1 }]).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ApiRequestError);
      expect((error as ApiRequestError).status).to.equal(422);
      expect(Object.keys((error as ApiRequestError).body.errors as object).some((path) => path.includes('1.price'))).to.equal(true);
      expect((await served.api.products.list({ filter: (f) => f.where('sku', '=', `fine-${stamp}`) })).data).to.deep.equal([]);
    });

    it('validate answers {success: true} for a valid body and throws the 422 for an invalid one, saving nothing', async () => {
      expect(await served.api.products.validate({ name: 'Valid', sku: `valid-${stamp}`, price: 2 })).to.deep.equal({ success: true });
      const error = await served.api.products.validate({ name: 'Invalid', sku: `invalid-${stamp}`, price: -2 }).catch((e: unknown) => e);
      expect((error as ApiRequestError).status).to.equal(422);
      expect((await served.api.products.list({ filter: (f) => f.where('sku', 'in', [`valid-${stamp}`, `invalid-${stamp}`]) })).data).to.deep.equal([]);
    });

    it('select narrows, relations load (column form too), orderby takes a to-one path, has() filters by the related records', async () => {
      const [b, a] = await Promise.all([served.api.categories.create({ name: `B ${stamp}` }), served.api.categories.create({ name: `A ${stamp}` })]);
      const made = await served.api.products.createMany([
        { name: `In B ${stamp}`, sku: `in-b-${stamp}`, price: 1, category_id: b.model.id, reviews: [{ rating: 5 }] },
        { name: `In A ${stamp}`, sku: `in-a-${stamp}`, price: 2, category_id: a.model.id, reviews: [{ rating: 2 }] },
      ]);
      expect(made.models).to.have.length(2);
      const page = await served.api.products.list({
        select: ['name'],
        relations: ['category:name', 'reviews'],
        orderby: [{ 'category.name': 'asc' }],
        filter: (f) => f.where('sku', 'like', `in-%-${stamp}`),
      });
      expect(page.data.map((p) => [p.name, p.category?.name, p.reviews.map((r) => r.rating)])).to.deep.equal([
        [`In A ${stamp}`, `A ${stamp}`, [2]],
        [`In B ${stamp}`, `B ${stamp}`, [5]],
      ]);
      expect(page.data[0]).not.to.have.property('price');
      const liked = await served.api.products.list({ select: ['name'], filter: (f) => f.and(f.where('sku', 'like', `in-%-${stamp}`), f.has('reviews', (r) => r.where('rating', '>=', 4))) });
      expect(liked.data.map((p) => p.name)).to.deep.equal([`In B ${stamp}`]);
    });
  });
}
