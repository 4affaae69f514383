import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import supertest from 'supertest';
import { API, expectError, forEachDriver, type Rec } from '../support/contract-app';

/**
 * The spec's last partial rows (issue 30), with the same answers on both drivers: relation list
 * key order, the single relation update's body forms, updates that change nothing (decision 67),
 * ids in relation error bodies, the soft-deletable record's key order, the query log file and the
 * interface version in the OpenAPI document.
 */
forEachDriver('spec rows', (ctx) => {
  const req = () => ctx.request();
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeEach(() => ctx.reset());

  it('relation list envelopes: current_page, data, per_page, total, then the rest (decision 67)', async () => {
    const product = await ctx.product();
    await ctx.create('reviews', { product_id: product.id, rating: 4 });
    const res = await req().get(`${API}/products/${product.id}/reviews`).query({ pagination: JSON.stringify({ page: 1, pageSize: 5 }) });
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body).slice(0, 4)).to.deep.equal(['current_page', 'data', 'per_page', 'total']);
    expect(res.body).to.include({ current_page: 1, per_page: 5, total: 1, last_page: 1 });
    const tags = await req().get(`${API}/products/${product.id}/tags`).query({ pagination: JSON.stringify({ page: 1, pageSize: 5 }) });
    expect(Object.keys(tags.body).slice(0, 4)).to.deep.equal(['current_page', 'data', 'per_page', 'total']);
  });

  it('single relation update: the record under the dataKey or as the plain attributes object', async () => {
    const product = await ctx.product();
    const review = await ctx.create('reviews', { product_id: product.id, rating: 4, comment: 'before' });
    const wrapped = await req().put(`${API}/products/${product.id}/reviews/${review.id}`).send({ reviews: { comment: 'wrapped' } });
    expect(wrapped.status, wrapped.text).to.equal(200);
    expect(wrapped.body).to.include({ success: true });
    expect(wrapped.body.model).to.include({ comment: 'wrapped', rating: 4 });
    expect((await ctx.fetch('reviews', review.id)).comment).to.equal('wrapped');
    const plain = await req().put(`${API}/products/${product.id}/reviews/${review.id}`).send({ comment: 'plain' });
    expect(plain.status, plain.text).to.equal(200);
    expect(plain.body.model).to.include({ comment: 'plain' });
    expect((await ctx.fetch('reviews', review.id)).comment).to.equal('plain');
    // the bulk form stays strict: its records only under the dataKey
    expectError(await req().put(`${API}/products/${product.id}/reviews`).query({ _scenario: 'bulk_update' }).send([{ id: review.id, comment: 'x' }]), 400, 'bad_request', /"reviews"/);
  });

  it('an update whose values equal the stored ones leaves updated_at as it was, on every update route (decision 67)', async () => {
    const product = await ctx.product({ name: 'Same', price: 10, stock: 3 });
    const review = await ctx.create('reviews', { product_id: product.id, rating: 4, comment: 'same' });
    await sleep(15);
    const unchanged = async (resource: string, rec: Rec) => {
      const now = await ctx.fetch(resource, rec.id);
      expect(now.updated_at, `${resource} updated_at`).to.equal(rec.updated_at);
    };
    const put = await req().put(`${API}/products/${product.id}`).send({ name: 'Same', price: 10 });
    expect(put.status, put.text).to.equal(200);
    expect(put.body.model).to.include({ id: product.id, name: 'Same', updated_at: product.updated_at });
    const patch = await req().patch(`${API}/products/${product.id}`).send({ stock: 3 });
    expect(patch.status, patch.text).to.equal(200);
    expect(patch.body.model.updated_at).to.equal(product.updated_at);
    for (const [method, route] of [['patch', 'batch'], ['post', 'update-multiple']] as const) {
      const res = await req()[method](`${API}/products/${route}`).send({ product: [{ id: product.id, name: 'Same', stock: 3 }] });
      expect(res.status, `${route}: ${res.text}`).to.equal(200);
      expect(res.body.models[0].model).to.include({ id: product.id, updated_at: product.updated_at });
    }
    await unchanged('products', product);
    const rel = await req().put(`${API}/products/${product.id}/reviews/${review.id}`).send({ reviews: { comment: 'same', rating: 4 } });
    expect(rel.status, rel.text).to.equal(200);
    expect(rel.body.model.updated_at).to.equal(review.updated_at);
    const relBulk = await req().put(`${API}/products/${product.id}/reviews`).query({ _scenario: 'bulk_update' }).send({ reviews: [{ id: review.id, rating: 4 }] });
    expect(relBulk.status, relBulk.text).to.equal(200);
    expect(relBulk.body.models[0].model.updated_at).to.equal(review.updated_at);
    await unchanged('reviews', review);
    // arrays compare by value: the same roles write nothing, other roles do
    const user = await ctx.user({ roles: ['editor', 'viewer'] });
    await sleep(15);
    const same = await req().patch(`${API}/users/${user.id}`).send({ roles: ['editor', 'viewer'], name: user.name });
    expect(same.status, same.text).to.equal(200);
    expect(same.body.model.updated_at).to.equal(user.updated_at);
    const other = await req().patch(`${API}/users/${user.id}`).send({ roles: ['viewer', 'editor'] });
    expect(other.body.model.roles).to.deep.equal(['viewer', 'editor']);
    expect(other.body.model.updated_at).not.to.equal(user.updated_at);
    // a value that differs does move it, and only on the record that changed
    const second = await ctx.product({ name: 'Second' });
    await sleep(15);
    const mixed = await req().patch(`${API}/products/batch`).send({ product: [{ id: product.id, name: 'Changed' }, { id: second.id, name: 'Second' }] });
    expect(mixed.status, mixed.text).to.equal(200);
    expect(mixed.body.models[0].model.updated_at).not.to.equal(product.updated_at);
    expect(mixed.body.models[1].model.updated_at).to.equal(second.updated_at);
  });

  it('relation not-found bodies render ids like the records (error.id, not_found_ids)', async () => {
    const product = await ctx.product();
    const other = await ctx.product();
    const foreign = await ctx.create('reviews', { product_id: other.id, rating: 2 });
    const one = expectError(await req().get(`${API}/products/${product.id}/reviews/${foreign.id}`), 404, 'not_found');
    expect((one.error as Rec).id).to.equal(foreign.id);
    expect(typeof (one.error as Rec).id).to.equal(typeof foreign.id);
    const update = expectError(await req().put(`${API}/products/${product.id}/reviews/${foreign.id}`).send({ reviews: { rating: 1 } }), 404, 'not_found');
    expect((update.error as Rec).id).to.equal(foreign.id);
    const bulk = await req().delete(`${API}/products/${product.id}/reviews`).query({ _scenario: 'bulk_delete' }).send({ ids: [String(foreign.id)] });
    expect(bulk.status, bulk.text).to.equal(404);
    expect(bulk.body.error.not_found_ids).to.deep.equal([foreign.id]);
    // a value that is no id at all stays as it was sent
    const bad = expectError(await req().get(`${API}/products/${product.id}/reviews/abc`), 404, 'not_found');
    expect((bad.error as Rec).id).to.equal('abc');
  });

  it('a soft-deletable record has one key order on both drivers: the deletion time after the timestamps', async () => {
    const product = await ctx.product();
    const review = await ctx.create('reviews', { product_id: product.id, rating: 4 });
    const order = ['id', 'product_id', 'user_id', 'rating', 'comment', 'created_at', 'updated_at', 'deleted_at'];
    expect(Object.keys(review)).to.deep.equal(order);
    expect(Object.keys(await ctx.fetch('reviews', review.id))).to.deep.equal(order);
    expect(Object.keys((await ctx.get('/reviews')).body.data[0])).to.deep.equal(order);
    expect(Object.keys((await req().get(`${API}/products/${product.id}/reviews`)).body.data[0])).to.deep.equal(order);
    const trashed = await req().delete(`${API}/reviews/${review.id}`);
    expect(Object.keys(trashed.body.model)).to.deep.equal(order);
  });

  it('LOG_QUERY with LOG_QUERY_FILE: one line per query in the query log file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'grr-query-log-'));
    const file = join(dir, 'query.log');
    const example = await ctx.exampleAppWith({ config: { logQueries: true, queryLogFile: file } });
    try {
      const agent = () => supertest.agent(example.app).set('Authorization', `Bearer ${example.info.adminToken}`);
      expect((await agent().get(`${API}/products`)).status).to.equal(200);
      expect((await agent().get(`${API}/tags`)).status).to.equal(200);
      let lines: Array<Record<string, unknown>> = [];
      for (let i = 0; i < 50; i += 1) {
        const text = await readFile(file, 'utf8').catch(() => '');
        lines = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
        if (lines.length >= 2) break;
        await sleep(40);
      }
      const actions = lines.map((l) => `${l.model}.${l.action}`);
      expect(actions).to.include.members(['product.index', 'tag.index']);
      for (const line of lines) expect(line).to.include({ channel: 'query' }).and.to.have.property('timestamp');
    } finally {
      await example.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the OpenAPI document names the implemented interface version (2.1.8)', async () => {
    const res = await req().get(`${API}/openapi.json`);
    expect(res.status).to.equal(200);
    expect(res.body.info['x-interface-version']).to.equal('2.1.8');
    expect(res.body.info.description).to.include('2.1.8');
  });
});
