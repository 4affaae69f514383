import { expect } from 'chai';
import { MongoServerError, type Db } from 'mongodb';
import { useMongo } from './helpers';

describe('emulator conformance: sessions and transactions', () => {
  const mongo = useMongo();
  let db: Db;
  beforeEach(async () => {
    db = mongo.db('txn');
    // Create collections up front, as recommended for transactions on older servers.
    await db.createCollection('acct');
  });

  it('commits with withTransaction and the writes become visible', async () => {
    const acct = db.collection('acct');
    await acct.insertMany([{ _id: 'a' as never, bal: 100 }, { _id: 'b' as never, bal: 0 }]);
    const session = mongo.client.startSession();
    try {
      await session.withTransaction(async () => {
        await acct.updateOne({ _id: 'a' as never }, { $inc: { bal: -30 } }, { session });
        await acct.updateOne({ _id: 'b' as never }, { $inc: { bal: 30 } }, { session });
        await acct.insertOne({ _id: 'log' as never, moved: 30 }, { session });
      });
    } finally {
      await session.endSession();
    }
    const docs = await acct.find().sort({ _id: 1 }).toArray();
    expect(docs).to.deep.equal([
      { _id: 'a', bal: 70 },
      { _id: 'b', bal: 30 },
      { _id: 'log', moved: 30 },
    ]);
  });

  it('reads inside the transaction see its own writes', async () => {
    const acct = db.collection('acct');
    const session = mongo.client.startSession();
    try {
      session.startTransaction();
      await acct.insertOne({ k: 1 }, { session });
      expect(await acct.countDocuments({ k: 1 }, { session })).to.equal(1);
      expect(await acct.findOne({ k: 1 }, { session })).to.not.equal(null);
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
  });

  it('abort leaves no trace', async () => {
    const acct = db.collection('acct');
    await acct.insertOne({ _id: 'keep' as never, v: 1 });
    const session = mongo.client.startSession();
    try {
      session.startTransaction();
      await acct.insertOne({ _id: 'temp' as never }, { session });
      await acct.updateOne({ _id: 'keep' as never }, { $set: { v: 2 } }, { session });
      await acct.deleteOne({ _id: 'keep' as never }, { session });
      await db.collection('brandnew').insertOne({ x: 1 }, { session });
      await session.abortTransaction();
    } finally {
      await session.endSession();
    }
    expect(await acct.find().toArray()).to.deep.equal([{ _id: 'keep', v: 1 }]);
    expect(await db.collection('brandnew').countDocuments()).to.equal(0);
  });

  it('uncommitted writes are invisible to other sessions and to non-session reads', async () => {
    const acct = db.collection('acct');
    await acct.insertOne({ _id: 'x' as never, v: 1 });
    const s1 = mongo.client.startSession();
    const s2 = mongo.client.startSession();
    try {
      s1.startTransaction();
      await acct.insertOne({ _id: 'y' as never, v: 1 }, { session: s1 });
      await acct.updateOne({ _id: 'x' as never }, { $set: { v: 2 } }, { session: s1 });
      expect(await acct.countDocuments()).to.equal(1);
      expect((await acct.findOne({ _id: 'x' as never }))?.v).to.equal(1);
      expect(await acct.countDocuments({}, { session: s2 })).to.equal(1);
      s2.startTransaction();
      expect((await acct.findOne({ _id: 'x' as never }, { session: s2 }))?.v).to.equal(1);
      await s2.abortTransaction();
      await s1.commitTransaction();
      expect((await acct.findOne({ _id: 'x' as never }))?.v).to.equal(2);
      expect(await acct.countDocuments()).to.equal(2);
    } finally {
      await s1.endSession();
      await s2.endSession();
    }
  });

  it('two transactions writing the same document: the second gets WriteConflict (112) labelled TransientTransactionError', async () => {
    const acct = db.collection('acct');
    await acct.insertOne({ _id: 'hot' as never, n: 0 });
    const s1 = mongo.client.startSession();
    const s2 = mongo.client.startSession();
    try {
      s1.startTransaction();
      s2.startTransaction();
      await acct.updateOne({ _id: 'hot' as never }, { $inc: { n: 1 } }, { session: s1 });
      try {
        await acct.updateOne({ _id: 'hot' as never }, { $inc: { n: 10 } }, { session: s2 });
        expect.fail('should conflict');
      } catch (err) {
        expect(err).to.be.instanceOf(MongoServerError);
        const e = err as MongoServerError;
        expect(e.code).to.equal(112);
        expect(e.codeName).to.equal('WriteConflict');
        expect(e.hasErrorLabel('TransientTransactionError')).to.equal(true);
      }
      await s2.abortTransaction();
      await s1.commitTransaction();
    } finally {
      await s1.endSession();
      await s2.endSession();
    }
    expect((await acct.findOne({ _id: 'hot' as never }))?.n).to.equal(1);
  });

  it('withTransaction retries after a WriteConflict and succeeds', async () => {
    const acct = db.collection('acct');
    await acct.insertOne({ _id: 'ctr' as never, n: 0 });
    const blocker = mongo.client.startSession();
    const session = mongo.client.startSession();
    let attempts = 0;
    try {
      blocker.startTransaction();
      await acct.updateOne({ _id: 'ctr' as never }, { $inc: { n: 100 } }, { session: blocker });
      await session.withTransaction(async () => {
        attempts++;
        // Let the blocking transaction commit while this attempt is failing.
        if (attempts === 2) await blocker.commitTransaction();
        await acct.updateOne({ _id: 'ctr' as never }, { $inc: { n: 1 } }, { session });
      });
    } finally {
      await blocker.endSession();
      await session.endSession();
    }
    expect(attempts).to.be.at.least(2);
    expect((await acct.findOne({ _id: 'ctr' as never }))?.n).to.equal(101);
  });

  it('a unique index sees transaction-local inserts, and a concurrent transaction inserting the same key conflicts', async () => {
    const u = db.collection('uniq');
    await u.createIndex({ k: 1 }, { unique: true });
    const s1 = mongo.client.startSession();
    const s2 = mongo.client.startSession();
    try {
      s1.startTransaction();
      await u.insertOne({ k: 'dup' }, { session: s1 });
      try {
        await u.insertOne({ k: 'dup' }, { session: s1 });
        expect.fail('should be a duplicate');
      } catch (err) {
        expect((err as MongoServerError).code).to.equal(11000);
      }
      // The failed statement aborted s1 (server behaviour); start again.
      await s1.abortTransaction().catch(() => undefined);
      s1.startTransaction();
      await u.insertOne({ k: 'dup' }, { session: s1 });
      s2.startTransaction();
      try {
        await u.insertOne({ k: 'dup' }, { session: s2 });
        expect.fail('should conflict');
      } catch (err) {
        expect([112, 11000]).to.include((err as MongoServerError).code);
      }
      await s2.abortTransaction().catch(() => undefined);
      await s1.commitTransaction();
    } finally {
      await s1.endSession();
      await s2.endSession();
    }
    expect(await u.countDocuments({ k: 'dup' })).to.equal(1);
  });

  it('a document deleted in a committed transaction is gone; commit is idempotent for the driver', async () => {
    const acct = db.collection('acct');
    await acct.insertMany([{ g: 1 }, { g: 1 }, { g: 2 }]);
    const session = mongo.client.startSession();
    try {
      session.startTransaction();
      const res = await acct.deleteMany({ g: 1 }, { session });
      expect(res.deletedCount).to.equal(2);
      expect(await acct.countDocuments()).to.equal(3);
      await session.commitTransaction();
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect(await acct.countDocuments()).to.equal(1);
  });

  it('sessions work for plain (non-transactional) operations and retryable writes', async () => {
    const session = mongo.client.startSession();
    try {
      const acct = db.collection('acct');
      await acct.insertOne({ s: 1 }, { session });
      await acct.updateOne({ s: 1 }, { $set: { t: 2 } }, { session });
      expect(await acct.findOne({ s: 1 }, { session, projection: { _id: 0 } })).to.deep.equal({ s: 1, t: 2 });
    } finally {
      await session.endSession();
    }
  });
});

describe('emulator conformance: 7.0 rules', () => {
  const mongo = useMongo();

  it('count inside a transaction is refused as on the server (263, no transient label); the transaction goes on', async () => {
    const db = mongo.db('txn_rules');
    await db.createCollection('c');
    const session = mongo.client.startSession();
    try {
      session.startTransaction();
      await db.collection('c').insertOne({ a: 1 }, { session });
      const error = await db.command({ count: 'c' }, { session }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(MongoServerError);
      expect((error as MongoServerError).code).to.equal(263);
      expect((error as MongoServerError).codeName).to.equal('OperationNotSupportedInTransaction');
      expect((error as MongoServerError).hasErrorLabel('TransientTransactionError')).to.equal(false);
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect(await db.collection('c').countDocuments()).to.equal(1);
  });

  it('an update statement with sort is an unknown field at 7.0 (40415)', async () => {
    const db = mongo.db('txn_rules');
    await db.collection('s').insertMany([{ a: 2 }, { a: 1 }]);
    const error = await db.command({ update: 's', updates: [{ q: {}, u: { $set: { b: 1 } }, sort: { a: 1 } }] }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(MongoServerError);
    expect((error as MongoServerError).code).to.equal(40415);
    expect(await db.collection('s').countDocuments({ b: 1 })).to.equal(0);
  });
});
