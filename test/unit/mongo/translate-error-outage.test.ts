import { expect } from 'chai';
import { MongoNetworkError, MongoNetworkTimeoutError, MongoServerError, MongoServerSelectionError, MongoTopologyClosedError, MongoWriteConcernError } from 'mongodb';
import { translateMongoError } from '../../../drivers/mongo/translate-error';

/**
 * Issue 35: every way MongoDB can be unavailable is a 503 connection_error (the driver has
 * already retried reads and retryable writes once), a time limit a 503 timeout; never a 500.
 */
describe('mongo translateError: the database unavailable', () => {
  const server = (code: number, codeName: string, extra: Record<string, unknown> = {}) => new MongoServerError({ message: `server says ${codeName}`, code, codeName, ...extra });
  const unavailable: Array<[string, unknown]> = [
    ['NotWritablePrimary (10107)', server(10107, 'NotWritablePrimary')],
    ['NotPrimaryNoSecondaryOk (13435)', server(13435, 'NotPrimaryNoSecondaryOk')],
    ['NotPrimaryOrSecondary (13436)', server(13436, 'NotPrimaryOrSecondary')],
    ['InterruptedDueToReplStateChange (11602)', server(11602, 'InterruptedDueToReplStateChange')],
    ['PrimarySteppedDown (189)', server(189, 'PrimarySteppedDown')],
    ['ShutdownInProgress (91)', server(91, 'ShutdownInProgress')],
    ['InterruptedAtShutdown (11600)', server(11600, 'InterruptedAtShutdown')],
    ['HostUnreachable (6)', server(6, 'HostUnreachable')],
    ['NetworkTimeout (89)', server(89, 'NetworkTimeout')],
    ['by codeName alone (NotMaster, an old server)', Object.assign(new Error('not master'), { name: 'MongoServerError', codeName: 'NotMaster' })],
    ['a write concern error of a stepped-down primary', new MongoWriteConcernError({ writeConcernError: { code: 189, codeName: 'PrimarySteppedDown', errmsg: 'stepped down' } } as never)],
    ['network error', new MongoNetworkError('connection 3 to 127.0.0.1:27017 closed')],
    ['network time-out (a stalled server)', new MongoNetworkTimeoutError('connection timed out')],
    ['server selection time-out', new MongoServerSelectionError('Server selection timed out after 1000 ms', { type: 'Unknown' } as never)],
    ['closed topology', new MongoTopologyClosedError()],
    ['pool checkout time-out', Object.assign(new Error('Timed out while checking out a connection from connection pool'), { name: 'MongoWaitQueueTimeoutError' })],
    ['cleared pool', Object.assign(new Error('Connection pool was cleared'), { name: 'MongoPoolClearedError' })],
    ['refused, as the cause of a mongoose error', Object.assign(new Error('failed'), { name: 'MongooseError', cause: new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:1') })],
    ['reset mid-query', Object.assign(new Error('read ECONNRESET'), { name: 'MongoNetworkError' })],
    // the driver's own check when mongoose has no open connection (its first connect failed)
    ['a connection never opened', new Error('The MongoDB connection is not open.')],
  ];
  for (const [title, error] of unavailable) {
    it(`${title}: connection_error`, () => {
      expect(translateMongoError(error)).to.deep.equal({ type: 'connection_error' });
    });
  }

  it('MaxTimeMSExpired and ExceededTimeLimit: timeout', () => {
    expect(translateMongoError(server(50, 'MaxTimeMSExpired'))).to.deep.equal({ type: 'timeout' });
    expect(translateMongoError(server(262, 'ExceededTimeLimit'))).to.deep.equal({ type: 'timeout' });
  });

  it('other server errors stay what they were (a duplicate key is a 409, not a 503)', () => {
    expect(translateMongoError(server(11000, 'DuplicateKey', { keyPattern: { sku: 1 } }))).to.deep.equal({ type: 'unique_violation', field: 'sku' });
    expect(translateMongoError(server(2, 'BadValue'))).to.deep.equal({ type: 'database_error' });
  });
});
