import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Sequelize } from 'sequelize';
import supertest from 'supertest';
import { runStatement, withLease } from '../../drivers/sql/run-statement';
import { inTransaction } from '../../drivers/sql/sql-transaction';
import { configureSql } from '../../drivers/sql/sql-options';
import { namesAllowed, resetPoolerFallback } from '../../drivers/sql/pooler-errors';
import { pgbouncerBinary, startPgBouncer, type PoolerHandle } from '../../lib/testing/start-pgbouncer';
import { startPostgres, type PostgresHandle } from '../../lib/testing/start-postgres';
import { skipUnless } from '../support/needs-server';

const ROOT = join(__dirname, '../..');
/** The contract suite's files run through the pooler (all of them: about a minute for the SQL half). */
const CONTRACT_FILES = process.env.POOLER_CONTRACT_FILES ?? 'test/contract/**/*.test.ts';

interface App {
  app: import('express').Express;
  close(): Promise<void>;
  info: { adminToken: string };
}

/** The example app on `uri` with DB_PREPARED_STATEMENTS=`mode`. */
async function exampleApp(uri: string, mode: string): Promise<App> {
  const saved = process.env.DB_PREPARED_STATEMENTS;
  process.env.DB_PREPARED_STATEMENTS = mode;
  try {
    const { createExampleApp } = (await import('../../example-app/app')) as unknown as { createExampleApp(o: object): Promise<App> };
    return await createExampleApp({ driver: 'sql', postgresUri: uri, seed: false });
  } finally {
    if (saved === undefined) delete process.env.DB_PREPARED_STATEMENTS;
    else process.env.DB_PREPARED_STATEMENTS = saved;
  }
}

/** 32 clients for `ms`: shows, lists with a relation, creates and updates; every status seen. */
async function mixedLoad(app: App, ms: number): Promise<Map<number, number>> {
  const agent = () => supertest(app.app);
  const auth = { Authorization: `Bearer ${app.info.adminToken}` };
  const statuses = new Map<number, number>();
  const count = (status: number): void => void statuses.set(status, (statuses.get(status) ?? 0) + 1);
  const category = await agent().post('/api/v1/categories').set(auth).send({ name: `Load ${Date.now()}` });
  const end = Date.now() + ms;
  let n = 0;
  await Promise.all(
    Array.from({ length: 32 }, async (_, client) => {
      let own: number | null = null;
      while (Date.now() < end) {
        n += 1;
        const step = (n + client) % 4;
        let res: supertest.Response;
        if (step === 0 || own === null) {
          res = await agent().post('/api/v1/products').set(auth).send({ name: `P${client}-${n}`, sku: `L-${client}-${n}-${Date.now()}`, price: 10, stock: 1, status: 'active', category_id: category.body.model?.id });
          if (res.status === 200) own = (res.body.model?.id ?? null) as number | null;
        } else if (step === 1) res = await agent().patch(`/api/v1/products/${own}`).set(auth).send({ stock: n });
        else if (step === 2) res = await agent().get(`/api/v1/products/${own}`).set(auth).query({ relations: 'category' });
        else res = await agent().get('/api/v1/products').set(auth).query({ relations: 'category', pagination: JSON.stringify({ page: 1, pageSize: 10 }), oper: JSON.stringify({ and: ['price|>=|5'] }) });
        count(res.status);
      }
    }),
  );
  return statuses;
}

const failures = (statuses: Map<number, number>): number => [...statuses].filter(([s]) => s >= 500).reduce((sum, [, c]) => sum + c, 0);

