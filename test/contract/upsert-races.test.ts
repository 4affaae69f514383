import { expect } from 'chai';
import { API, forEachDriver } from '../support/contract-app';

/**
 * Decision 79: an upsert that updates sets only the fields its record gives, also when it lost a
 * race for a new key (the record was created by a concurrent request between its read and its
 * write): the fields it did not give keep their values and are never reset to the model's defaults.
 */
forEachDriver('upsert: fields not given are kept', (ctx) => {
  before(async () => {
    await ctx.reset();
  });

  const upsert = (body: object) => ctx.request().post(`${API}/products/upsert`).send(body);

  it('a matched record updates the fields it gives; the others keep their non-default values', async () => {
    const made = await ctx.product({ name: 'Kept fields', price: 4, stock: 7, status: 'active', featured: true, description: 'Stays' });
    const res = await upsert({ product: [{ sku: made.sku, name: 'Renamed' }] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.models[0].action).to.equal('updated');
    expect(await ctx.fetch('products', made.id)).to.include({ name: 'Renamed', price: 4, stock: 7, status: 'active', featured: true, description: 'Stays' });
  });

  it('concurrent upserts of a new key with different fields: one record, no field reset to a default it was not sent', async () => {
    for (let round = 0; round < 3; round += 1) {
      const sku = ctx.unique('fields-race');
      // two field sets: each sets fields the other leaves to the model's defaults (stock 0, status draft, featured false, description null)
      const a = { sku, name: 'Side A', price: 1, stock: 5, description: 'From A' };
      const b = { sku, name: 'Side B', price: 2, status: 'active', featured: true };
      const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => upsert({ product: [i % 2 ? b : a] })));
      for (const res of answers) expect(res.status, res.text).to.equal(200);
      expect(answers.filter((res) => res.body.models[0].action === 'created')).to.have.length(1);
      const list = await ctx.get('/products', { attr: { sku } });
      expect(list.body.data, list.text).to.have.length(1);
      expect(list.body.data[0]).to.include({ stock: 5, description: 'From A', status: 'active', featured: true });
    }
  });

  it('a chunk of new records giving different fields, raced by another chunk: each keeps what it was not sent', async () => {
    const skus = Array.from({ length: 6 }, () => ctx.unique('chunk-race'));
    const first = skus.map((sku, i) => (i % 2 ? { sku, name: `F${i}`, price: 1, stock: 9 } : { sku, name: `F${i}`, price: 1, status: 'inactive' }));
    const second = skus.map((sku, i) => (i % 3 ? { sku, name: `S${i}`, price: 3 } : { sku, name: `S${i}`, price: 3, description: 'Second' }));
    const answers = await Promise.all([upsert({ product: first }), upsert({ product: second }), upsert({ product: first }), upsert({ product: second })]);
    for (const res of answers) expect(res.status, res.text).to.equal(200);
    const list = await ctx.get('/products', { attr: { sku: skus }, pagination: { page: 1, pageSize: 50 } });
    expect(list.body.data, list.text).to.have.length(skus.length);
    const bySku = new Map(list.body.data.map((row: { sku: string }) => [row.sku, row]));
    skus.forEach((sku, i) => {
      const row = bySku.get(sku) as Record<string, unknown>;
      if (i % 2) expect(row.stock, sku).to.equal(9);
      else expect(row.status, sku).to.equal('inactive');
      if (i % 3 === 0) expect(row.description, sku).to.equal('Second');
    });
  });
});
