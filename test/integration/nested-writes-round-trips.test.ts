import { expect } from 'chai';
import type { Sequelize } from 'sequelize';
import type { Connection } from 'mongoose';
import type { CommandStartedEvent } from 'mongodb';
import { asAdmin } from '../support/as-admin';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { sharedMongo, sharedPostgres } from '../support/databases';

type Id = string | number;

/**
 * Nested writes (decision 59) cost round trips constant in the number of nested records: a
 * product created with n reviews and n tags, then updated with n reviews created, n updated, n
 * deleted and its tags synced to n others, counted for n = 1 and n = 25 (commands on MongoDB,
 * statements on PostgreSQL).
 */
async function nestedCosts(example: ExampleApp, n: number, log: unknown[]): Promise<Record<string, number>> {
  const http = asAdmin(example);
  const stamp = `${n}-${Date.now()}`;
  const tags: Id[] = (await http.post('/api/v1/tags').send({ tag: Array.from({ length: 2 * n }, (_, i) => ({ name: `nested-${stamp}-${i}` })) }).expect(200)).body.models.map((m: { model: { id: Id } }) => m.model.id);
  const count = async (work: () => Promise<unknown>): Promise<number> => {
    await http.get('/api/v1/tags/first').expect(200); // the token lookup is cached: only the write is counted
    log.length = 0;
    await work();
    return log.length;
  };
  const costs: Record<string, number> = {};
  let product: { id: Id; reviews: Array<{ id: Id }> } | null = null;
  costs.store = await count(async () => {
    const res = await http
      .post('/api/v1/products')
      .send({ name: `Nested ${stamp}`, sku: `NESTED-${stamp}`, price: 1, reviews: Array.from({ length: 2 * n }, () => ({ rating: 3 })), tags: tags.slice(0, n).map((id, i) => ({ id, position: i })) })
      .expect(200);
    product = res.body.model;
  });
  expect(product!.reviews).to.have.length(2 * n);
  const reviews = product!.reviews.map((r) => r.id);
  costs.update = await count(async () => {
    const res = await http
      .patch(`/api/v1/products/${product!.id}`)
      .send({ name: 'Renamed', reviews: { create: Array.from({ length: n }, () => ({ rating: 5 })), update: reviews.slice(0, n).map((id) => ({ id, rating: 4 })), delete: reviews.slice(n) }, tags: tags.slice(n) })
      .expect(200);
    expect(res.body.model.reviews).to.have.length(2 * n);
    expect(res.body.model.tags).to.have.length(n);
  });
  return costs;
}

async function expectConstant(example: ExampleApp, log: unknown[]): Promise<void> {
  const one = await nestedCosts(example, 1, log);
  expect(await nestedCosts(example, 25, log)).to.deep.equal(one);
}

describe('nested writes: round trips constant in the number of nested records', function () {
  this.timeout(120_000);

  it('MongoDB: the same commands for 1 and 25 nested records of each kind', async () => {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/nested_budget_test';
    uri.searchParams.set('monitorCommands', 'true');
    const example = await createExampleApp({ driver: 'mongo', mongoUri: uri.toString() });
    const commands: string[] = [];
    try {
      await example.reset();
      const connection = (example.api.registry.entry('product').declaration.model as { db: Connection }).db;
      connection.getClient().on('commandStarted', (event: CommandStartedEvent) => commands.push(event.commandName));
      await expectConstant(example, commands);
    } finally {
      await example.reset();
      await example.close();
    }
  });

  it('PostgreSQL: the same statements for 1 and 25 nested records of each kind', async () => {
    const example = await createExampleApp({ driver: 'sql', postgresUri: (await sharedPostgres()).uri });
    const statements: string[] = [];
    const sequelize = (example.api.registry.entry('product').declaration.model as { sequelize: Sequelize }).sequelize;
    try {
      await example.reset();
      (sequelize as unknown as { options: { logging: unknown } }).options.logging = (sql: string) => statements.push(sql);
      await expectConstant(example, statements);
    } finally {
      (sequelize as unknown as { options: { logging: unknown } }).options.logging = false;
      await example.reset();
      await example.close();
    }
  });
});
