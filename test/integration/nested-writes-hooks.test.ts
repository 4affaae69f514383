import { expect } from 'chai';
import type { ResourceHooks } from '../../lib';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { asAdmin } from '../support/as-admin';
import { sharedPostgres } from '../support/databases';

/**
 * Nested writes (decision 59) run the related resource's hooks for each record they write, and
 * invalidate the read cache of every model they touch (the parent, the related records, linked ones).
 */
describe('nested writes: hooks and the read cache', function () {
  this.timeout(120_000);
  let example: ExampleApp;
  const calls: Array<[string, unknown]> = [];

  before(async () => {
    example = await createExampleApp({ driver: 'sql', postgresUri: (await sharedPostgres()).uri, seed: false, apiOptions: { cache: { enabled: true, store: 'memory', prefix: `nested${Date.now()}` } } });
    await example.reset();
    // hooks are read at each call: the reviews resource gets recording ones for this suite
    const hooks: ResourceHooks = {
      beforeCreate: (records) => {
        calls.push(['beforeCreate', records.map((r) => r.rating)]);
        return records.map((r) => ({ ...r, comment: r.comment ?? 'set by hook' }));
      },
      afterCreate: (rows) => void calls.push(['afterCreate', rows.map((r) => r.rating)]),
      beforeUpdate: (items) => void calls.push(['beforeUpdate', items.map((i) => i.changes.rating)]),
      afterUpdate: (rows) => void calls.push(['afterUpdate', rows.map((r) => r.rating)]),
      beforeDelete: (ids) => void calls.push(['beforeDelete', ids.length]),
      afterDelete: (rows) => void calls.push(['afterDelete', rows.map((r) => r.rating)]),
    };
    example.api.registry.entry('review').declaration.hooks = hooks;
  });

  after(async () => {
    delete example.api.registry.entry('review').declaration.hooks;
    await example.reset();
    await example.close();
  });

  it('runs the related resource\'s before and after hooks for the records written', async () => {
    const http = asAdmin(example);
    const created = await http.post('/api/v1/products').send({ name: 'Hooked', sku: `HOOK-${Date.now()}`, price: 1, reviews: [{ rating: 4 }, { rating: 5, comment: 'own' }] }).expect(200);
    const product = created.body.model;
    expect(product.reviews.map((r: { comment: string }) => r.comment).sort()).to.deep.equal(['own', 'set by hook']);
    expect(calls).to.deep.equal([['beforeCreate', [4, 5]], ['afterCreate', [4, 5]]]);
    calls.length = 0;
    const [first, second] = product.reviews.map((r: { id: number }) => r.id);
    await http.patch(`/api/v1/products/${product.id}`).send({ reviews: { update: [{ id: first, rating: 1 }], delete: [second] } }).expect(200);
    expect(calls).to.deep.equal([['beforeUpdate', [1]], ['beforeDelete', 1], ['afterUpdate', [1]], ['afterDelete', [5]]]);
  });

  it('invalidates the cached reads of the parent, the related records and the linked ones', async () => {
    const http = asAdmin(example);
    const tag = (await http.post('/api/v1/tags').send({ name: `cache-${Date.now()}` }).expect(200)).body.model;
    const reads = ['/api/v1/reviews', '/api/v1/products', `/api/v1/tags/${tag.id}?relations=products`];
    for (const path of reads) {
      await http.get(path).expect(200);
      expect((await http.get(path).expect(200)).headers['x-cache']).to.equal('hit');
    }
    await http.post('/api/v1/products').send({ name: 'Cached', sku: `CACHE-${Date.now()}`, price: 1, reviews: [{ rating: 3 }], tags: [tag.id] }).expect(200);
    for (const path of reads) expect((await http.get(path).expect(200)).headers['x-cache'], path).to.equal('miss');
    const linked = (await http.get(`/api/v1/tags/${tag.id}?relations=products`).expect(200)).body.products;
    expect(linked.map((p: { name: string }) => p.name)).to.deep.equal(['Cached']);
  });
});
