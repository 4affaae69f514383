import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiRequestError, generateTypes } from '../../lib/client';
import { servedShop } from '../support/served-shop';

/** The typed client against the example app on both drivers, over real HTTP. */
for (const driver of ['mongo', 'sql'] as const) {
  describe(`typed client (${driver})`, function () {
    this.timeout(60_000);
    const served = servedShop(driver);

    it('the committed example types are what the generator makes from the app\'s document', () => {
      if (driver !== 'mongo') return;
      const committed = readFileSync(join(__dirname, '..', '..', 'example-app', 'client-types.ts'), 'utf8');
      expect(generateTypes(served.shop.api.openapi({ title: 'Example shop API', serverUrl: '/api/v1' }))).to.equal(committed);
    });

    it('creates, lists with a typed filter, pages, updates and deletes', async () => {
      const category = await served.api.categories.create({ name: 'Client lamps' });
      for (const [i, price] of [5, 15, 25].entries()) {
        await served.api.products.create({ name: `Client ${i}`, sku: `client-${driver}-${i}-${Date.now()}`, price, category_id: category.model.id });
      }
      const found = await served.api.products.list({
        filter: (f) => f.and(f.where('price', '>=', 10), f.where('name', 'like', 'Client%'), f.where('category_id', 'in', [category.model.id])),
        orderby: [{ price: 'desc' }],
        select: ['name', 'price'],
      });
      expect(found.data.map((p) => p.price)).to.deep.equal([25, 15]);
      const page = await served.api.products.list({ filter: (f) => f.where('name', 'like', 'Client%'), pagination: { page: 2, pageSize: 2 } });
      expect(page.total).to.equal(3);
      expect(page.data).to.have.length(1);
      const updated = await served.api.products.update(found.data[0].id, { price: 26 });
      expect(updated.model.price).to.equal(26);
      const shown = await served.api.products.show(found.data[0].id, { relations: ['category'] });
      expect(shown.price).to.equal(26);
      // eager-loaded relations are part of the generated record type
      expect(shown.category?.name).to.equal('Client lamps');
      expect(shown).not.to.have.property('tags');
      // @ts-expect-error relations not asked for are not in the type either
      void shown.tags;
      await served.api.products.destroy(found.data[0].id);
      const gone = await served.api.products.show(found.data[0].id).catch((e: unknown) => e);
      expect(gone).to.be.instanceOf(ApiRequestError);
      expect((gone as ApiRequestError).status).to.equal(404);
    });

    it('relation routes: attach with pivot data, list with pivots, sync and detach', async () => {
      const product = await served.api.products.create({ name: 'Tagged', sku: `client-rel-${driver}-${Date.now()}`, price: 3 });
      const red = await served.api.tags.create({ name: `client-red-${driver}-${Date.now()}` });
      const blue = await served.api.tags.create({ name: `client-blue-${driver}-${Date.now()}` });
      const tags = served.api.products.relation<{ id: string | number; name: string }>(product.model.id, 'tags');
      expect(await tags.attach(red.model.id, { position: 1 }, 'tag_id')).to.deep.equal({ attached: [red.model.id] });
      const listed = await tags.list();
      expect(listed.data.map((t) => [t.name, t.pivot?.position])).to.deep.equal([[red.model.name, 1]]);
      expect(await tags.attachMany([{ tag_id: blue.model.id, position: 2 }], 'sync')).to.deep.equal({ attached: [blue.model.id], detached: [red.model.id], updated: [] });
      expect((await tags.updatePivot(blue.model.id, { position: 5 })).pivot.position).to.equal(5);
      expect(await tags.detach([blue.model.id])).to.deep.equal({ detached: 1 });
      expect((await tags.list()).data).to.deep.equal([]);
    });

    it('a server error arrives as an ApiRequestError with the body', async () => {
      const error = await served.api.products.create({ name: 'x', sku: '', price: -1 }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ApiRequestError);
      expect((error as ApiRequestError).status).to.equal(422);
      expect((error as ApiRequestError).body.type).to.equal('validation_error');
    });
  });
}
