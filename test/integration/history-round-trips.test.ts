import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Connection } from 'mongoose';
import type { CommandStartedEvent } from 'mongodb';
import { asAdmin } from '../support/as-admin';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * Decision 83 / issue 51: history adds at most one statement (PostgreSQL) or one bulk write
 * (MongoDB) to a store, an update and a batch update of 100, counted against the same requests on
 * the same database through an app whose orders keep no history. On PostgreSQL an UPDATE appends
 * its entries in its own statement (before values from the row's pre-statement version); on MongoDB an update reads its records once more before writing
 * (counted here, as it is: one read and one bulkWrite).
 */
type Step = { name: string; run: (example: ExampleApp, ids: unknown[]) => Promise<void> };

const steps = (user: unknown, tag: string): Step[] => [
  { name: 'store', run: async (e) => void (await asAdmin(e).post('/api/v1/orders').send({ user_id: user, number: `RT-${tag}-${Math.random()}`, total: 1, placed_at: '2026-11-01T10:00:00.000Z' }).expect(200)) },
  { name: 'update', run: async (e, ids) => void (await asAdmin(e).patch(`/api/v1/orders/${ids[0]}`).send({ notes: `n ${Math.random()}` }).expect(200)) },
  { name: 'batch of 100', run: async (e, ids) => void (await asAdmin(e).patch('/api/v1/orders/batch').send({ order: ids.map((id) => ({ id, notes: `b ${Math.random()}` })) }).expect(200)) },
];

async function counted(example: ExampleApp, log: string[], user: unknown, tag: string, keep: (entry: string) => boolean): Promise<Record<string, string[]>> {
  const http = asAdmin(example);
  const created = await http.post('/api/v1/orders').send({ order: Array.from({ length: 100 }, (_, i) => ({ user_id: user, number: `RT-${tag}-${i}`, total: 1, placed_at: '2026-11-01T10:00:00.000Z' })) }).expect(200);
  const ids = (created.body.models as Array<{ model: { id: unknown } }>).map((m) => m.model.id);
  const out: Record<string, string[]> = {};
  for (const step of steps(user, tag)) {
    await step.run(example, ids); // warm: history tables made, tokens cached
    log.length = 0;
    await step.run(example, ids);
    out[step.name] = log.filter(keep);
  }
  return out;
}

describe('history: round trips added per write (decision 83)', function () {
  this.timeout(180_000);

  it('PostgreSQL: one statement (round trip) more for a store, none for an update and a batch update of 100', async () => {
    const uri = (await sharedPostgres()).uri;
    const on = await createExampleApp({ driver: 'sql', postgresUri: uri });
    const off = await createExampleApp({ driver: 'sql', postgresUri: uri, adminToken: on.info.adminToken, history: { orders: false } });
    const statements: string[] = [];
    const sequelizes = [on, off].map((e) => (e.api.registry.entry('order').declaration.model as { sequelize: Sequelize }).sequelize);
    try {
      await on.reset();
      const user = (await asAdmin(on).post('/api/v1/users').send({ name: 'RT', email: `rt-${Date.now()}@example.test` }).expect(200)).body.model.id;
      for (const s of sequelizes) (s as unknown as { options: { logging: unknown } }).options.logging = (sql: string) => statements.push(sql);
      // BEGIN goes out with the first statement and COMMIT with the last (pipelined, run-statement.ts): round trips are the other statements
      const keep = (s: string) => !/: (BEGIN|COMMIT)/.test(s);
      const withHistory = await counted(on, statements, user, 'on', keep);
      const without = await counted(off, statements, user, 'off', keep);
      // PostgreSQL 18 (the embedded server): the values before come from RETURNING's `old`, no join;
      // an older one (DATABASE_URL) joins the row as the statement's snapshot has it
      const [server] = await sequelizes[0].query<{ n: number }>(`SELECT current_setting('server_version_num')::integer AS "n"`, { type: QueryTypes.SELECT });
      expect(withHistory['batch of 100'].join('\n')).to.include(server.n >= 180000 ? `jsonb_build_object('notes', old."notes")` : `jsonb_build_object('notes', "o"."notes")`);
      for (const name of Object.keys(without)) {
        const added = withHistory[name].filter((s) => s.includes('grr_history_'));
        expect(added, name).to.have.length(1);
        // a store appends with one statement; an update's own statement appends (a CTE), adding none
        expect(withHistory[name].length - without[name].length, `${name}: ${JSON.stringify(withHistory[name].map((s) => s.slice(50, 110)))} vs ${JSON.stringify(without[name].map((s) => s.slice(50, 110)))}`).to.equal(name === 'store' ? 1 : 0);
      }
    } finally {
      for (const s of sequelizes) (s as unknown as { options: { logging: unknown } }).options.logging = false;
      await on.reset();
      await on.close();
      await off.close();
    }
  });

  it('MongoDB: one bulkWrite more (plus, for updates, the read of the records as they were)', async () => {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/history_budget_test';
    uri.searchParams.set('monitorCommands', 'true');
    const on = await createExampleApp({ driver: 'mongo', mongoUri: uri.toString() });
    const off = await createExampleApp({ driver: 'mongo', mongoUri: uri.toString(), adminToken: on.info.adminToken, history: { orders: false } });
    const commands: string[] = [];
    try {
      await on.reset();
      for (const e of [on, off]) (e.api.registry.entry('order').declaration.model as { db: Connection }).db.getClient().on('commandStarted', (event: CommandStartedEvent) => commands.push(`${event.commandName} ${String((event.command as Record<string, unknown>)[event.commandName])}`));
      const user = (await asAdmin(on).post('/api/v1/users').send({ name: 'RT', email: `rt-${Date.now()}@example.test` }).expect(200)).body.model.id;
      const keep = (c: string) => !c.startsWith('getMore') && !c.startsWith('commitTransaction') && !c.startsWith('abortTransaction');
      const withHistory = await counted(on, commands, user, 'on', keep);
      const without = await counted(off, commands, user, 'off', keep);
      for (const name of Object.keys(without)) {
        const writes = withHistory[name].filter((c) => c === 'insert grr_history_orders');
        expect(writes, `${name}: ${JSON.stringify(withHistory[name])}`).to.have.length(1);
        const budget = name === 'store' ? 1 : 2;
        expect(withHistory[name].length - without[name].length, `${name}: ${JSON.stringify(withHistory[name])} vs ${JSON.stringify(without[name])}`).to.equal(budget);
      }
    } finally {
      await on.reset();
      await on.close();
      await off.close();
    }
  });
});
