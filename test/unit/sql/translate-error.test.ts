import { expect } from 'chai';
import { translateSqlError } from '../../../drivers/sql/translate-error';
import { tables } from './fixture';

/** Error shapes as pg raises them and Sequelize wraps them (`parent`/`original`). */
const pg = (code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error('driver text'), { code, ...extra });
const wrapped = (inner: Error, name = 'SequelizeDatabaseError') => Object.assign(new Error('wrapped'), { name, parent: inner, original: inner });

const cases: [string, unknown, unknown][] = [
  ['unique from the detail', wrapped(pg('23505', { table: 'products', detail: 'Key (sku)=(A1) already exists.' }), 'SequelizeUniqueConstraintError'), { type: 'unique_violation', field: 'sku' }],
  ['unique on two columns names the first', pg('23505', { table: 'products', detail: 'Key (name, sku)=(a, b) already exists.' }), { type: 'unique_violation', field: 'name' }],
  ['unique from Sequelize fields', Object.assign(wrapped(pg('23505')), { fields: { email: 'x' } }), { type: 'unique_violation', field: 'email' }],
  ['foreign key on insert', wrapped(pg('23503', { table: 'products', detail: 'Key (category_id)=(9) is not present in table "categories".' })), { type: 'foreign_key_violation', field: 'category_id' }],
  ['deadlock (after the driver retried it)', wrapped(pg('40P01')), { type: 'conflict' }],
  ['serialization failure', pg('40001'), { type: 'conflict' }],
  ['statement_timeout', wrapped(pg('57014')), { type: 'timeout' }],
  ['pool acquire timeout', Object.assign(new Error('Operation timeout'), { name: 'SequelizeConnectionAcquireTimeoutError' }), { type: 'connection_error' }],
  ['restrict on delete', wrapped(pg('23001', { table: 'products' })), { type: 'foreign_key_violation' }],
  ['not null', wrapped(pg('23502', { table: 'products', column: 'name' })), { type: 'not_null_violation', field: 'name' }],
  ['invalid text', wrapped(pg('22P02')), { type: 'bad_request' }],
  ['out of range', wrapped(pg('22003')), { type: 'bad_request' }],
  ['bad datetime', wrapped(pg('22007')), { type: 'bad_request' }],
  ['datetime overflow', wrapped(pg('22008')), { type: 'bad_request' }],
  ['check violation', wrapped(pg('23514')), { type: 'bad_request' }],
  ['string too long', wrapped(pg('22001')), { type: 'bad_request' }],
  ['connection refused', Object.assign(new Error('x'), { name: 'SequelizeConnectionRefusedError', parent: pg('ECONNREFUSED') }), { type: 'connection_error' }],
  ['Sequelize ConnectionError', Object.assign(new Error('x'), { name: 'SequelizeConnectionError' }), { type: 'connection_error' }],
  ['connection terminated', wrapped(new Error('Connection terminated unexpectedly')), { type: 'connection_error' }],
  ['server shutting down', wrapped(pg('57P01')), { type: 'connection_error' }],
  ['Sequelize validation', Object.assign(new Error('x'), { name: 'SequelizeValidationError', errors: [{ path: 'email', message: 'bad' }, { path: 'email', message: 'worse' }] }), { type: 'validation_error', errors: { email: ['bad', 'worse'] } }],
  ['unknown SQL error', wrapped(pg('42P01')), null],
  ['not an error', 'boom', null],
];

describe('sql driver: translateError', () => {
  for (const [title, error, expected] of cases) {
    it(title, () => {
      expect(translateSqlError(error, tables)).to.deep.equal(expected);
    });
  }
});
