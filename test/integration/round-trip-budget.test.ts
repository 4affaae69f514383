import { expect } from 'chai';
import type request from 'supertest';
import { asAdmin } from '../support/as-admin';
import type { Sequelize } from 'sequelize';
import type { Connection } from 'mongoose';
import type { CommandStartedEvent } from 'mongodb';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * The performance shape, pinned by counting round trips (never time): a list page with a relation
 * filter, two eager-loaded relations (one nested) and offset pagination costs ONE aggregate on
 * MongoDB and a constant number of statements on PostgreSQL, whatever the page size.
 */
const LIST = {
  oper: JSON.stringify({ and: ['price|>=|0'], category: { and: ['name|like|Budget%'] } }),
  relations: JSON.stringify(['category.parent', 'reviews']),
};

async function seed(example: ExampleApp): Promise<void> {
  const http = asAdmin(example);
  const root = await http.post('/api/v1/categories').send({ name: 'Budget root' }).expect(200);
  const child = await http.post('/api/v1/categories').send({ name: 'Budget child', parent_id: root.body.model.id }).expect(200);
  const products = Array.from({ length: 120 }, (_, i) => ({
    name: `Budget product ${i}`,
    sku: `BUDGET-${i}`,
    price: i,
    category_id: child.body.model.id,
  }));
  const created = await http.post('/api/v1/products').send({ product: products }).expect(200);
  const reviews = created.body.models.flatMap((m: { model: { id: string | number } }) => [
    { product_id: m.model.id, rating: 4 },
    { product_id: m.model.id, rating: 5 },
  ]);
  await http.post('/api/v1/reviews').send({ review: reviews }).expect(200);
}

/**
 * The relation operations of issue 10 with `n` ids each, on a fresh product: attach (bulk), sync,
 * toggle, pivot update, detach (bulk), then bulk update and bulk delete of its reviews. Answers the
 * round trips of each operation, counted by `count` around it.
 */
async function relationOps(example: ExampleApp, n: number, measure: (work: () => Promise<unknown>) => Promise<number>): Promise<Record<string, number>> {
  const http = asAdmin(example);
  const product = (await http.post('/api/v1/products').send({ name: `Rel ${n}`, sku: `REL-${n}-${Date.now()}`, price: 1 }).expect(200)).body.model;
  const tags = (await http.post('/api/v1/tags').send({ tag: Array.from({ length: 2 * n }, (_, i) => ({ name: `rel-${n}-${i}-${Date.now()}` })) }).expect(200)).body.models.map((m: { model: { id: unknown } }) => m.model.id);
  const reviews = (await http.post('/api/v1/reviews').send({ review: Array.from({ length: n }, () => ({ product_id: product.id, rating: 3 })) }).expect(200)).body.models.map((m: { model: { id: unknown } }) => m.model.id);
  const base = `/api/v1/products/${product.id}`;
  const first = tags.slice(0, n);
  const second = tags.slice(n);
  // warm before each operation: the token lookup is cached (5 s), so only the operation's own
  // round trips are counted, however slow the machine
  const count = async (work: () => Promise<unknown>): Promise<number> => {
    await http.get(`${base}/tags`).expect(200);
    return measure(work);
  };
  const costs: Record<string, number> = {};
  costs.bulk_attach = await count(() => http.post(`${base}/tags/attach`).query({ _scenario: 'bulk_attach' }).send({ tags: first }).expect(200));
  costs.sync = await count(() => http.post(`${base}/tags/attach`).query({ _scenario: 'sync' }).send({ tags: second.map((id: unknown) => ({ tag_id: id, position: 1 })) }).expect(200));
  costs.toggle = await count(() => http.post(`${base}/tags/attach`).query({ _scenario: 'toggle' }).send({ tags: [...first, ...second] }).expect(200));
  costs.pivot_update = await count(() => http.put(`${base}/tags/pivot`).query({ _scenario: 'bulk_update_pivot' }).send({ tags: first.map((id: unknown) => ({ tag_id: id, position: 2 })) }).expect(200));
  costs.bulk_detach = await count(() => http.delete(`${base}/tags/detach`).query({ _scenario: 'bulk_detach' }).send(first).expect(200));
  costs.bulk_update = await count(() => http.put(`${base}/reviews`).query({ _scenario: 'bulk_update' }).send({ reviews: reviews.map((id: unknown) => ({ id, rating: 4 })) }).expect(200));
  costs.bulk_delete = await count(() => http.delete(`${base}/reviews`).query({ _scenario: 'bulk_delete' }).send(reviews).expect(200));
  return costs;
}

