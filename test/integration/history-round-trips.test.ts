import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Connection } from 'mongoose';
import type { CommandStartedEvent } from 'mongodb';
import { asAdmin } from '../support/as-admin';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * Decision 83 / issue 48: history adds at most ONE statement (PostgreSQL) or ONE bulk write
 * (MongoDB) to each write: store, update, batch update of 100, upsert, destroy and batch destroy,
 * counted against the same requests on the same database through an app whose orders keep no
 * history. PostgreSQL: an UPDATE appends its own entries (none added); an upsert and a DELETE
 * answer their rows as they were, and one statement appends. MongoDB: the append's bulkWrite only;
 * the records as they were come from the read the write makes anyway in its transaction (made
 * whole), or, for an upsert, the values its write is conditioned on. Each counted write's entries
 * are counted too: one per record it changed.
 */
type Step = { name: string; entries: number; run: (example: ExampleApp, ids: unknown[], round: number) => Promise<void> };

const steps = (user: unknown, tag: string): Step[] => {
  const order = (number: string, total = 1) => ({ user_id: user, number, total, placed_at: '2026-11-01T10:00:00.000Z' });
  return [
    { name: 'store', entries: 1, run: async (e) => void (await asAdmin(e).post('/api/v1/orders').send(order(`RT-${tag}-${Math.random()}`)).expect(200)) },
    { name: 'update', entries: 1, run: async (e, ids) => void (await asAdmin(e).patch(`/api/v1/orders/${ids[0]}`).send({ notes: `n ${Math.random()}` }).expect(200)) },
    { name: 'batch of 100', entries: 100, run: async (e, ids) => void (await asAdmin(e).patch('/api/v1/orders/batch').send({ order: ids.map((id) => ({ id, notes: `b ${Math.random()}` })) }).expect(200)) },
    // one matched record changed, one new
    { name: 'upsert', entries: 2, run: async (e, _ids, round) => void (await asAdmin(e).post('/api/v1/orders/upsert').send({ order: [order(`RT-${tag}-1`, 2 + round), order(`RT-${tag}-new-${round}`)] }).expect(200)) },
    { name: 'destroy', entries: 1, run: async (e, ids, round) => void (await asAdmin(e).delete(`/api/v1/orders/${ids[90 + round]}`).expect(200)) },
    { name: 'batch destroy of 5', entries: 5, run: async (e, ids, round) => void (await asAdmin(e).delete('/api/v1/orders/batch').send({ ids: ids.slice(70 + 5 * round, 75 + 5 * round) }).expect(200)) },
  ];
};

interface Counted {
  log: string[];
  entries: number;
}

async function counted(example: ExampleApp, log: string[], user: unknown, tag: string, keep: (entry: string) => boolean, entries: () => Promise<number>): Promise<Record<string, Counted>> {
  const http = asAdmin(example);
  const created = await http.post('/api/v1/orders').send({ order: Array.from({ length: 100 }, (_, i) => ({ user_id: user, number: `RT-${tag}-${i}`, total: 1, placed_at: '2026-11-01T10:00:00.000Z' })) }).expect(200);
  const ids = (created.body.models as Array<{ model: { id: unknown } }>).map((m) => m.model.id);
  const out: Record<string, Counted> = {};
  for (const step of steps(user, tag)) {
    await step.run(example, ids, 0); // warm: history tables made, tokens cached
    const from = await entries();
    log.length = 0;
    await step.run(example, ids, 1);
    out[step.name] = { log: log.filter(keep), entries: 0 };
    out[step.name].entries = (await entries()) - from;
  }
  return out;
}

function expectAdded(on: Record<string, Counted>, off: Record<string, Counted>, added: (name: string) => number, historyOps: (log: string[]) => string[], retained: boolean): void {
  for (const step of steps(null, '')) {
    const [withHistory, without] = [on[step.name], off[step.name]];
    const detail = `${step.name}: ${JSON.stringify(withHistory.log.map((s) => s.slice(0, 90)))} vs ${JSON.stringify(without.log.map((s) => s.slice(0, 90)))}`;
    expect(withHistory.log.length - without.log.length, detail).to.equal(added(step.name)).and.to.be.at.most(1);
    // one operation of history, whatever the number of records
    expect(historyOps(withHistory.log), detail).to.have.length(1);
    // with retention an entry may replace or prune an older one: the count says nothing
    if (!retained) expect(withHistory.entries, `${step.name}: entries appended`).to.equal(step.entries);
    expect(without.entries, `${step.name}: entries without history`).to.equal(0);
  }
}

type HistorySetting = true | { retain: { versions: number } };

