import { expect } from 'chai';
import { Sequelize } from 'sequelize';
import { runStatement } from '../../drivers/sql/run-statement';
import { inTransaction } from '../../drivers/sql/sql-transaction';
import { sharedPostgres } from '../support/databases';

/**
 * The SQL driver runs its statements on the pg clients of Sequelize's pool and transactions
 * (drivers/sql/run-statement.ts, sql-transaction.ts): unnamed unless compiled as `prepare` (keys and equality only),
 * and Sequelize's `logging` still sees each statement.
 */
describe('SQL driver: statements on Sequelize pool clients', () => {
  let sequelize: Sequelize;
  const logged: string[] = [];
  const table = `run_statement_${Date.now()}`;

  before(async () => {
    const pg = await sharedPostgres();
    sequelize = new Sequelize(pg.uri, { logging: (sql: string) => logged.push(sql), pool: { max: 1, min: 0 } });
    await sequelize.query(`CREATE TABLE ${table} (id int PRIMARY KEY, label text)`);
    await sequelize.query(`INSERT INTO ${table} VALUES (1, 'one'), (2, 'two')`);
  });

  after(async () => {
    await sequelize.query(`DROP TABLE IF EXISTS ${table}`);
    await sequelize.close();
  });

  it('binds values, logs the statement and prepares nothing on the server', async () => {
    logged.length = 0;
    const sql = `SELECT id, label FROM ${table} WHERE id = ANY($1) ORDER BY id`;
    expect(await runStatement(sequelize, { sql, bind: [[2, 1]] }, undefined)).to.deep.equal([{ id: 1, label: 'one' }, { id: 2, label: 'two' }]);
    expect(logged).to.deep.equal([`Executing (default): ${sql}`]);
    const prepared = await runStatement(sequelize, { sql: 'SELECT count(*)::int AS n FROM pg_prepared_statements', bind: [] }, undefined);
    expect(prepared).to.deep.equal([{ n: 0 }]);
  });

  it('a statement compiled as prepare runs named: parsed once per connection, the same rows', async () => {
    const sql = `SELECT id, label FROM ${table} WHERE id = $1`;
    expect(await runStatement(sequelize, { sql, bind: [1], prepare: true }, undefined)).to.deep.equal([{ id: 1, label: 'one' }]);
    expect(await runStatement(sequelize, { sql, bind: [2], prepare: true }, undefined)).to.deep.equal([{ id: 2, label: 'two' }]);
    const prepared = await runStatement(sequelize, { sql: 'SELECT statement FROM pg_prepared_statements', bind: [] }, undefined);
    expect(prepared.map((r) => r.statement)).to.deep.equal([sql]);
  });

  it('a prepared statement whose table changed a column type under it runs unnamed instead of failing', async () => {
    const other = `${table}_alter`;
    await sequelize.query(`CREATE TABLE ${other} (id int PRIMARY KEY, n int)`);
    try {
      await sequelize.query(`INSERT INTO ${other} VALUES (1, 5)`);
      const sql = `SELECT id, n FROM ${other} WHERE id = $1`;
      expect(await runStatement(sequelize, { sql, bind: [1], prepare: true }, undefined)).to.deep.equal([{ id: 1, n: 5 }]);
      await sequelize.query(`ALTER TABLE ${other} ALTER COLUMN n TYPE text`);
      expect(await runStatement(sequelize, { sql, bind: [1], prepare: true }, undefined)).to.deep.equal([{ id: 1, n: '5' }]);
      expect(await runStatement(sequelize, { sql, bind: [1], prepare: true }, undefined)).to.deep.equal([{ id: 1, n: '5' }]);
    } finally {
      await sequelize.query(`DROP TABLE ${other}`);
    }
  });

  it('runs inside a transaction on its connection, and sees its writes', async () => {
    const rows = await inTransaction(sequelize, async (t) => {
      await runStatement(sequelize, { sql: `INSERT INTO ${table} VALUES ($1, $2)`, bind: [3, 'three'] }, t);
      return runStatement(sequelize, { sql: `SELECT count(*)::int AS n FROM ${table}`, bind: [] }, t);
    });
    expect(rows).to.deep.equal([{ n: 3 }]);
  });

  it('a failing statement rejects with the pg error and frees the connection', async () => {
    let error: unknown;
    try {
      await runStatement(sequelize, { sql: `SELECT * FROM ${table}_missing`, bind: [] }, undefined);
    } catch (err) {
      error = err;
    }
    expect((error as { code?: string }).code).to.equal('42P01');
    // the pool has one connection: this would wait forever had it not been released
    expect(await runStatement(sequelize, { sql: 'SELECT 1 AS one', bind: [] }, undefined)).to.deep.equal([{ one: 1 }]);
  });
});