describe('behind PgBouncer in transaction mode (issue 50, decision 85)', function () {
  this.timeout(240_000);
  let server: PostgresHandle;
  let pooler: PoolerHandle;

  before(async function () {
    skipUnless(this, pgbouncerBinary() !== null, 'pgbouncer is not on PATH: the pooler tests are pending (apt-get install pgbouncer)');
    server = await startPostgres();
    pooler = await startPgBouncer(server.uri, { poolSize: 4 });
  });

  after(async () => {
    await pooler?.stop();
    await server?.stop();
  });

  afterEach(() => resetPoolerFallback());

  it('a stock PgBouncer refuses a statement_timeout startup parameter, so the example app sends none', async () => {
    const { Client } = await import('pg');
    const refused = new Client({ connectionString: pooler.uri, statement_timeout: 1000 } as never);
    const error = await refused.connect().then(() => null, (e: Error) => e);
    await refused.end().catch(() => undefined);
    expect(error?.message).to.match(/unsupported startup parameter: statement_timeout/);
    const app = await exampleApp(pooler.uri, 'auto');
    try {
      const res = await supertest(app.app).get('/api/v1/products').set('Authorization', `Bearer ${app.info.adminToken}`);
      expect(res.status).to.equal(200);
    } finally {
      await app.close();
    }
  });

  it('timeouts hold through the pooler: SET LOCAL in transactions and reads', async () => {
    const sequelize = new Sequelize(pooler.uri, { dialect: 'postgres', logging: false, pool: { max: 3 } });
    configureSql(sequelize, { statementTimeout: 200, preparedStatements: 'off' });
    try {
      const sleep = { sql: 'SELECT pg_sleep(1)', bind: [] };
      const inTx = await inTransaction(sequelize, async (t) => {
        await runStatement(sequelize, { sql: 'SELECT 1', bind: [] }, t);
        return runStatement(sequelize, sleep, t);
      }).then(() => null, (e: { code?: string }) => e.code);
      const read = await withLease(sequelize, (lease) => runStatement(sequelize, sleep, lease)).then(() => null, (e: { code?: string }) => e.code);
      expect([inTx, read]).to.deep.equal(['57014', '57014']); // query_canceled by statement_timeout
      // the setting was the transaction's own: the pooler's server connections keep no timeout
      const { Client } = await import('pg');
      const plain = new Client({ connectionString: pooler.uri });
      await plain.connect();
      try {
        for (let i = 0; i < 4; i += 1) expect((await plain.query('SHOW statement_timeout')).rows[0].statement_timeout).to.equal('0');
      } finally {
        await plain.end();
      }
    } finally {
      await sequelize.close();
    }
  });

  it("32 clients of mixed reads and writes: 'auto' answers every request (no 500), 'on' shows what it saves them from", async () => {
    const auto = await exampleApp(pooler.uri, 'auto');
    let autoStatuses: Map<number, number>;
    try {
      autoStatuses = await mixedLoad(auto, 4_000);
    } finally {
      await auto.close();
    }
    expect(failures(autoStatuses), JSON.stringify([...autoStatuses])).to.equal(0);
    // the pooler did lose names (the process switched to unnamed statements), and no client saw it
    expect(namesAllowed({} as Sequelize), 'the fallback happened').to.equal(false);
    expect([...autoStatuses.values()].reduce((a, b) => a + b, 0)).to.be.greaterThan(100);
    resetPoolerFallback();
    const on = await exampleApp(pooler.uri, 'on');
    try {
      const onStatuses = await mixedLoad(on, 2_000);
      expect(failures(onStatuses), 'named statements through a transaction-mode pooler fail').to.be.greaterThan(0);
    } finally {
      await on.close();
    }
  });

  it("the contract suite's SQL half passes through the pooler, with no prepared-statement error", async () => {
    const files = CONTRACT_FILES.split(',');
    const args = ['mocha', '--no-config', '--node-option', 'import=tsx', '--require', 'test/support/global-hooks.ts', '--extension', 'ts', '--timeout', '60000', '--exit', ...files];
    const child = spawn('npx', args, { cwd: ROOT, env: { ...process.env, CONTRACT_DRIVERS: 'sql', CONTRACT_SQL_POOLER: '1', DB_PREPARED_STATEMENTS: 'auto', TESTKIT_QUIET: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const plain = out.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex
    expect(plain, plain.slice(-3000)).to.match(/\d+ passing/);
    expect(plain).not.to.match(/prepared statement "grr_\d+" (already exists|does not exist)/);
    expect(code, plain.slice(-3000)).to.equal(0);
  });
});
