import { expect } from 'chai';
import { API, expectError, expectValidation, forEachDriver, TIMESTAMP, type Member } from '../support/contract-app';

/** POST /{resource}/upsert (decision 79) on both drivers: products (match sku), tags (name), orders (number). */
forEachDriver('upsert', (ctx) => {
  let editor: Member;
  let viewer: Member;
  let carol: Member;

  before(async () => {
    await ctx.reset();
    editor = await ctx.member(['editor']);
    viewer = await ctx.member(['viewer']);
    carol = await ctx.member(['customer']);
  });

  const upsert = (body: object, agent = ctx.request()) => agent.post(`${API}/products/upsert`).send(body);

  it('creates new records, updates matched ones and leaves equal ones unwritten, in request order', async () => {
    const kept = await ctx.product({ name: 'Kept', price: 5 });
    const changed = await ctx.product({ name: 'Old name', price: 7, stock: 4 });
    const fresh = ctx.unique('sku');
    const res = await upsert({ match: ['sku'], product: [
      { sku: fresh, name: 'New one', price: 3 },
      { sku: changed.sku, name: 'New name' },
      { sku: kept.sku, name: 'Kept', price: 5 },
    ] });
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body)).to.deep.equal(['created', 'updated', 'unchanged', 'models']);
    expect(res.body).to.include({ created: 1, updated: 1, unchanged: 1 });
    expect(res.body.models.map((m: { action: string }) => m.action)).to.deep.equal(['created', 'updated', 'unchanged']);
    expect(res.body.models[0].model).to.include({ sku: fresh, name: 'New one', price: 3, stock: 0, status: 'draft' });
    expect(res.body.models[0].model.created_at).to.match(TIMESTAMP);
    expect(res.body.models[1].model.updated_at).to.match(TIMESTAMP);
    expect(res.body.models[1].model.created_at).to.equal(changed.created_at);
    expect(res.body.models[1].model).to.include({ id: changed.id, name: 'New name', price: 7, stock: 4 });
    expect(res.body.models[2].model).to.include({ id: kept.id, updated_at: kept.updated_at });
    expect((await ctx.fetch('products', changed.id)).name).to.equal('New name');
  });

  it('one record (not an array) answers the same envelope; match may be left out with one declared set', async () => {
    const sku = ctx.unique('sku');
    const first = await upsert({ product: { sku, name: 'Single', price: 1 } });
    expect(first.status, first.text).to.equal(200);
    expect(first.body).to.include({ created: 1, updated: 0, unchanged: 0 });
    const again = await upsert({ product: { sku, name: 'Single', price: 1 } });
    expect(again.body).to.include({ created: 0, updated: 0, unchanged: 1 });
    expect(again.body.models[0].model.id).to.equal(first.body.models[0].model.id);
  });

  it('unchanged records answer whole, timestamps included, also when nothing at all is written', async () => {
    const kept = await ctx.product({ name: 'Whole', price: 6, stock: 2 });
    const alone = await upsert({ product: [{ sku: kept.sku, name: 'Whole' }] });
    expect(alone.body.models[0]).to.deep.equal({ action: 'unchanged', model: kept });
    const mixed = await upsert({ product: [{ sku: ctx.unique('sku'), name: 'Beside', price: 1 }, { sku: kept.sku, price: 6 }] });
    expect(mixed.body.models.map((m: { action: string }) => m.action)).to.deep.equal(['created', 'unchanged']);
    expect(mixed.body.models[1].model).to.deep.equal(kept);
  });

  it('422s: a record without a match field, a match that is not declared, two records with the same match values', async () => {
    expectValidation(await upsert({ product: [{ sku: ctx.unique('sku'), name: 'a', price: 1 }, { name: 'b', price: 1 }] }), 'product.1.sku');
    expectValidation(await upsert({ product: { name: 'b', price: 1 } }), 'product.sku');
    expectValidation(await upsert({ match: ['name'], product: [{ sku: ctx.unique('sku'), name: 'a', price: 1 }] }), 'match');
    const sku = ctx.unique('sku');
    expectValidation(await upsert({ product: [{ sku, name: 'a', price: 1 }, { sku, name: 'b', price: 2 }] }), 'product.1.sku');
    expect(await ctx.count('products', { attr: { sku } })).to.equal(0);
  });

  it('new records are validated as creates, matched ones as updates; all or nothing', async () => {
    const existing = await ctx.product({ name: 'Partial ok' });
    const sku = ctx.unique('sku');
    // a matched record may give only some fields; a new one needs the create's required fields
    const res = await upsert({ product: [{ sku: existing.sku, stock: 9 }, { sku, name: 'No price' }] });
    expectValidation(res, 'product.1.price');
    expect((await ctx.fetch('products', existing.id)).stock).to.equal(existing.stock);
    expect(await ctx.count('products', { attr: { sku } })).to.equal(0);
  });

  it('needs both the create and the update permission; the write policy applies per action', async () => {
    expectError(await upsert({ product: { sku: ctx.unique('sku'), name: 'v', price: 1 } }, viewer.agent()), 403, 'forbidden');
    // customers create their own orders but may not update them
    expectError(await carol.agent().post(`${API}/orders/upsert`).send({ order: { number: ctx.unique('N'), total: 1, placed_at: '2026-11-01T00:00:00.000Z', user_id: carol.user.id } }), 403, 'forbidden');
    // an editor may write status but not featured (fieldsByRole)
    expectValidation(await upsert({ product: { sku: ctx.unique('sku'), name: 'e', price: 1, featured: true } }, editor.agent()), 'product.featured');
    const ok = await upsert({ product: { sku: ctx.unique('sku'), name: 'e', price: 1, status: 'active' } }, editor.agent());
    expect(ok.status, ok.text).to.equal(200);
  });

  it('a match of another user\'s order, for a caller who may update any order, is updated', async () => {
    const owner = await ctx.user();
    const number = ctx.unique('N');
    await ctx.create('orders', { user_id: owner.id, number, total: 1, placed_at: '2026-11-01T00:00:00.000Z' });
    // an admin-created order of another user: a superuser sees it and updates it
    const sup = await ctx.request().post(`${API}/orders/upsert`).send({ order: { number, total: 2 } });
    expect(sup.status, sup.text).to.equal(200);
    expect(sup.body.models[0].action).to.equal('updated');
    expect(sup.body.models[0].model.version).to.equal(2);
  });

  it('orders: version 1 on create, incremented on update, never taken from the body', async () => {
    const owner = await ctx.user();
    const number = ctx.unique('N');
    const made = await ctx.request().post(`${API}/orders/upsert`).send({ match: ['number'], order: [{ number, user_id: owner.id, total: 3, placed_at: '2026-11-01T00:00:00.000Z', version: 50 }] });
    expect(made.status, made.text).to.equal(200);
    expect(made.body.models[0].model.version).to.equal(1);
    const again = await ctx.request().post(`${API}/orders/upsert`).send({ order: [{ number, total: 4, version: 70 }] });
    expect(again.body.models[0]).to.deep.include({ action: 'updated' });
    expect(again.body.models[0].model.version).to.equal(2);
  });

  it('50 concurrent identical upserts of a new key: one record, never a 409 or 500, one created', async () => {
    const sku = ctx.unique('race');
    const answers = await Promise.all(Array.from({ length: 50 }, () => upsert({ product: [{ sku, name: 'Race', price: 9 }] })));
    for (const res of answers) expect(res.status, res.text).to.equal(200);
    const created = answers.filter((res) => res.body.models[0].action === 'created');
    expect(created.length).to.equal(1);
    for (const res of answers) expect(['created', 'updated', 'unchanged']).to.include(res.body.models[0].action);
    expect(await ctx.count('products', { attr: { sku } })).to.equal(1);
  });

  it('tags match by name; an upsert with only the match field of an existing tag is unchanged', async () => {
    const tag = await ctx.tagRec();
    const res = await ctx.request().post(`${API}/tags/upsert`).send({ tag: [{ name: tag.name }, { name: ctx.unique('tag') }] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.models.map((m: { action: string }) => m.action)).to.deep.equal(['unchanged', 'created']);
  });

  it('resources without upsertKeys have no upsert route', async () => {
    const res = await ctx.request().post(`${API}/categories/upsert`).send({ category: { name: 'x' } });
    expect(res.status).to.be.oneOf([404, 405]);
  });
});
