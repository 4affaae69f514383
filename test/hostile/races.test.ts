import { expect } from 'chai';
import supertest from 'supertest';
import { createExampleApp } from '../../example-app/app';
import { asAdmin } from '../support/as-admin';
import { sharedPostgres } from '../support/databases';
import { API, forEachDriver, type Rec } from '../support/contract-app';

/**
 * Races between writes (issue 8): no orphan when children are created while their parent is
 * deleted (MongoDB has no foreign keys: reference locks do their job), no 5xx when batch updates
 * cross in opposite orders (deadlocks are retried), and every answer a clean status.
 */
forEachDriver('races between writes', (ctx) => {
  before(() => ctx.reset());

  it('reviews created while their product is deleted: no review is left pointing at a deleted product', async () => {
    for (let round = 0; round < 3; round += 1) {
      const product = await ctx.product({ name: `Raced ${round}` });
      const creates = Array.from({ length: 12 }, (_, i) => ctx.request().post(`${API}/reviews`).send({ product_id: product.id, rating: 1 + (i % 5) }));
      const destroy = ctx.request().delete(`${API}/products/${product.id}`);
      const answers = await Promise.all([...creates, destroy]);
      for (const res of answers) expect(res.status, res.text).to.be.oneOf([200, 409, 422]);
      const deleted = answers[answers.length - 1].status === 200;
      const reviews = await ctx.get('/reviews', { attr: { product_id: product.id }, soft_delete: 'with' });
      expect(reviews.status).to.equal(200);
      if (deleted) expect(reviews.body.data, 'orphans of a deleted product').to.have.length(0);
      else expect((await ctx.request().get(`${API}/products/${product.id}`)).status).to.equal(200);
    }
  });

  it('batch updates of the same records in opposite orders all succeed or conflict cleanly (no 500)', async () => {
    const a = await ctx.product({ name: 'Lock A' });
    const b = await ctx.product({ name: 'Lock B' });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        ctx.request().patch(`${API}/products/batch`).send({ product: i % 2 ? [{ id: a.id, stock: i }, { id: b.id, stock: i }] : [{ id: b.id, stock: i }, { id: a.id, stock: i }] }),
      ),
    );
    for (const res of answers) expect(res.status, res.text).to.be.oneOf([200, 409]);
    expect(answers.filter((r) => r.status === 200).length).to.be.greaterThan(0);
    const [x, y] = [await ctx.fetch('products', a.id), await ctx.fetch('products', b.id)];
    expect(x.stock).to.equal(y.stock);
  });

  it('a tag attached while it is deleted leaves no pivot row behind', async () => {
    const product = await ctx.product({ name: 'Attach race' });
    const tags: Rec[] = [];
    for (let i = 0; i < 6; i += 1) tags.push(await ctx.tagRec());
    const answers = await Promise.all([
      ...tags.map((t) => ctx.request().post(`${API}/products/${product.id}/tags/attach`).send({ tag_id: t.id })),
      ...tags.map((t) => ctx.request().delete(`${API}/tags/${t.id}`)),
    ]);
    for (const res of answers) expect(res.status, res.text).to.be.oneOf([200, 404, 409]);
    const linked = await ctx.request().get(`${API}/products/${product.id}/tags`);
    const alive = new Set<string>();
    for (const t of tags) if ((await ctx.request().get(`${API}/tags/${t.id}`)).status === 200) alive.add(String(t.id));
    for (const row of linked.body.data as Rec[]) expect(alive.has(String(row.id))).to.equal(true);
  });
});

describe('request deadline', function () {
  this.timeout(60_000);
  it('a generated route slower than REST_REQUEST_TIMEOUT_MS answers 503 timeout with Retry-After, never hangs', async () => {
    const shop = await createExampleApp({ driver: 'sql', postgresUri: (await sharedPostgres()).uri, apiOptions: { config: { requestTimeoutMs: 100 } } });
    try {
      // a slow hook stands for a slow database or application step
      shop.api.registry.entry('tag').declaration.hooks = { beforeList: () => new Promise((resolve) => setTimeout(resolve, 400)) };
      const started = Date.now();
      const res = await asAdmin(shop).get('/api/v1/tags');
      expect(Date.now() - started).to.be.below(350);
      expect(res.status).to.equal(503);
      expect(res.headers['retry-after']).to.equal('2');
      expect(res.body).to.deep.equal({ message: 'The request took longer than 100 ms; try again later.', type: 'timeout', status: 503 });
      shop.api.registry.entry('tag').declaration.hooks = {};
      expect((await asAdmin(shop).get('/api/v1/tags')).status).to.equal(200);
    } finally {
      await shop.close();
    }
  });
});

describe('readiness', function () {
  this.timeout(60_000);
  it('/health asks the database: 200 while it answers, 503 naming it (with Retry-After) when it does not', async () => {
    const shop = await createExampleApp({ driver: 'sql', postgresUri: (await sharedPostgres()).uri });
    const ok = await supertest(shop.app).get('/api/v1/health');
    expect(ok.status).to.equal(200);
    expect(ok.body).to.include({ status: 'ok', driver: 'sql' });
    await shop.close();
    const down = await supertest(shop.app).get('/api/v1/health');
    expect(down.status).to.equal(503);
    expect(down.headers['retry-after']).to.equal('2');
    expect(down.body).to.include({ status: 'unavailable' });
    expect(down.body.down).to.deep.equal(['postgresql']);
  });
});

// Last of the contract suite's use of each driver's app on purpose: the heaviest write of the suite
// (a 10,000-record bulk create) does not precede other tests on the same in-process emulator.
forEachDriver('bulk scale', (ctx) => {
  it('a bulk create of 10,000 records completes while the app keeps answering', async function () {
    this.timeout(120_000);
    const tag = `bulk10k-${Date.now()}`;
    const [bulk, health] = await Promise.all([
      ctx.request().post(`${API}/tags`).send({ tag: Array.from({ length: 10_000 }, (_, i) => ({ name: `${tag}-${i}` })) }),
      new Promise((resolve) => setTimeout(resolve, 50)).then(() => ctx.request().get(`${API}/health`)),
    ]);
    expect(bulk.status, bulk.text.slice(0, 300)).to.equal(200);
    expect(bulk.body.models).to.have.length(10_000);
    expect(health.status).to.equal(200);
    expect(await ctx.count('tags', { oper: { and: [`name|like|${tag}-%`] } })).to.equal(10_000);
  });
});
