import { expect } from 'chai';
import type { Sequelize } from 'sequelize';
import type { Connection } from 'mongoose';
import type { CommandStartedEvent } from 'mongodb';
import { asAdmin } from '../support/as-admin';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * Decision 79: an upsert costs the same round trips whatever its size up to a chunk (1,000
 * records), and writes with ONE statement (PostgreSQL: INSERT ... ON CONFLICT ... DO UPDATE) or
 * ONE bulkWrite (MongoDB: one `update` command) per chunk; half the records new, half matched.
 */
async function upsertCost(example: ExampleApp, n: number, log: string[]): Promise<string[]> {
  const http = asAdmin(example);
  const stamp = `${n}-${Date.now()}`;
  const existing = Array.from({ length: Math.ceil(n / 2) }, (_, i) => ({ name: `Old ${i}`, sku: `RT-${stamp}-${i}`, price: 1 }));
  await http.post('/api/v1/products').send({ product: existing }).expect(200);
  const records = Array.from({ length: n }, (_, i) => ({ name: `New ${i}`, sku: `RT-${stamp}-${i}`, price: 2 }));
  await http.get('/api/v1/tags/first').expect(200); // the token lookup is cached: only the upsert is counted
  log.length = 0;
  const res = await http.post('/api/v1/products/upsert').send({ product: records }).expect(200);
  expect(res.body.created).to.equal(n - existing.length);
  expect(res.body.updated).to.equal(existing.length);
  return [...log];
}

describe('upsert: round trips per chunk', function () {
  this.timeout(180_000);

  it('MongoDB: the same commands for 10 and 1,000 records, one update command (bulkWrite) per chunk', async () => {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/upsert_budget_test';
    uri.searchParams.set('monitorCommands', 'true');
    const example = await createExampleApp({ driver: 'mongo', mongoUri: uri.toString() });
    const commands: string[] = [];
    try {
      await example.reset();
      const connection = (example.api.registry.entry('product').declaration.model as { db: Connection }).db;
      connection.getClient().on('commandStarted', (event: CommandStartedEvent) => commands.push(event.commandName));
      // a cursor's further batches (getMore) follow the size of what is read, not the statements
      const commandsOf = async (n: number) => (await upsertCost(example, n, commands)).filter((c) => c !== 'getMore');
      const small = await commandsOf(10);
      expect(await commandsOf(1000)).to.deep.equal(small);
      expect(small.filter((c) => c === 'update')).to.have.length(1);
      expect((await upsertCost(example, 1500, commands)).filter((c) => c === 'update')).to.have.length(2);
    } finally {
      await example.reset();
      await example.close();
    }
  });

  it('PostgreSQL: the same statements for 10 and 1,000 records, one INSERT ... ON CONFLICT per chunk', async () => {
    const example = await createExampleApp({ driver: 'sql', postgresUri: (await sharedPostgres()).uri });
    const statements: string[] = [];
    const sequelize = (example.api.registry.entry('product').declaration.model as { sequelize: Sequelize }).sequelize;
    try {
      await example.reset();
      (sequelize as unknown as { options: { logging: unknown } }).options.logging = (sql: string) => statements.push(sql);
      const shape = (log: string[]) => log.map((s) => s.replace(/^Executing \([^)]*\): /, '').replace(/\$\d+|'[^']*'/g, '?').slice(0, 60));
      const small = await upsertCost(example, 10, statements);
      expect(shape(await upsertCost(example, 1000, statements))).to.deep.equal(shape(small));
      expect(small.filter((s) => s.includes('ON CONFLICT'))).to.have.length(1);
      expect((await upsertCost(example, 1500, statements)).filter((s) => s.includes('ON CONFLICT'))).to.have.length(2);
    } finally {
      (sequelize as unknown as { options: { logging: unknown } }).options.logging = false;
      await example.reset();
      await example.close();
    }
  });
});