/** The relation operations with 1 and with 40 ids cost the same round trips (counted in `log`), and exactly `expected`. */
async function expectConstantCosts(example: ExampleApp, log: unknown[], expected: Record<string, number>): Promise<void> {
  const count = async (work: () => Promise<unknown>) => {
    log.length = 0;
    await work();
    return log.length;
  };
  const one = await relationOps(example, 1, count);
  expect(await relationOps(example, 40, count)).to.deep.equal(one);
  expect(one).to.deep.equal(expected);
}

async function listPage(example: ExampleApp, pageSize: number): Promise<request.Response> {
  const res = await asAdmin(example)
    .get('/api/v1/products')
    .query({ ...LIST, pagination: JSON.stringify({ page: 1, pageSize }) })
    .expect(200);
  expect(res.body.total).to.equal(120);
  expect(res.body.data).to.have.length(pageSize);
  expect(res.body.data[0].category.parent.name).to.equal('Budget root');
  expect(res.body.data[0].reviews).to.have.length(2);
  return res;
}

describe('round-trip budget', function () {
  this.timeout(120_000);

  describe('MongoDB: one aggregation per list page', () => {
    let example: ExampleApp;
    const commands: string[] = [];

    before(async () => {
      const mongo = await sharedMongo();
      const uri = new URL(mongo.uri);
      uri.pathname = '/budget_test';
      uri.searchParams.set('monitorCommands', 'true');
      example = await createExampleApp({ driver: 'mongo', mongoUri: uri.toString() });
      await example.reset();
      await seed(example);
      const connection = (example.api.registry.entry('product').declaration.model as { db: Connection }).db;
      connection.getClient().on('commandStarted', (event: CommandStartedEvent) => commands.push(event.commandName));
    });

    after(async () => {
      await example.reset();
      await example.close();
    });

    it('relation operations cost the same round trips for 1 and 40 ids', async () => {
      // commands incl. the parent check, membership reads, the pivot lock (issue 28), the reference lock and check, and commitTransaction;
      // a sync or toggle writes in one bulkWrite after one read of the links (a delete and an insert command on the wire)
      await expectConstantCosts(example, commands, { bulk_attach: 9, sync: 10, toggle: 10, pivot_update: 7, bulk_detach: 5, bulk_update: 9, bulk_delete: 6 });
    });

    it('a hierarchy list and a hierarchy show are one aggregate each, whatever the tree size', async () => {
      const http = asAdmin(example);
      await http.get('/api/v1/categories').query({ hierarchy: 'true' }).expect(200);
      for (const query of [{ hierarchy: JSON.stringify({ filter_mode: 'full_branch' }), oper: JSON.stringify({ and: ['name|like|Budget child'] }), relations: 'products' }, { hierarchy: 'true' }]) {
        commands.length = 0;
        const res = await http.get('/api/v1/categories').query(query).expect(200);
        expect(res.body.data[0].name).to.equal('Budget root');
        expect(commands).to.deep.equal(['aggregate']);
      }
      const root = (await http.get('/api/v1/categories/first').query({ attr: JSON.stringify({ name: 'Budget root' }) }).expect(200)).body.data;
      commands.length = 0;
      await http.get(`/api/v1/categories/${root.id}`).query({ hierarchy: 'true' }).expect(200);
      expect(commands).to.deep.equal(['aggregate']);
    });

    for (const pageSize of [1, 100]) {
      it(`a page of ${pageSize} issues exactly one aggregate command and nothing else`, async () => {
        await listPage(example, pageSize); // warm: the caller's token lookup is cached
        commands.length = 0;
        await listPage(example, pageSize);
        expect(commands).to.deep.equal(['aggregate']);
      });
    }
  });

  describe('PostgreSQL: a constant number of statements', () => {
    let example: ExampleApp;
    let sequelize: Sequelize;
    const statements: string[] = [];

    before(async () => {
      const pg = await sharedPostgres();
      example = await createExampleApp({ driver: 'sql', postgresUri: pg.uri });
      await example.reset();
      await seed(example);
      sequelize = (example.api.registry.entry('product').declaration.model as { sequelize: Sequelize }).sequelize;
      // Sequelize reads `options.logging` at every query; swap it in to count statements.
      (sequelize as unknown as { options: { logging: unknown } }).options.logging = (sql: string) => {
        statements.push(sql);
      };
    });

    after(async () => {
      (sequelize as unknown as { options: { logging: unknown } }).options.logging = false;
      await example.reset();
      await example.close();
    });

    it('relation operations run the same statements for 1 and 40 ids', async () => {
      // statements incl. the parent check, membership reads, the pivot lock (issue 28), BEGIN and COMMIT;
      // an attach, sync or toggle is BEGIN, the lock, one statement whose conditions are the parent's and
      // the related ids' checks (issue 36: compile-pivot-sync.ts, compile-link-guard.ts) and COMMIT
      await expectConstantCosts(example, statements, { bulk_attach: 4, sync: 4, toggle: 4, pivot_update: 8, bulk_detach: 5, bulk_update: 7, bulk_delete: 7 });
    });

    it('a hierarchy list runs the same statements as a plain list of the tree (one recursive walk inside the page statement)', async () => {
      const http = asAdmin(example);
      await http.get('/api/v1/categories').query({ hierarchy: 'true' }).expect(200);
      statements.length = 0;
      const res = await http.get('/api/v1/categories').query({ hierarchy: JSON.stringify({ filter_mode: 'full_branch' }), oper: JSON.stringify({ and: ['name|like|Budget child'] }), relations: 'products' }).expect(200);
      expect(res.body.data[0].children[0].products).to.have.length(120);
      // one statement: the page with the WITH RECURSIVE walk, each category's products embedded
      expect(statements).to.have.length(1);
      expect(statements[0]).to.match(/WITH RECURSIVE/);
    });

    it('a bulk create of 1 and of 200 records runs the same four statements (references, BEGIN, INSERT ... RETURNING the rows, COMMIT)', async () => {
      const http = asAdmin(example);
      const category = (await http.post('/api/v1/categories').send({ name: `Bulk budget ${Date.now()}` }).expect(200)).body.model;
      for (const n of [1, 200]) {
        statements.length = 0;
        const product = Array.from({ length: n }, (_, i) => ({ name: `Bulk ${n} ${i}`, sku: `BULK-BUDGET-${n}-${i}-${Date.now()}`, price: i, category_id: category.id }));
        const res = await http.post('/api/v1/products').send({ product }).expect(200);
        expect(res.body.models.map((m: { model: { sku: string; category_id: unknown } }) => [m.model.sku, m.model.category_id])).to.deep.equal(product.map((p) => [p.sku, category.id]));
        expect(statements.map((s) => s.replace(/^Executing \([^)]*\): /, '').split(' ')[0].replace(/;$/, ''))).to.deep.equal(['SELECT', 'BEGIN', 'INSERT', 'COMMIT']);
      }
    });

    it('a bulk create of 1,000 and of 3,000 records runs the same eleven statements (BEGIN, eight INSERTs overlapping validation, references, COMMIT)', async () => {
      const http = asAdmin(example);
      const category = (await http.post('/api/v1/categories').send({ name: `Large budget ${Date.now()}` }).expect(200)).body.model;
      for (const n of [1000, 3000]) {
        statements.length = 0;
        const product = Array.from({ length: n }, (_, i) => ({ name: `Large ${n} ${i}`, sku: `LARGE-BUDGET-${n}-${i}-${Date.now()}`, price: i % 100, category_id: category.id }));
        const res = await http.post('/api/v1/products').send({ product }).expect(200);
        expect(res.body.models.map((m: { model: { sku: string } }) => m.model.sku)).to.deep.equal(product.map((p) => p.sku));
        expect(statements.map((s) => s.replace(/^Executing \([^)]*\): /, '').split(' ')[0].replace(/;$/, ''))).to.deep.equal(['BEGIN', ...Array(8).fill('INSERT'), 'SELECT', 'COMMIT']);
      }
    });

    it('a batch update by a caller who sees every record is one all-or-none UPDATE finding the ids, its own transaction; an absent id writes nothing', async () => {
      const http = asAdmin(example);
      const product = Array.from({ length: 100 }, (_, i) => ({ name: `Batch ${i}`, sku: `BATCH-BUDGET-${i}-${Date.now()}`, price: 1 }));
      const ids = (await http.post('/api/v1/products').send({ product }).expect(200)).body.models.map((m: { model: { id: number } }) => m.model.id);
      statements.length = 0;
      const res = await http.patch('/api/v1/products/batch').send({ product: ids.map((id: number, i: number) => ({ id, price: 2 + i })) }).expect(200);
      expect(res.body.models.map((m: { model: { id: number; price: number } }) => [m.model.id, m.model.price])).to.deep.equal(ids.map((id: number, i: number) => [id, 2 + i]));
      // the UPDATE (in a WITH that fails it when it reaches fewer rows) is the transaction's only
      // statement: PostgreSQL runs it as a transaction of its own, no BEGIN nor COMMIT around it
      const verbs = () => statements.map((s) => s.replace(/^Executing \([^)]*\): /, '').split(' ')[0].replace(/;$/, ''));
      expect(verbs()).to.deep.equal(['WITH']);
      expect(statements[0]).to.match(/^Executing \([^)]*\): WITH "grr_w" AS \(UPDATE "products"/);
      const absent = ids[ids.length - 1] + 1_000_000;
      statements.length = 0;
      const refused = await http.patch('/api/v1/products/batch').send({ product: [{ id: ids[0], price: 99 }, { id: absent, price: 99 }] }).expect(404);
      expect(refused.body.ids).to.deep.equal([absent]);
      // the failed UPDATE (rolled back with its statement), then which ids are missing
      expect(verbs()).to.deep.equal(['WITH', 'SELECT']);
      // the UPDATE reached the first record: nothing of it remains with the 404
      expect((await http.get(`/api/v1/products/${ids[0]}`).expect(200)).body.price).to.equal(2);
    });

    it('a delete refused by a restrict rule (409 naming the relation and the count) runs the statements of one that succeeds: the counts are part of the DELETE', async () => {
      const http = asAdmin(example);
      const verbs = () => statements.map((s) => s.replace(/^Executing \([^)]*\): /, '').split(' ')[0].replace(/;$/, ''));
      const free = (await http.post('/api/v1/products').send({ name: 'Free', sku: `FREE-${Date.now()}`, price: 1 }).expect(200)).body.model;
      const held = (await http.post('/api/v1/products').send({ name: 'Held', sku: `HELD-${Date.now()}`, price: 1 }).expect(200)).body.model;
      for (const rating of [1, 2]) await http.post('/api/v1/reviews').send({ product_id: held.id, rating }).expect(200);
      statements.length = 0;
      await http.delete(`/api/v1/products/${free.id}`).expect(200);
      const deleted = verbs();
      statements.length = 0;
      const refused = await http.delete(`/api/v1/products/${held.id}`).expect(409);
      expect(refused.body.error).to.deep.equal({ relation: 'reviews', count: 2 });
      expect(verbs().filter((v) => !/^(COMMIT|ROLLBACK)$/.test(v))).to.deep.equal(deleted.filter((v) => !/^(COMMIT|ROLLBACK)$/.test(v)));
      expect(statements.filter((s) => /DELETE FROM "products"/.test(s))).to.have.length(1);
    });

    it('in a large bulk create, a record referring to one the same request creates does not pass as existing', async () => {
      const http = asAdmin(example);
      const first = (await http.post('/api/v1/categories').send({ name: `Guess ${Date.now()}` }).expect(200)).body.model;
      const name = `Guessed ${Date.now()}`;
      const category = Array.from({ length: 600 }, (_, i) => ({ name: `${name} ${i}`, parent_id: first.id }));
      // the id the first new category gets (the sequence's next value): absent before the request
      category[599].parent_id = first.id + 1;
      const res = await http.post('/api/v1/categories').send({ category }).expect(422);
      expect(Object.keys(res.body.errors)).to.deep.equal(['category.599.parent_id']);
      const left = await http.get('/api/v1/categories').query({ oper: JSON.stringify({ and: [`name|like|${name}%`] }), pagination: JSON.stringify({ page: 1, pageSize: 10 }) }).expect(200);
      expect(left.body.total).to.equal(0);
      // the same batch with a real parent is written, the first new record got the guessed id
      category[599].parent_id = first.id;
      const ok = await http.post('/api/v1/categories').send({ category }).expect(200);
      expect(ok.body.models).to.have.length(600);
    });

    it('a page of 1 and a page of 100 run the same statements (to-one loads joined, to-many embedded, and the count)', async () => {
      await listPage(example, 1); // warm: the caller's token lookup is cached
      statements.length = 0;
      await listPage(example, 1);
      const forOne = statements.length;
      statements.length = 0;
      await listPage(example, 100);
      expect(statements.length).to.equal(forOne);
      // JSON built by PostgreSQL (issue 36): page, category.parent, reviews and the count in one statement
      expect(forOne).to.equal(1);
    });

    it('a show with a to-one chain and a to-many relation is one statement, with a many-to-many too', async () => {
      const http = asAdmin(example);
      const id = (await listPage(example, 1)).body.data[0].id;
      statements.length = 0;
      const res = await http.get(`/api/v1/products/${id}`).query({ relations: 'category.parent,reviews' }).expect(200);
      expect(res.body.category.parent.name).to.equal('Budget root');
      expect(res.body.reviews).to.have.length(2);
      expect(statements).to.have.length(1);
      statements.length = 0;
      await http.get(`/api/v1/products/${id}`).query({ relations: 'category.parent,reviews,tags' }).expect(200);
      // two statements on the usual path, so the show's JSON is built by PostgreSQL in one (issue 36)
      expect(statements).to.have.length(1);
    });
  });
});
