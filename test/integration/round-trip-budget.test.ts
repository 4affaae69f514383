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

    for (const pageSize of [1, 100]) {
      it(`a page of ${pageSize} issues exactly one aggregate command and nothing else`, async () => {
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

    it('a page of 1 and a page of 100 run the same statements (page, count, one per relation level)', async () => {
      statements.length = 0;
      await listPage(example, 1);
      const forOne = statements.length;
      statements.length = 0;
      await listPage(example, 100);
      expect(statements.length).to.equal(forOne);
      // page + count + category + category.parent + reviews
      expect(forOne).to.equal(5);
    });
  });
});
