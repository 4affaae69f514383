import { expect } from 'chai';
import { MongoClient, MongoServerError, type CommandStartedEvent, type Document } from 'mongodb';
import { startEmulator, type EmulatorHandle } from '../../lib/testing/emulator';

/**
 * configureFailPoint 'failCommand' as mongod with enableTestCommands answers it: modes
 * (times, alwaysOn, off, skip), errorCode, closeConnection, blockConnection, errorLabels,
 * writeConcernError, appName; and the Node.js driver retrying a read and a write once on an error
 * injected once.
 */
describe('emulator: failCommand fail point', function () {
  this.timeout(30_000);
  let emulator: EmulatorHandle;
  let client: MongoClient;

  before(async () => {
    emulator = await startEmulator({ topology: 'replset' });
    client = new MongoClient(emulator.uri, { serverSelectionTimeoutMS: 5000, appName: 'fail-point-tests' });
    await client.connect();
  });
  after(async () => {
    await client?.close();
    await emulator?.stop();
  });
  afterEach(async () => {
    await failPoint('off');
  });

  function failPoint(mode: unknown, data: Document = {}): Promise<Document> {
    return client.db('admin').command({ configureFailPoint: 'failCommand', mode, data });
  }

  /** A client that does not retry, so each injected error reaches the test. */
  async function plain<T>(work: (c: MongoClient) => Promise<T>): Promise<T> {
    const c = new MongoClient(emulator.uri, { serverSelectionTimeoutMS: 5000, retryReads: false, retryWrites: false, appName: 'fail-point-tests' });
    try {
      await c.connect();
      return await work(c);
    } finally {
      await c.close();
    }
  }

  async function error(work: Promise<unknown>): Promise<MongoServerError> {
    try {
      await work;
    } catch (e) {
      return e as MongoServerError;
    }
    throw new Error('expected an error');
  }

  it('times: n fails the next n matching commands, then the fail point is off; the reply is mongod\'s', async () => {
    const reply = await failPoint({ times: 2 }, { failCommands: ['find'], errorCode: 2 });
    expect(reply).to.include({ ok: 1 });
    await plain(async (c) => {
      const coll = c.db('fp').collection('times');
      await coll.insertOne({ a: 1 }); // not in failCommands: not counted
      for (let i = 0; i < 2; i++) {
        const e = await error(coll.findOne({}));
        expect(e).to.be.instanceOf(MongoServerError);
        expect(e.code).to.equal(2);
        expect(e.codeName).to.equal('BadValue');
        expect(e.errmsg).to.equal("Failing command via 'failCommand' failpoint");
      }
      expect(await coll.findOne({}, { projection: { _id: 0 } })).to.deep.equal({ a: 1 });
    });
    // the count of triggers since the last configuration
    expect((await failPoint('off')).count).to.equal(2);
  });

  it('alwaysOn fails every matching command until off', async () => {
    await failPoint('alwaysOn', { failCommands: ['count'], errorCode: 8 });
    await plain(async (c) => {
      const coll = c.db('fp').collection('always');
      for (let i = 0; i < 3; i++) expect((await error(coll.estimatedDocumentCount())).codeName).to.equal('UnknownError');
      await failPoint('off');
      expect(await coll.estimatedDocumentCount()).to.equal(0);
    });
  });

  it('skip: n lets n matching commands through, then fails every one', async () => {
    await failPoint({ skip: 2 }, { failCommands: ['insert'], errorCode: 11000 });
    await plain(async (c) => {
      const coll = c.db('fp').collection('skip');
      await coll.insertOne({ n: 1 });
      await coll.insertOne({ n: 2 });
      expect((await error(coll.insertOne({ n: 3 }))).code).to.equal(11000);
      expect((await error(coll.insertOne({ n: 4 }))).code).to.equal(11000);
      await failPoint('off');
      expect(await coll.countDocuments()).to.equal(2);
    });
  });

  it('the failed command does not run', async () => {
    await plain(async (c) => {
      const coll = c.db('fp').collection('notrun');
      await failPoint({ times: 1 }, { failCommands: ['insert'], errorCode: 96 });
      expect((await error(coll.insertOne({ x: 1 }))).codeName).to.equal('OperationFailed');
      expect(await coll.countDocuments()).to.equal(0);
    });
  });

  it('appName limits it to the connections of that application', async () => {
    await failPoint('alwaysOn', { failCommands: ['find'], errorCode: 2, appName: 'other-app' });
    await plain(async (c) => {
      expect(await c.db('fp').collection('app').findOne({})).to.equal(null);
    });
    const other = new MongoClient(emulator.uri, { serverSelectionTimeoutMS: 5000, retryReads: false, appName: 'other-app' });
    try {
      await other.connect();
      expect((await error(other.db('fp').collection('app').findOne({}))).code).to.equal(2);
    } finally {
      await other.close();
    }
  });

  it('closeConnection closes the connection without a reply (a network error)', async () => {
    await failPoint({ times: 1 }, { failCommands: ['find'], closeConnection: true });
    await plain(async (c) => {
      const e = await error(c.db('fp').collection('close').findOne({}));
      expect(e.name).to.match(/MongoNetworkError|MongoPoolClearedError/);
      // the next command gets a new connection and works
      expect(await c.db('fp').collection('close').findOne({})).to.equal(null);
    });
  });

  it('blockConnection delays the command by blockTimeMS, then runs it', async () => {
    await failPoint({ times: 1 }, { failCommands: ['find'], blockConnection: true, blockTimeMS: 300 });
    await plain(async (c) => {
      const started = Date.now();
      expect(await c.db('fp').collection('block').findOne({})).to.equal(null);
      expect(Date.now() - started).to.be.at.least(280);
    });
  });

  it('errorLabels replace the labels the server would add; without them a retryable code on a retryable write is labelled RetryableWriteError', async () => {
    await plain(async (c) => {
      const coll = c.db('fp').collection('labels');
      await failPoint({ times: 1 }, { failCommands: ['insert'], errorCode: 112, errorLabels: ['TransientTransactionError', 'Custom'] });
      const custom = await error(coll.insertOne({ a: 1 }));
      expect(custom.code).to.equal(112);
      expect(custom.errorLabels).to.deep.equal(['TransientTransactionError', 'Custom']);
      // retryWrites false: no txnNumber, so not a retryable write and no label
      await failPoint({ times: 1 }, { failCommands: ['insert'], errorCode: 189 });
      const unlabelled = await error(coll.insertOne({ a: 1 }));
      expect(unlabelled.codeName).to.equal('PrimarySteppedDown');
      expect(unlabelled.errorLabels ?? []).to.deep.equal([]);
    });
    // a retryable write (txnNumber) failing with a retryable code twice: labelled, the retry fails too
    await failPoint({ times: 2 }, { failCommands: ['insert'], errorCode: 91 });
    const labelled = await error(client.db('fp').collection('labels').insertOne({ b: 1 }));
    expect(labelled.code).to.equal(91);
    expect(labelled.hasErrorLabel('RetryableWriteError')).to.equal(true);
    // an empty errorLabels removes the server's
    await failPoint({ times: 1 }, { failCommands: ['insert'], errorCode: 91, errorLabels: [] });
    const none = await error(client.db('fp').collection('labels').insertOne({ b: 2 }));
    expect(none.errorLabels ?? []).to.deep.equal([]);
  });

  it('inside a transaction a retryable code is a TransientTransactionError; the transaction goes on', async () => {
    const coll = client.db('fp').collection('txn');
    await coll.insertOne({ seed: 1 });
    const session = client.startSession();
    try {
      session.startTransaction();
      await coll.insertOne({ in: 0 }, { session });
      await failPoint({ times: 1 }, { failCommands: ['insert'], errorCode: 10107 });
      const e = await error(coll.insertOne({ in: 1 }, { session }));
      expect(e.code).to.equal(10107);
      expect(e.hasErrorLabel('TransientTransactionError')).to.equal(true);
      // as on mongod, failCommand fails the statement before the transaction is touched
      await coll.insertOne({ in: 2 }, { session });
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect(await coll.countDocuments({ in: 1 })).to.equal(0);
    expect(await coll.countDocuments({ in: { $in: [0, 2] } })).to.equal(2);
  });

  it('writeConcernError: the command runs and the reply carries it', async () => {
    await failPoint({ times: 1 }, { failCommands: ['insert'], writeConcernError: { code: 100, codeName: 'UnsatisfiableWriteConcern', errmsg: 'Not enough data-bearing nodes' } });
    await plain(async (c) => {
      const coll = c.db('fp').collection('wce');
      const e = await error(coll.insertOne({ w: 1 }));
      expect(e.name).to.equal('MongoWriteConcernError');
      expect(e.code).to.equal(100);
      expect(await coll.countDocuments({ w: 1 })).to.equal(1);
    });
  });

  it('is an admin command and checks its arguments', async () => {
    expect((await error(client.db('fp').command({ configureFailPoint: 'failCommand', mode: 'off' }))).codeName).to.equal('Unauthorized');
    expect((await error(failPoint('sometimes', { failCommands: ['find'] }))).code).to.equal(2);
    expect((await error(failPoint('alwaysOn', {}))).code).to.equal(2);
    expect((await error(client.db('admin').command({ configureFailPoint: 'noSuchFailPoint', mode: 'off' }))).code).to.equal(2);
  });

  describe('the Node.js driver retries once on an error injected once', () => {
    let events: CommandStartedEvent[];
    let monitored: MongoClient;
    before(async () => {
      monitored = new MongoClient(emulator.uri, { serverSelectionTimeoutMS: 5000, monitorCommands: true });
      await monitored.connect();
    });
    beforeEach(() => {
      events = [];
      monitored.removeAllListeners('commandStarted');
      monitored.on('commandStarted', (e: CommandStartedEvent) => events.push(e));
    });
    after(async () => {
      await monitored?.close();
    });

    it('a retryable write (insertOne) after ShutdownInProgress (91)', async () => {
      await failPoint({ times: 1 }, { failCommands: ['insert'], errorCode: 91 });
      const coll = monitored.db('fp').collection('retry-write');
      await coll.insertOne({ _id: 'r1' } as Document);
      const inserts = events.filter((e) => e.commandName === 'insert');
      expect(inserts).to.have.length(2);
      expect(String(inserts[0].command.txnNumber)).to.equal(String(inserts[1].command.txnNumber));
      expect(await coll.countDocuments({ _id: 'r1' } as Document)).to.equal(1);
    });

    it('a retryable write (updateOne) after PrimarySteppedDown (189)', async () => {
      const coll = monitored.db('fp').collection('retry-update');
      await coll.insertOne({ _id: 'u1', n: 0 } as Document);
      await failPoint({ times: 1 }, { failCommands: ['update'], errorCode: 189 });
      events = [];
      const result = await coll.updateOne({ _id: 'u1' } as Document, { $inc: { n: 1 } });
      expect(result.modifiedCount).to.equal(1);
      expect(events.filter((e) => e.commandName === 'update')).to.have.length(2);
      expect((await coll.findOne({ _id: 'u1' } as Document))?.n).to.equal(1);
    });

    it('a retryable read (find) after PrimarySteppedDown (189)', async () => {
      const coll = monitored.db('fp').collection('retry-read');
      await coll.insertOne({ k: 1 });
      await failPoint({ times: 1 }, { failCommands: ['find'], errorCode: 189 });
      events = [];
      expect((await coll.findOne({ k: 1 }))?.k).to.equal(1);
      expect(events.filter((e) => e.commandName === 'find')).to.have.length(2);
    });

    it('a retryable read (aggregate) after a closed connection', async () => {
      const coll = monitored.db('fp').collection('retry-read');
      await failPoint({ times: 1 }, { failCommands: ['aggregate'], closeConnection: true });
      events = [];
      expect(await coll.countDocuments({ k: 1 })).to.equal(1);
      expect(events.filter((e) => e.commandName === 'aggregate')).to.have.length(2);
    });

    it('a retryable writeConcernError: the write ran, the retry answers its reply without running it again', async () => {
      const coll = monitored.db('fp').collection('retry-wce');
      await coll.insertOne({ _id: 'w0', n: 0 } as Document);
      await failPoint({ times: 1 }, { failCommands: ['insert', 'update'], writeConcernError: { code: 91, errmsg: 'Replication is being shut down' } });
      events = [];
      await coll.insertOne({ _id: 'w1' } as Document); // a second run would be E11000
      expect(events.filter((e) => e.commandName === 'insert')).to.have.length(2);
      await failPoint({ times: 1 }, { failCommands: ['update'], writeConcernError: { code: 189, errmsg: 'stepped down' } });
      const result = await coll.updateOne({ _id: 'w0' } as Document, { $inc: { n: 1 } });
      expect(result.modifiedCount).to.equal(1);
      expect((await coll.findOne({ _id: 'w0' } as Document))?.n).to.equal(1); // incremented once
      expect(await coll.countDocuments({ _id: 'w1' } as Document)).to.equal(1);
    });

    it('onPrimaryTransactionalWrite: the write commits, the connection closes, the retry answers the first run', async () => {
      const coll = monitored.db('fp').collection('txn-write');
      await monitored.db('admin').command({ configureFailPoint: 'onPrimaryTransactionalWrite', mode: { times: 1 } });
      events = [];
      await coll.insertOne({ _id: 't1' } as Document);
      expect(events.filter((e) => e.commandName === 'insert')).to.have.length(2);
      expect(await coll.countDocuments({ _id: 't1' } as Document)).to.equal(1);
    });

    it('onPrimaryTransactionalWrite with failBeforeCommitExceptionCode: statements before it are kept, the retry runs the rest', async () => {
      const coll = monitored.db('fp').collection('txn-write');
      await monitored.db('admin').command({ configureFailPoint: 'onPrimaryTransactionalWrite', mode: { skip: 1 }, data: { failBeforeCommitExceptionCode: 1 } });
      events = [];
      let failure: Error | undefined;
      try {
        await coll.insertMany([{ _id: 'm1' }, { _id: 'm2' }, { _id: 'm3' }] as Document[]);
      } catch (e) {
        failure = e as Error;
      }
      await monitored.db('admin').command({ configureFailPoint: 'onPrimaryTransactionalWrite', mode: 'off' });
      // skip 1, then alwaysOn: the retry fails at its first statement again; m1 ran once
      expect(failure).to.be.instanceOf(Error);
      expect(events.filter((e) => e.commandName === 'insert')).to.have.length(2);
      expect(await coll.countDocuments({ _id: { $in: ['m1', 'm2', 'm3'] } } as Document)).to.equal(1);
      await monitored.db('admin').command({ configureFailPoint: 'onPrimaryTransactionalWrite', mode: { times: 1 }, data: { failBeforeCommitExceptionCode: 1 } });
      await coll.insertMany([{ _id: 'n1' }, { _id: 'n2' }] as Document[]);
      expect(await coll.countDocuments({ _id: { $in: ['n1', 'n2'] } } as Document)).to.equal(2);
    });

    it('a non-retryable code is not retried', async () => {
      await failPoint({ times: 1 }, { failCommands: ['find'], errorCode: 2 });
      events = [];
      expect((await error(monitored.db('fp').collection('retry-read').findOne({}))).code).to.equal(2);
      expect(events.filter((e) => e.commandName === 'find')).to.have.length(1);
    });
  });
});
