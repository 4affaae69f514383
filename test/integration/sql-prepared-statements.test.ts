import { expect } from 'chai';
import { Sequelize } from 'sequelize';
import { runStatement } from '../../drivers/sql/run-statement';
import { sharedPostgres } from '../support/databases';

/**
 * The SQL driver prepares each statement once per connection (drivers/sql/run-statement.ts): the
 * same shape is parsed once, a table altered under a prepared statement still answers, and a
 * connection holds a bounded number of them.
 */
describe('SQL driver: prepared statements', () => {
  let sequelize: Sequelize;
  const table = `prepared_${Date.now()}`;

  before(async () => {
    const pg = await sharedPostgres();
    // one connection, so every statement below meets the statements prepared before it
    sequelize = new Sequelize(pg.uri, { logging: false, pool: { max: 1, min: 0 } });
    await sequelize.query(`CREATE TABLE ${table} (id int PRIMARY KEY, label int)`);
    await sequelize.query(`INSERT INTO ${table} VALUES (1, 10), (2, 20)`);
  });

  after(async () => {
    await sequelize.query(`DROP TABLE IF EXISTS ${table}`);
    await sequelize.close();
  });

  const prepared = async (): Promise<string[]> => {
    const rows = await runStatement(sequelize, { sql: "SELECT name FROM pg_prepared_statements WHERE name LIKE 'grr_%' ORDER BY name", bind: [] }, undefined);
    return rows.map((r) => String(r.name));
  };

  it('prepares a statement once and reuses it with other values', async () => {
    const sql = `SELECT id, label FROM ${table} WHERE id = $1`;
    expect(await runStatement(sequelize, { sql, bind: [1] }, undefined)).to.deep.equal([{ id: 1, label: 10 }]);
    const before = await prepared();
    expect(await runStatement(sequelize, { sql, bind: [2] }, undefined)).to.deep.equal([{ id: 2, label: 20 }]);
    expect(await prepared()).to.deep.equal(before);
    expect(before.length).to.be.greaterThan(0);
  });

  it('answers after the table changed under a prepared statement (outside a transaction)', async () => {
    const sql = `SELECT * FROM ${table} WHERE id = $1`;
    expect(await runStatement(sequelize, { sql, bind: [1] }, undefined)).to.deep.equal([{ id: 1, label: 10 }]);
    await sequelize.query(`ALTER TABLE ${table} ALTER COLUMN label TYPE text`);
    expect(await runStatement(sequelize, { sql, bind: [1] }, undefined)).to.deep.equal([{ id: 1, label: '10' }]);
    // and again, now prepared for the new columns
    expect(await runStatement(sequelize, { sql, bind: [2] }, undefined)).to.deep.equal([{ id: 2, label: '20' }]);
  });

  it('keeps at most 200 statements per connection; later shapes still run', async () => {
    for (let i = 0; i < 230; i += 1) {
      const rows = await runStatement(sequelize, { sql: `SELECT $1::int + ${i} AS n`, bind: [1] }, undefined);
      expect(rows).to.deep.equal([{ n: 1 + i }]);
    }
    expect((await prepared()).length).to.be.at.most(200);
  });

  it('runs inside a transaction on its connection', async () => {
    const rows = await sequelize.transaction((t) => runStatement(sequelize, { sql: `SELECT count(*)::int AS n FROM ${table}`, bind: [] }, t));
    expect(rows).to.deep.equal([{ n: 2 }]);
  });
});
