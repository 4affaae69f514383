import { expect } from 'chai';
import { Query } from 'pg';
import { Sequelize } from 'sequelize';
import { runStatement } from '../../drivers/sql/run-statement';
import { inTransaction, targetOf, type SqlTransaction } from '../../drivers/sql/sql-transaction';
import { sharedPostgres } from '../support/databases';

/**
 * The SQL driver's own transactions (drivers/sql/sql-transaction.ts): BEGIN written with the first
 * statement on a pipelined connection, COMMIT or ROLLBACK, the connection back in the pool as it was.
 */
/** What pg writes and when answers come, in order, while `work` runs: `sent <first word>`, `answered`. */
async function wireEvents(work: () => Promise<unknown>): Promise<string[]> {
  const events: string[] = [];
  const submit = Query.prototype.submit;
  Query.prototype.submit = function (this: Query & { text: string }, connection) {
    events.push(`sent ${this.text.split(' ')[0]}`);
    (connection as unknown as NodeJS.EventEmitter).once('readyForQuery', () => events.push('answered'));
    return submit.call(this, connection);
  };
  try {
    await work();
  } finally {
    Query.prototype.submit = submit;
  }
  return events;
}

describe('SQL driver: transactions on a pipelined pool connection', () => {
  let sequelize: Sequelize;
  const logged: string[] = [];
  const table = `sql_tx_${Date.now()}`;
  const count = async (): Promise<number> => Number((await runStatement(sequelize, { sql: `SELECT count(*)::int AS n FROM ${table}`, bind: [] }, undefined))[0].n);

  before(async () => {
    const pg = await sharedPostgres();
    // one connection: a connection left in a transaction or in pipeline mode would show at once
    sequelize = new Sequelize(pg.uri, { logging: (sql: string) => logged.push(sql), pool: { max: 1, min: 0 } });
    await sequelize.query(`CREATE TABLE ${table} (id int PRIMARY KEY, label text)`);
  });

  after(async () => {
    await sequelize.query(`DROP TABLE IF EXISTS ${table}`);
    await sequelize.close();
  });

  beforeEach(() => sequelize.query(`DELETE FROM ${table}`));

  it('writes BEGIN and the first statement before either is answered, then commits', async () => {
    const events = await wireEvents(async () => {
      logged.length = 0;
      await inTransaction(sequelize, (t) => runStatement(sequelize, { sql: `INSERT INTO ${table} VALUES ($1, $2)`, bind: [1, 'one'] }, t));
    });
    expect(events.slice(0, 2)).to.deep.equal(['sent BEGIN', 'sent INSERT']);
    expect(events).to.include('sent COMMIT');
    expect(logged.map((l) => l.replace(/^Executing \([^)]*\): /, '').split(' ')[0])).to.deep.equal(['BEGIN', 'INSERT', 'COMMIT']);
    expect(await count()).to.equal(1);
  });

  it('a failing statement rolls back what the transaction wrote and frees the connection, out of pipeline mode', async () => {
    let error: unknown;
    try {
      await inTransaction(sequelize, async (t) => {
        await runStatement(sequelize, { sql: `INSERT INTO ${table} VALUES ($1, $2)`, bind: [1, 'one'] }, t);
        // sent together: the second is refused because the first failed
        const duplicate = runStatement(sequelize, { sql: `INSERT INTO ${table} VALUES ($1, $2)`, bind: [1, 'again'] }, t);
        const after = runStatement(sequelize, { sql: `INSERT INTO ${table} VALUES ($1, $2)`, bind: [2, 'two'] }, t);
        after.catch(() => undefined);
        await duplicate;
        await after;
      });
    } catch (err) {
      error = err;
    }
    expect((error as { code?: string }).code).to.equal('23505');
    expect(await count()).to.equal(0);
    const client = (await (sequelize as unknown as { connectionManager: { getConnection(o: object): Promise<{ pipeline?: boolean }> } }).connectionManager.getConnection({}));
    expect(client.pipeline).to.equal(false);
    await (sequelize as unknown as { connectionManager: { releaseConnection(c: unknown): Promise<void> } }).connectionManager.releaseConnection(client);
  });

  it('an error thrown by the work between statements rolls back', async () => {
    const failing = inTransaction(sequelize, async (t) => {
      await runStatement(sequelize, { sql: `INSERT INTO ${table} VALUES ($1, $2)`, bind: [1, 'one'] }, t);
      throw new Error('refused by a check');
    });
    expect(await failing.then(() => 'resolved', (e: Error) => e.message)).to.equal('refused by a check');
    expect(await count()).to.equal(0);
  });

  it('a last statement marked endsWithNext goes out with its COMMIT; a statement after it is refused', async () => {
    let refused = '';
    const events = await wireEvents(async () => {
      await inTransaction(sequelize, async (t) => {
        await runStatement(sequelize, { sql: `INSERT INTO ${table} VALUES ($1, $2)`, bind: [1, 'one'] }, t);
        const tx: SqlTransaction = { driver: 'sql', t, endsWithNext: true };
        const last = targetOf(tx); // what SqlDriver makes of Transaction.endsWithNext
        await runStatement(sequelize, { sql: `INSERT INTO ${table} VALUES ($1, $2)`, bind: [2, 'two'] }, last);
        refused = (() => {
          try {
            targetOf(tx);
            return 'accepted';
          } catch (error) {
            return (error as Error).message;
          }
        })();
      });
    });
    // the first INSERT (with BEGIN), then the second with its COMMIT before any answer to them
    const second = events.lastIndexOf('sent INSERT');
    expect(events.slice(second, second + 3)).to.deep.equal(['sent INSERT', 'sent COMMIT', 'answered']);
    expect(events.slice(second).filter((e) => e.startsWith('sent'))).to.have.length(2);
    expect(refused).to.match(/after the one its transaction committed with/);
    expect(await count()).to.equal(2);
  });

  it('a failing last statement sent with its COMMIT leaves nothing written', async () => {
    const error = await inTransaction(sequelize, async (t) => {
      await runStatement(sequelize, { sql: `INSERT INTO ${table} VALUES ($1, $2)`, bind: [1, 'one'] }, t);
      t.end = 'next';
      await runStatement(sequelize, { sql: `INSERT INTO ${table} VALUES ($1, $2)`, bind: [1, 'again'] }, t);
    }).then(() => null, (e: { code?: string }) => e.code);
    expect(error).to.equal('23505');
    expect(await count()).to.equal(0);
  });

  it("a transaction's only statement runs alone, its own transaction: no BEGIN nor COMMIT; failing, it leaves nothing written", async () => {
    logged.length = 0;
    await inTransaction(sequelize, async (t) => {
      t.end = 'next';
      await runStatement(sequelize, { sql: `INSERT INTO ${table} VALUES ($1, $2), ($3, $4)`, bind: [1, 'one', 2, 'two'] }, t);
    });
    expect(logged.map((l) => l.replace(/^Executing \([^)]*\): /, '').split(' ')[0])).to.deep.equal(['INSERT']);
    expect(await count()).to.equal(2);
    const error = await inTransaction(sequelize, async (t) => {
      t.end = 'next';
      await runStatement(sequelize, { sql: `INSERT INTO ${table} VALUES ($1, $2), ($3, $4)`, bind: [3, 'three', 1, 'again'] }, t);
    }).then(() => null, (e: { code?: string }) => e.code);
    expect(error).to.equal('23505');
    expect(await count()).to.equal(2);
  });

  it('a transaction that runs no statement sends nothing', async () => {
    logged.length = 0;
    expect(await inTransaction(sequelize, async () => 42)).to.equal(42);
    expect(logged).to.deep.equal([]);
  });

  it("honours Sequelize's isolationLevel option, and refuses an unknown one", async () => {
    const pg = await sharedPostgres();
    const serializable = new Sequelize(pg.uri, { logging: false, isolationLevel: 'SERIALIZABLE' as never });
    const odd = new Sequelize(pg.uri, { logging: false, isolationLevel: 'SOMETIMES' as never });
    try {
      const [row] = await inTransaction(serializable, (t) => runStatement(serializable, { sql: 'SHOW transaction_isolation', bind: [] }, t));
      expect(row.transaction_isolation).to.equal('serializable');
      const refused = await inTransaction(odd, async () => 1).then(() => 'resolved', (e: Error) => e.message);
      expect(refused).to.match(/Unknown Sequelize isolationLevel "SOMETIMES"/);
    } finally {
      await Promise.all([serializable.close(), odd.close()]);
    }
  });
});
