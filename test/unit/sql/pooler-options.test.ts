import { expect } from 'chai';
import type { Sequelize } from 'sequelize';
import { configureSql, localSettings, sqlOptions } from '../../../drivers/sql/sql-options';
import { fallBackOn, isPoolerError, namesAllowed, resetPoolerFallback } from '../../../drivers/sql/pooler-errors';
import { sqlConnectionOptions } from '../../../example-app/sql/backend';

const fake = (): Sequelize => ({}) as Sequelize;
const duplicate = Object.assign(new Error('prepared statement "grr_1" already exists'), { code: '42P05' });
const missing = Object.assign(new Error('prepared statement "grr_1" does not exist'), { code: '26000' });

describe('SQL connection options (decisions 85, 86)', () => {
  afterEach(() => resetPoolerFallback());

  it('refuses a mode, a timeout or a replica list it does not know', () => {
    expect(() => configureSql(fake(), { preparedStatements: 'maybe' as never })).to.throw(/'auto', 'on' or 'off'/);
    expect(() => configureSql(fake(), { statementTimeout: 1.5 })).to.throw(/statementTimeout/);
    expect(() => configureSql(fake(), { idleInTransactionTimeout: -1 })).to.throw(/idleInTransactionTimeout/);
    expect(() => configureSql(fake(), { replicas: [''] })).to.throw(/replicas/);
  });

  it('timeouts become SET LOCAL text for the BEGIN; none declared, nothing added', () => {
    const db = fake();
    expect(localSettings(db)).to.equal('');
    configureSql(db, { statementTimeout: 30_000 });
    configureSql(db, { idleInTransactionTimeout: 60_000 });
    expect(localSettings(db)).to.equal('; SET LOCAL statement_timeout = 30000; SET LOCAL idle_in_transaction_session_timeout = 60000');
    // a one-statement read goes out whole in one write: it cannot idle in its transaction
    expect(localSettings(db, true)).to.equal('; SET LOCAL statement_timeout = 30000');
    expect(sqlOptions(db)).to.deep.equal({ statementTimeout: 30_000, idleInTransactionTimeout: 60_000 });
  });

  it("auto names statements until a pooler's error, then the whole process runs them unnamed", () => {
    const auto = fake();
    const other = fake();
    expect(namesAllowed(auto)).to.equal(true);
    expect(isPoolerError(duplicate) && isPoolerError(missing)).to.equal(true);
    expect(fallBackOn(auto, Object.assign(new Error('x'), { code: '23505' }))).to.equal(false);
    expect(namesAllowed(auto)).to.equal(true);
    expect(fallBackOn(auto, missing)).to.equal(true);
    expect([namesAllowed(auto), namesAllowed(other)]).to.deep.equal([false, false]);
  });

  it("on keeps naming (the pooler's error is not absorbed); off never names", () => {
    const on = fake();
    const off = fake();
    configureSql(on, { preparedStatements: 'on' });
    configureSql(off, { preparedStatements: 'off' });
    expect(fallBackOn(on, duplicate)).to.equal(false);
    expect([namesAllowed(on), namesAllowed(off)]).to.deep.equal([true, false]);
  });

  it('the example app reads DB_PREPARED_STATEMENTS and DATABASE_REPLICA_URLS; timeouts only where startup parameters do not hold', () => {
    expect(sqlConnectionOptions({ DATABASE_REPLICA_URLS: ' postgres://a/x , postgres://b/x,' }, true)).to.deep.equal({ preparedStatements: 'auto', replicas: ['postgres://a/x', 'postgres://b/x'] });
    expect(sqlConnectionOptions({ DB_PREPARED_STATEMENTS: 'off' }, false)).to.deep.equal({ preparedStatements: 'off', statementTimeout: 30_000, idleInTransactionTimeout: 60_000, replicas: [] });
    expect(() => sqlConnectionOptions({ DB_PREPARED_STATEMENTS: 'yes' }, true)).to.throw(/DB_PREPARED_STATEMENTS/);
  });
});