async function postgresBudget(setting: HistorySetting): Promise<void> {
  const uri = (await sharedPostgres()).uri;
  const on = await createExampleApp({ driver: 'sql', postgresUri: uri, history: { orders: setting } });
  const off = await createExampleApp({ driver: 'sql', postgresUri: uri, adminToken: on.info.adminToken, history: { orders: false } });
  const statements: string[] = [];
  const sequelizes = [on, off].map((e) => (e.api.registry.entry('order').declaration.model as { sequelize: Sequelize }).sequelize);
  const entries = async () => {
    const [rows] = await sequelizes[0].query('SELECT count(*)::int AS "n" FROM "grr_history_orders"', { logging: false });
    return (rows as Array<{ n: number }>)[0].n;
  };
  try {
    await on.reset();
    const user = (await asAdmin(on).post('/api/v1/users').send({ name: 'RT', email: `rt-${Date.now()}@example.test` }).expect(200)).body.model.id;
    for (const s of sequelizes) (s as unknown as { options: { logging: unknown } }).options.logging = (sql: string) => statements.push(sql);
    // BEGIN goes out with the first statement and COMMIT with the last (pipelined, run-statement.ts): round trips are the other statements
    const keep = (s: string) => !/: (BEGIN|COMMIT)/.test(s);
    const withHistory = await counted(on, statements, user, 'on', keep, entries);
    const without = await counted(off, statements, user, 'off', keep, entries);
    // PostgreSQL 18 (the embedded server): the values before come from RETURNING's `old`, no join;
    // an older one (DATABASE_URL) joins the row as the statement's snapshot has it
    const [server] = await sequelizes[0].query<{ n: number }>(`SELECT current_setting('server_version_num')::integer AS "n"`, { type: QueryTypes.SELECT });
    expect(withHistory['batch of 100'].log.join('\n')).to.include(server.n >= 180000 ? 'old."notes" AS "grr_b0"' : '"o"."notes" AS "grr_b0"');
    // an update's own statement appends (a CTE); the others' append is the statement added; a prune rides in the same statement
    expectAdded(withHistory, without, (name) => (name === 'update' || name === 'batch of 100' ? 0 : 1), (log) => log.filter((s) => s.includes('grr_history_')), setting !== true);
  } finally {
    for (const s of sequelizes) (s as unknown as { options: { logging: unknown } }).options.logging = false;
    await on.reset();
    await on.close();
    await off.close();
  }
}

async function mongoBudget(setting: HistorySetting): Promise<void> {
  const uri = new URL((await sharedMongo()).uri);
  uri.pathname = '/history_budget_test';
  uri.searchParams.set('monitorCommands', 'true');
  const on = await createExampleApp({ driver: 'mongo', mongoUri: uri.toString(), history: { orders: setting } });
  const off = await createExampleApp({ driver: 'mongo', mongoUri: uri.toString(), adminToken: on.info.adminToken, history: { orders: false } });
  const commands: string[] = [];
  const db = (on.api.registry.entry('order').declaration.model as { db: Connection }).db;
  const entries = async () => (db.db ? await db.db.collection('grr_history_orders').countDocuments() : 0);
  try {
    await on.reset();
    for (const e of [on, off]) (e.api.registry.entry('order').declaration.model as { db: Connection }).db.getClient().on('commandStarted', (event: CommandStartedEvent) => commands.push(`${event.commandName} ${String((event.command as Record<string, unknown>)[event.commandName])}`));
    const user = (await asAdmin(on).post('/api/v1/users').send({ name: 'RT', email: `rt-${Date.now()}@example.test` }).expect(200)).body.model.id;
    // the count of entries is no command of the write
    const keep = (c: string) => !c.startsWith('getMore') && !c.startsWith('commitTransaction') && !c.startsWith('abortTransaction') && !c.startsWith('count');
    const withHistory = await counted(on, commands, user, 'on', keep, entries);
    const without = await counted(off, commands, user, 'off', keep, entries);
    expectAdded(withHistory, without, () => 1, (log) => log.filter((c) => c.includes('grr_history_')), setting !== true);
    // one command: inserts, or with retention replacements of the entries retention drops (no delete)
    const command = setting === true ? 'insert grr_history_orders' : 'update grr_history_orders';
    for (const name of Object.keys(withHistory)) expect(withHistory[name].log.filter((c) => c.includes('grr_history_')), name).to.deep.equal([command]);
  } finally {
    await on.reset();
    await on.close();
    await off.close();
  }
}

describe('history: round trips added per write (decision 83)', function () {
  this.timeout(180_000);

  it('PostgreSQL: one statement more for a store, an upsert and a delete, none for an update and a batch update of 100', () => postgresBudget(true));
  it('PostgreSQL with retention: the same (the prune is a CTE of the append)', () => postgresBudget({ retain: { versions: 2 } }));
  it('MongoDB: one bulkWrite more for every write, no read added', () => mongoBudget(true));
  it('MongoDB with retention: the same, one command (entries replace the ones retention drops)', () => mongoBudget({ retain: { versions: 2 } }));
});
