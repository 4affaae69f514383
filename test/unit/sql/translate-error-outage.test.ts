import { expect } from 'chai';
import { translateSqlError } from '../../../drivers/sql/translate-error';
import { tables } from './fixture';

/**
 * Issue 35: every way PostgreSQL can be unavailable is a 503 connection_error, a statement or
 * client-side time limit a 503 timeout; never a 500. Shapes as pg raises them and Sequelize wraps them.
 */
const pg = (code: string, message = 'driver text') => Object.assign(new Error(message), { code });
const wrapped = (inner: Error, name = 'SequelizeDatabaseError') => Object.assign(new Error(inner.message), { name, parent: inner, original: inner });
const named = (name: string, parent?: Error) => Object.assign(new Error('x'), { name, ...(parent ? { parent, original: parent } : {}) });

const unavailable: [string, unknown][] = [
  ['admin shutdown (57P01)', wrapped(pg('57P01', 'terminating connection due to administrator command'))],
  ['crash shutdown (57P02)', wrapped(pg('57P02'))],
  ['cannot connect now (57P03, starting up)', named('SequelizeConnectionError', pg('57P03', 'the database system is starting up'))],
  ['idle session timeout (57P05)', wrapped(pg('57P05'))],
  ['too many connections (53300)', named('SequelizeConnectionError', pg('53300'))],
  ['connection failure (08006)', wrapped(pg('08006'))],
  ['connection does not exist (08003)', wrapped(pg('08003'))],
  ['unable to connect (08001)', named('SequelizeConnectionError', pg('08001'))],
  ['Connection terminated unexpectedly (reset mid-query)', wrapped(new Error('Connection terminated unexpectedly'))],
  ['ECONNRESET', wrapped(pg('ECONNRESET', 'read ECONNRESET'))],
  ['ECONNREFUSED', named('SequelizeConnectionRefusedError', pg('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))],
  ['EPIPE', wrapped(pg('EPIPE'))],
  ['ETIMEDOUT', named('SequelizeConnectionError', pg('ETIMEDOUT'))],
  ['pool acquire time-out', named('SequelizeConnectionAcquireTimeoutError')],
  ['connect time-out (a stalled server)', named('SequelizeConnectionTimedOutError')],
  ['pg connect time-out text', named('SequelizeConnectionError', new Error('timeout exceeded when trying to connect'))],
  ['a client that had a connection error', wrapped(new Error('Client has encountered a connection error and is not queryable'))],
  ['host not found', named('SequelizeHostNotFoundError')],
  ['host not reachable', named('SequelizeHostNotReachableError')],
];

describe('sql translateError: the database unavailable', () => {
  for (const [title, error] of unavailable) {
    it(`${title}: connection_error`, () => {
      expect(translateSqlError(error, tables)).to.deep.equal({ type: 'connection_error' });
    });
  }

  it('statement_timeout, lock_timeout and pg\'s client-side query_timeout: timeout', () => {
    expect(translateSqlError(wrapped(pg('57014')), tables)).to.deep.equal({ type: 'timeout' });
    expect(translateSqlError(wrapped(pg('55P03')), tables)).to.deep.equal({ type: 'timeout' });
    expect(translateSqlError(wrapped(new Error('Query read timeout')), tables)).to.deep.equal({ type: 'timeout' });
  });

  it('other SQL errors stay what they were', () => {
    expect(translateSqlError(wrapped(pg('42P01')), tables)).to.equal(null);
    expect(translateSqlError(wrapped(pg('40001')), tables)).to.deep.equal({ type: 'conflict' });
  });
});
