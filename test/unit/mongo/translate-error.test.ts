import { expect } from 'chai';
import mongoose from 'mongoose';
import { MongoBulkWriteError, MongoNetworkError, MongoServerError, MongoServerSelectionError } from 'mongodb';
import { createMongoDriver } from '../../../drivers/mongo';

const driver = createMongoDriver();

const Probe = mongoose.model('TranslateErrorProbe', new mongoose.Schema({ n: { type: Number, required: true } }));
let validationError: unknown;
before(async () => {
  validationError = await new Probe({}).validate().then(() => null, (error: unknown) => error);
});

function castError(): unknown {
  return new mongoose.Error.CastError('ObjectId', 'nope', 'category_id');
}

describe('mongo translateError', () => {
  const dup = new MongoServerError({ message: 'E11000 duplicate key error collection: db.products index: sku_1 dup key: { sku: "A" }', code: 11000, keyPattern: { sku: 1 }, keyValue: { sku: 'A' } });
  const cases: Array<[string, unknown, unknown]> = [
    ['E11000 with keyPattern', dup, { type: 'unique_violation', field: 'sku' }],
    ['E11000 with only the index name in the message', new MongoServerError({ message: 'E11000 duplicate key error collection: db.tags index: name_1 dup key: { : "x" }', code: 11000 }), { type: 'unique_violation', field: 'name' }],
    [
      'E11000 inside a bulk write',
      new MongoBulkWriteError({ message: 'bulk', code: 65, writeErrors: [{ index: 1, code: 11000, errmsg: 'E11000 duplicate key error index: email_1 dup key', keyPattern: { email: 1 } }] } as never, { insertedCount: 0 } as never),
      { type: 'unique_violation', field: 'email' },
    ],
    ['CastError', castError(), { type: 'bad_request', field: 'category_id' }],
    ['network error', new MongoNetworkError('connection reset'), { type: 'connection_error' }],
    ['server selection', new MongoServerSelectionError('no server', { type: 'Unknown' } as never), { type: 'connection_error' }],
    ['a bulk write whose cause is a refused connection', Object.assign(new Error('connect ECONNREFUSED'), { name: 'MongoBulkWriteError', cause: new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:1') }), { type: 'connection_error' }],
    ['mongoose buffering time-out of a dead connection', Object.assign(new Error('Operation `things.insertOne()` buffering timed out after 10000ms'), { name: 'MongooseError' }), { type: 'connection_error' }],
    ['write conflict (after the transaction own retries)', new MongoServerError({ message: 'WriteConflict', code: 112, codeName: 'WriteConflict' }), { type: 'conflict' }],
    ['server-side time limit', new MongoServerError({ message: 'operation exceeded time limit', code: 50, codeName: 'MaxTimeMSExpired' }), { type: 'timeout' }],
    [
      'a result document over 16 MB (BSONObjectTooLarge)',
      new MongoServerError({ message: 'BSONObj size: 17825800 (0x1100008) is invalid. Size must be between 0 and 16793600(16MB)', code: 10334, codeName: 'BSONObjectTooLarge' }),
      { type: 'bad_request', message: 'The answer is larger than the database can return in one document (16 MB): load fewer or shallower relations, select fewer fields or ask for a smaller page.' },
    ],
    [
      'a document the collection validator refuses (DocumentValidationFailure): bad_request, as a CHECK on PostgreSQL',
      new MongoServerError({ message: 'Document failed validation', code: 121, codeName: 'DocumentValidationFailure' }),
      { type: 'bad_request', message: "A record does not pass the collection's validation rules." },
    ],
    [
      'the same refusal inside a bulk write',
      Object.assign(new Error('Document failed validation'), { name: 'MongoBulkWriteError', writeErrors: [{ index: 1, code: 121, errmsg: 'Document failed validation' }] }),
      { type: 'bad_request', message: "A record does not pass the collection's validation rules." },
    ],
    ['other server error', new MongoServerError({ message: 'boom', code: 2 }), { type: 'database_error' }],
    ['not a database error', new TypeError('x'), null],
    ['not an error', 'string', null],
  ];
  it('mongoose ValidationError of a missing required path: not_null_violation naming it, as on PostgreSQL', () => {
    expect(driver.translateError(validationError)).to.deep.equal({ type: 'not_null_violation', field: 'n' });
  });
  for (const [title, error, expected] of cases) {
    it(title, () => {
      expect(driver.translateError(error)).to.deep.equal(expected);
    });
  }
});
