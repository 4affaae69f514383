import { expect } from 'chai';
import type { CommandStartedEvent } from 'mongodb';
import type { Connection } from 'mongoose';
import type { Sequelize } from 'sequelize';
import supertest from 'supertest';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { asAdmin } from '../support/as-admin';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * Aggregates cost ONE round trip (decision 57), counted as for lists (round-trip-budget.test.ts):
 * one aggregate command on MongoDB, one statement on PostgreSQL, whatever the number of groups,
 * with a relation filter, a to-one group path, a page of groups and a caller whose scopes narrow
 * the records (ownership of the related users).
 */
const AGGREGATE = {
  oper: JSON.stringify({ and: ['price|>=|0'], category: { and: ['name|like|Agg%'] } }),
  group_by: JSON.stringify(['category.name', 'status']),
  aggregate: JSON.stringify({ count: '*', sum: ['price', 'stock'], avg: ['price'], min: ['created_at'], max: ['name'], count_distinct: ['category_id'] }),
  orderby: JSON.stringify({ 'sum.price': 'desc' }),
  pagination: JSON.stringify({ page: 1, pageSize: 3 }),
};

/** Date buckets in a zone and `having` (decision 84): still one round trip. */
const BUCKETED = {
  oper: JSON.stringify({ and: ['sku|like|AGG-%'] }),
  group_by: JSON.stringify([{ field: 'created_at', bucket: 'month', tz: 'Europe/Berlin' }, 'status', { field: 'updated_at', bucket: 'week', tz: 'America/New_York', week_start: 'sunday' }]),
  aggregate: JSON.stringify({ count: '*', sum: ['price'] }),
  having: JSON.stringify({ and: ['count|>=|1', { or: ['sum.price|>=|0', 'status|=|active'] }] }),
};

async function seed(example: ExampleApp, groups: number): Promise<void> {
  const http = asAdmin(example);
  const categories = await http.post('/api/v1/categories').send({ category: Array.from({ length: groups }, (_, i) => ({ name: `Agg ${i}` })) }).expect(200);
  const ids = categories.body.models.map((m: { model: { id: unknown } }) => m.model.id);
  const product = Array.from({ length: groups * 4 }, (_, i) => ({ name: `Agg product ${i}`, sku: `AGG-${groups}-${i}`, price: i, stock: i % 3, status: i % 2 ? 'active' : 'draft', category_id: ids[i % groups] }));
  await http.post('/api/v1/products').send({ product }).expect(200);
}

/** The aggregate as the superuser and as a customer (read-own users: a scoped group path), each measured by `count`. */
async function costs(example: ExampleApp, customerToken: string, count: (work: () => Promise<unknown>) => Promise<number>): Promise<number[]> {
  const admin = () => asAdmin(example).get('/api/v1/products/aggregate').query(AGGREGATE).expect(200);
  const bucketed = () => asAdmin(example).get('/api/v1/products/aggregate').query(BUCKETED).expect(200);
  const customer = () => supertest(example.app).get('/api/v1/reviews/aggregate').set('Authorization', `Bearer ${customerToken}`).query({ group_by: JSON.stringify(['user.name']) }).expect(200);
  // warm: the callers' token lookups are cached
  await admin();
  await customer();
  const first = await admin();
  expect(first.body.data).to.have.length(3);
  expect(first.body.total).to.be.greaterThan(3);
  expect((await bucketed()).body.total).to.equal(2);
  return [await count(admin), await count(customer), await count(bucketed)];
}

async function customerOf(example: ExampleApp): Promise<string> {
  const token = `agg-customer-${Date.now()}`;
  await asAdmin(example).post('/api/v1/users').send({ name: 'Agg customer', email: `${token}@example.test`, roles: ['customer'], api_token: token }).expect(200);
  return token;
}

describe('aggregate round trips', function () {
  this.timeout(120_000);

  it('MongoDB: one aggregate command, for 3 and for 40 groups, buckets and having included', async () => {
    const mongo = await sharedMongo();
    const uri = new URL(mongo.uri);
    uri.pathname = '/aggregate_budget';
    uri.searchParams.set('monitorCommands', 'true');
    const example = await createExampleApp({ driver: 'mongo', mongoUri: uri.toString() });
    try {
      await example.reset();
      const token = await customerOf(example);
      const commands: string[] = [];
      const connection = (example.api.registry.entry('product').declaration.model as { db: Connection }).db;
      connection.getClient().on('commandStarted', (event: CommandStartedEvent) => commands.push(event.commandName));
      const count = async (work: () => Promise<unknown>) => {
        commands.length = 0;
        await work();
        expect(commands).to.deep.equal(['aggregate']);
        return commands.length;
      };
      await seed(example, 3);
      expect(await costs(example, token, count)).to.deep.equal([1, 1, 1]);
      await seed(example, 40);
      expect(await costs(example, token, count)).to.deep.equal([1, 1, 1]);
    } finally {
      await example.reset();
      await example.close();
    }
  });

  it('PostgreSQL: one statement, for 3 and for 40 groups, buckets and having included', async () => {
    const pg = await sharedPostgres();
    const example = await createExampleApp({ driver: 'sql', postgresUri: pg.uri });
    const sequelize = (example.api.registry.entry('product').declaration.model as { sequelize: Sequelize }).sequelize;
    const options = (sequelize as unknown as { options: { logging: unknown } }).options;
    try {
      await example.reset();
      const token = await customerOf(example);
      const statements: string[] = [];
      options.logging = (sql: string) => void statements.push(sql);
      const count = async (work: () => Promise<unknown>) => {
        statements.length = 0;
        await work();
        return statements.length;
      };
      await seed(example, 3);
      expect(await costs(example, token, count)).to.deep.equal([1, 1, 1]);
      await seed(example, 40);
      expect(await costs(example, token, count)).to.deep.equal([1, 1, 1]);
      statements.length = 0;
      await asAdmin(example).get('/api/v1/products/aggregate').query(AGGREGATE).expect(200);
      expect(statements[0]).to.match(/WITH "g" AS \(SELECT .* GROUP BY /);
    } finally {
      options.logging = false;
      await example.reset();
      await example.close();
    }
  });
});
