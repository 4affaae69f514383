import { expect } from 'chai';
import { Binary, MongoServerError, Timestamp, type ClientSession, type Db } from 'mongodb';
import { EmulatorState } from '../../lib/testing/emulator/commands';
import { execute } from '../../lib/testing/emulator/server';
import { Store } from '../../lib/testing/emulator/store';
import { TransactionManager } from '../../lib/testing/emulator/transactions';
import { Scope } from '../../lib/testing/emulator/scope';
import { keyOf } from '../../lib/testing/emulator/values';
import type { Request } from '../../lib/testing/emulator/wire';
import { useMongo } from './helpers';

interface Id {
  _id: number | string;
  k?: number;
  n?: number;
  v?: string;
  w?: number;
  t?: number;
  by?: string;
  seen?: boolean;
  ref?: number;
  parent?: string | null;
}

async function failure(p: Promise<unknown>): Promise<MongoServerError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected the server to refuse').to.be.instanceOf(MongoServerError);
  return error as MongoServerError;
}

/** Resolves to 'pending' when `p` has not settled within `ms`. */
async function settledWithin(p: Promise<unknown>, ms: number): Promise<'settled' | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    p.then(
      () => 'settled' as const,
      () => 'settled' as const,
    ),
    new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms))),
  ]);
  clearTimeout(timer);
  return result;
}

describe('emulator conformance: snapshot isolation of transactions', () => {
  const mongo = useMongo();
  let db: Db;
  let session: ClientSession;
  beforeEach(async () => {
    db = mongo.db('snap');
    await db.collection<Id>('c').insertMany([
      { _id: 1, v: 'one' },
      { _id: 2, v: 'two' },
    ]);
    session = mongo.client.startSession();
  });
  afterEach(async () => {
    await session.endSession();
  });

  it('a transaction does not see a document committed after its snapshot, nor an update or delete of one', async () => {
    const c = db.collection<Id>('c');
    session.startTransaction();
    // the snapshot is taken at the transaction's first operation
    expect(await c.findOne({ _id: 1 }, { session })).to.deep.equal({ _id: 1, v: 'one' });
    await c.insertOne({ _id: 3, v: 'three' });
    await c.updateOne({ _id: 1 }, { $set: { v: 'changed' } });
    await c.deleteOne({ _id: 2 });

    expect(await c.find({}, { session }).sort({ _id: 1 }).toArray()).to.deep.equal([
      { _id: 1, v: 'one' },
      { _id: 2, v: 'two' },
    ]);
    expect(await c.findOne({ _id: 1 }, { session })).to.deep.equal({ _id: 1, v: 'one' });
    expect(await c.findOne({ _id: 2 }, { session })).to.deep.equal({ _id: 2, v: 'two' });
    expect(await c.findOne({ _id: 3 }, { session })).to.equal(null);
    expect(await c.find({ _id: { $in: [1, 2, 3] } }, { session }).toArray()).to.have.length(2);
    expect(await c.aggregate([{ $match: { _id: 1 } }], { session }).toArray()).to.deep.equal([{ _id: 1, v: 'one' }]);
    expect(await c.countDocuments({}, { session })).to.equal(2);
    expect((await c.distinct('v', {}, { session })).sort()).to.deep.equal(['one', 'two']);
    await session.commitTransaction();

    // outside, the committed state
    expect(await c.find().sort({ _id: 1 }).toArray()).to.deep.equal([
      { _id: 1, v: 'changed' },
      { _id: 3, v: 'three' },
    ]);
  });

  it('its own writes are visible on top of its snapshot, by key, by scan and in aggregation', async () => {
    const c = db.collection<Id>('c');
    session.startTransaction();
    await c.updateOne({ _id: 2 }, { $set: { v: 'mine' } }, { session });
    await c.insertOne({ _id: 4, v: 'four' });
    await c.insertOne({ _id: 5, v: 'five' }, { session });
    await c.deleteOne({ _id: 1 }, { session });
    expect(await c.find({}, { session }).sort({ _id: 1 }).toArray()).to.deep.equal([
      { _id: 2, v: 'mine' },
      { _id: 5, v: 'five' },
    ]);
    expect(await c.findOne({ _id: 2 }, { session })).to.deep.equal({ _id: 2, v: 'mine' });
    expect(await c.findOne({ _id: 4 }, { session })).to.equal(null);
    expect(await c.aggregate([{ $group: { _id: null, n: { $sum: 1 } } }], { session }).toArray()).to.deep.equal([{ _id: null, n: 2 }]);
    const found = await c.findOneAndUpdate({ v: 'five' }, { $set: { w: 1 } }, { session, returnDocument: 'after' });
    expect(found).to.deep.equal({ _id: 5, v: 'five', w: 1 });
    await session.commitTransaction();
    expect(await c.find().sort({ _id: 1 }).toArray()).to.deep.equal([
      { _id: 2, v: 'mine' },
      { _id: 4, v: 'four' },
      { _id: 5, v: 'five', w: 1 },
    ]);
  });

  it('updates and deletes inside the transaction match the snapshot, not later commits', async () => {
    const c = db.collection<Id>('c');
    session.startTransaction();
    await c.findOne({}, { session });
    await c.insertOne({ _id: 6, v: 'later' });
    const updated = await c.updateMany({}, { $set: { seen: true } }, { session });
    expect(updated.matchedCount).to.equal(2);
    const deleted = await c.deleteMany({ v: 'later' }, { session });
    expect(deleted.deletedCount).to.equal(0);
    await session.commitTransaction();
    expect(await c.find().sort({ _id: 1 }).toArray()).to.deep.equal([
      { _id: 1, v: 'one', seen: true },
      { _id: 2, v: 'two', seen: true },
      { _id: 6, v: 'later' },
    ]);
  });

  it('$lookup, $graphLookup and $unionWith read the from collection as of the snapshot', async () => {
    const c = db.collection<Id>('c');
    const other = db.collection<Id>('other');
    await other.insertMany([
      { _id: 'a', ref: 1, parent: null },
      { _id: 'b', ref: 1, parent: 'a' },
    ]);
    session.startTransaction();
    await c.findOne({}, { session });
    await other.insertOne({ _id: 'c', ref: 1, parent: 'b' });
    await other.updateOne({ _id: 'a' }, { $set: { ref: 2 } });

    const joined = await c
      .aggregate([{ $match: { _id: 1 } }, { $lookup: { from: 'other', localField: '_id', foreignField: 'ref', as: 'refs' } }, { $project: { ids: '$refs._id' } }], { session })
      .toArray();
    expect(joined).to.deep.equal([{ _id: 1, ids: ['a', 'b'] }]);
    const piped = await c
      .aggregate([{ $match: { _id: 1 } }, { $lookup: { from: 'other', let: { id: '$_id' }, pipeline: [{ $match: { $expr: { $eq: ['$ref', '$$id'] } } }], as: 'refs' } }, { $project: { ids: '$refs._id' } }], { session })
      .toArray();
    expect(piped).to.deep.equal([{ _id: 1, ids: ['a', 'b'] }]);
    const walked = await other
      .aggregate([{ $match: { _id: 'a' } }, { $graphLookup: { from: 'other', startWith: '$_id', connectFromField: '_id', connectToField: 'parent', as: 'below' } }, { $project: { n: { $size: '$below' } } }], { session })
      .toArray();
    expect(walked).to.deep.equal([{ _id: 'a', n: 1 }]);
    const union = await c.aggregate([{ $unionWith: 'other' }, { $count: 'n' }], { session }).toArray();
    expect(union).to.deep.equal([{ n: 4 }]);
    await session.commitTransaction();
  });

  it('writing a document committed after the snapshot is a WriteConflict (112, TransientTransactionError) and aborts the transaction (then 251)', async () => {
    const c = db.collection<Id>('c');
    session.startTransaction();
    await c.findOne({ _id: 2 }, { session });
    await c.updateOne({ _id: 1 }, { $set: { v: 'outside' } });
    const conflict = await failure(c.updateOne({ _id: 1 }, { $set: { v: 'inside' } }, { session }));
    expect(conflict.code).to.equal(112);
    expect(conflict.codeName).to.equal('WriteConflict');
    expect(conflict.hasErrorLabel('TransientTransactionError')).to.equal(true);
    // top-level command error, not a write error
    expect(conflict.errorResponse.writeErrors).to.equal(undefined);

    const next = await failure(c.insertOne({ _id: 9 }, { session }));
    expect(next.code).to.equal(251);
    expect(next.codeName).to.equal('NoSuchTransaction');
    expect(next.hasErrorLabel('TransientTransactionError')).to.equal(true);
    await session.abortTransaction().catch(() => undefined);
    expect(await c.findOne({ _id: 1 })).to.deep.equal({ _id: 1, v: 'outside' });
    expect(await c.findOne({ _id: 9 })).to.equal(null);
  });

  it('inserting an _id another session committed after the snapshot conflicts too (the snapshot does not see it)', async () => {
    const c = db.collection<Id>('c');
    session.startTransaction();
    await c.findOne({}, { session });
    await c.insertOne({ _id: 7, v: 'outside' });
    const conflict = await failure(c.insertOne({ _id: 7, v: 'inside' }, { session }));
    expect(conflict.code).to.equal(112);
    await session.abortTransaction().catch(() => undefined);
  });

  it('a unique key its snapshot shows taken, freed or taken by commits since, is a WriteConflict, not a success or E11000', async () => {
    const u = db.collection<Id>('u');
    await u.createIndex({ k: 1 }, { unique: true });
    await u.insertOne({ _id: 1, k: 5 } as Id);
    session.startTransaction();
    await u.findOne({}, { session });
    await u.deleteOne({ _id: 1 });
    await u.insertOne({ _id: 2, k: 6 } as Id);
    expect((await failure(u.insertOne({ _id: 3, k: 5 } as Id, { session }))).code, 'freed since the snapshot').to.equal(112);
    await session.abortTransaction().catch(() => undefined);

    session.startTransaction();
    await u.findOne({}, { session });
    await u.insertOne({ _id: 4, k: 7 } as Id);
    expect((await failure(u.insertOne({ _id: 5, k: 7 } as Id, { session }))).code, 'taken since the snapshot').to.equal(112);
    await session.abortTransaction().catch(() => undefined);

    session.startTransaction();
    expect((await failure(u.insertOne({ _id: 6, k: 6 } as Id, { session }))).code, 'taken before the snapshot').to.equal(11000);
    await session.abortTransaction().catch(() => undefined);
  });

  it('two transactions: the second writer of a document gets WriteConflict; the first commits', async () => {
    const c = db.collection<Id>('c');
    const other = mongo.client.startSession();
    try {
      session.startTransaction();
      other.startTransaction();
      await c.updateOne({ _id: 1 }, { $set: { by: 'first' } }, { session });
      const conflict = await failure(c.updateOne({ _id: 1 }, { $set: { by: 'second' } }, { session: other }));
      expect(conflict.code).to.equal(112);
      await session.commitTransaction();
      const late = await failure(other.commitTransaction());
      expect(late.code).to.equal(251);
    } finally {
      await other.endSession();
    }
    expect(await c.findOne({ _id: 1 })).to.deep.equal({ _id: 1, v: 'one', by: 'first' });
  });
});

describe('emulator conformance: DDL inside transactions (7.0)', () => {
  const mongo = useMongo();
  let db: Db;
  let session: ClientSession;
  beforeEach(async () => {
    db = mongo.db('snapddl');
    session = mongo.client.startSession();
  });
  afterEach(async () => {
    await session.endSession();
  });

  async function names(): Promise<string[]> {
    return (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
  }

  it('implicit creation by an insert is invisible to others until commit', async () => {
    session.startTransaction();
    await db.collection('fresh').insertOne({ _id: 1 } as never, { session });
    expect(await names()).to.deep.equal([]);
    expect(await db.collection('fresh').find().toArray()).to.deep.equal([]);
    expect(await db.collection('fresh').find({}, { session }).toArray()).to.deep.equal([{ _id: 1 }]);
    await session.commitTransaction();
    expect(await names()).to.deep.equal(['fresh']);
    expect(await db.collection('fresh').find().toArray()).to.deep.equal([{ _id: 1 }]);
  });

  it('abort rolls back implicit and explicit creation', async () => {
    session.startTransaction();
    await db.createCollection('made', { session });
    await db.collection('implicit').insertOne({ x: 1 }, { session });
    await session.abortTransaction();
    expect(await names()).to.deep.equal([]);
  });

  it('createIndexes on a collection the transaction creates is invisible until commit; on an existing or non-empty one it is refused (263)', async () => {
    session.startTransaction();
    await db.collection('idx').createIndex({ x: 1 }, { name: 'x_1', session });
    const listed = await failure(db.collection('idx').listIndexes().toArray());
    expect(listed.codeName).to.equal('NamespaceNotFound');
    await session.commitTransaction();
    expect((await db.collection('idx').listIndexes().toArray()).map((i) => i.name)).to.deep.equal(['_id_', 'x_1']);

    session.startTransaction();
    const existing = await failure(db.collection('idx').createIndex({ y: 1 }, { session }));
    expect(existing.code).to.equal(263);
    expect(existing.message).to.equal(`Cannot create new indexes on existing collection ${db.databaseName}.idx in a multi-document transaction.`);
    await session.abortTransaction().catch(() => undefined);

    session.startTransaction();
    await db.collection('filled').insertOne({ y: 1 }, { session });
    const nonEmpty = await failure(db.collection('filled').createIndex({ y: 1 }, { session }));
    expect(nonEmpty.code).to.equal(263);
    expect(nonEmpty.message).to.equal(`Cannot create new indexes on non-empty collection ${db.databaseName}.filled in a multi-document transaction.`);
    await session.abortTransaction().catch(() => undefined);
  });

  it('drop, listCollections and count are refused in a transaction (263) without aborting it', async () => {
    await db.createCollection('keep');
    session.startTransaction();
    await db.collection('keep').insertOne({ a: 1 }, { session });
    for (const cmd of [{ drop: 'keep' }, { listCollections: 1 }, { count: 'keep' }, { dropIndexes: 'keep', index: '*' }]) {
      const refused = await failure(db.command(cmd, { session }));
      expect(refused.code, JSON.stringify(cmd)).to.equal(263);
      expect(refused.hasErrorLabel('TransientTransactionError')).to.equal(false);
    }
    await session.commitTransaction();
    expect(await db.collection('keep').countDocuments()).to.equal(1);
  });

  it('create on a name another open transaction is creating conflicts', async () => {
    const other = mongo.client.startSession();
    try {
      session.startTransaction();
      await db.createCollection('race', { session });
      other.startTransaction();
      const conflict = await failure(db.collection('race').insertOne({ x: 1 }, { session: other }));
      expect(conflict.code).to.equal(112);
      await other.abortTransaction().catch(() => undefined);
      await session.commitTransaction();
    } finally {
      await other.endSession();
    }
    expect(await names()).to.deep.equal(['race']);
  });
});

describe('emulator conformance: writes outside a transaction wait for it', () => {
  const mongo = useMongo();
  let db: Db;
  let session: ClientSession;
  beforeEach(async () => {
    db = mongo.db('snapwait');
    await db.collection<Id>('c').insertOne({ _id: 1, n: 0 });
    session = mongo.client.startSession();
  });
  afterEach(async () => {
    await session.endSession();
  });

  it('a plain update of a document a transaction holds waits until commit, then applies on top', async () => {
    const c = db.collection<Id>('c');
    session.startTransaction();
    await c.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session });
    const outside = c.updateOne({ _id: 1 }, { $inc: { n: 10 } });
    expect(await settledWithin(outside, 150)).to.equal('pending');
    // other connections are not held up meanwhile
    expect(await c.findOne({ _id: 1 })).to.deep.equal({ _id: 1, n: 0 });
    await session.commitTransaction();
    expect((await outside).modifiedCount).to.equal(1);
    expect(await c.findOne({ _id: 1 })).to.deep.equal({ _id: 1, n: 11 });
  });

  it('a plain insert into a collection a transaction is creating waits until abort, then creates it', async () => {
    session.startTransaction();
    await db.collection('born').insertOne({ _id: 'txn' } as never, { session });
    const outside = db.collection('born').insertMany([{ _id: 'a' }, { _id: 'b' }] as never[]);
    expect(await settledWithin(outside, 150)).to.equal('pending');
    await session.abortTransaction();
    expect((await outside).insertedCount).to.equal(2);
    expect(await db.collection('born').find().sort({ _id: 1 }).toArray()).to.deep.equal([{ _id: 'a' }, { _id: 'b' }]);
  });

  it('a multi-document write held up half-way is undone and run again whole: no statement applies twice', async () => {
    const c = db.collection<Id>('c');
    await c.insertMany([{ _id: 2, n: 0 }, { _id: 3, n: 0 }]);
    session.startTransaction();
    await c.updateOne({ _id: 3 }, { $set: { t: 1 } }, { session });
    const outside = c.updateMany({}, { $inc: { n: 1 } });
    expect(await settledWithin(outside, 100)).to.equal('pending');
    // while it waits, its first documents are not changed
    expect(await c.find({ n: 1 }).toArray()).to.deep.equal([]);
    await session.commitTransaction();
    expect((await outside).modifiedCount).to.equal(3);
    expect(await c.find().sort({ _id: 1 }).toArray()).to.deep.equal([
      { _id: 1, n: 1 },
      { _id: 2, n: 1 },
      { _id: 3, n: 1, t: 1 },
    ]);
  });

  it('the wait is bounded by maxTimeMS (MaxTimeMSExpired, 50)', async () => {
    session.startTransaction();
    await db.collection<Id>('c').updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session });
    const expired = await failure(db.command({ update: 'c', updates: [{ q: { _id: 1 }, u: { $inc: { n: 5 } } }], maxTimeMS: 100 }));
    expect(expired.code).to.equal(50);
    expect(expired.codeName).to.equal('MaxTimeMSExpired');
    await session.commitTransaction();
    expect(await db.collection<Id>('c').findOne({ _id: 1 })).to.deep.equal({ _id: 1, n: 1 });
  });

  it('a plain drop waits for a transaction that wrote to the collection', async () => {
    session.startTransaction();
    await db.collection<Id>('c').insertOne({ _id: 2, n: 0 }, { session });
    const drop = db.collection('c').drop();
    expect(await settledWithin(drop, 100)).to.equal('pending');
    await session.commitTransaction();
    expect(await drop).to.equal(true);
    expect(await db.collection('c').countDocuments()).to.equal(0);
  });
});

describe('emulator conformance: transactions at scale', () => {
  const mongo = useMongo();

  it('a bulk insert of 10,000 documents with a unique index in a transaction stays linear', async function () {
    this.timeout(60_000);
    const db = mongo.db('snapbulk');
    const time = async (n: number): Promise<number> => {
      const c = db.collection(`bulk${n}`);
      await c.createIndex({ k: 1 }, { unique: true });
      const docs = Array.from({ length: n }, (_, i) => ({ k: i, pad: 'x'.repeat(20) }));
      const session = mongo.client.startSession();
      const started = process.hrtime.bigint();
      try {
        await session.withTransaction(async () => {
          await c.insertMany(docs, { session });
        });
      } finally {
        await session.endSession();
      }
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      expect(await c.countDocuments()).to.equal(n);
      return ms;
    };
    await time(1_000); // warm-up
    const small = await time(2_500);
    const large = await time(10_000);
    // 4x the documents: linear is ~4x; quadratic would be ~16x
    expect(large / small, `2,500 in ${small.toFixed(0)} ms, 10,000 in ${large.toFixed(0)} ms`).to.be.below(8);
  });
});

describe('emulator conformance: a large write as the first command of a transaction', () => {
  const mongo = useMongo();

  it('carries the transaction options once (a batch over 1,000 statements runs in slices)', async () => {
    const db = mongo.db('snapslice');
    await db.createCollection('c');
    const session = mongo.client.startSession();
    try {
      session.startTransaction({ readConcern: { level: 'snapshot' } });
      await db.collection('c').insertMany(Array.from({ length: 2_500 }, (_, i) => ({ i })), { session });
      expect(await db.collection('c').countDocuments()).to.equal(0);
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect(await db.collection('c').countDocuments()).to.equal(2_500);
  });
});

describe('emulator conformance: snapshot reads outside transactions (readConcern snapshot)', () => {
  const mongo = useMongo();

  it('a snapshot session reads every time as of its first read; atClusterTime comes back on the cursor', async () => {
    const db = mongo.db('snapread');
    const c = db.collection<Id>('c');
    await c.insertMany([
      { _id: 1, n: 1 },
      { _id: 2, n: 2 },
    ]);
    const session = mongo.client.startSession({ snapshot: true });
    const later = mongo.client.startSession({ snapshot: true });
    try {
      expect(await c.find({}, { session }).toArray()).to.have.length(2);
      const time = (session as unknown as { snapshotTime?: unknown }).snapshotTime;
      expect(time, 'atClusterTime of the first snapshot read').to.not.equal(undefined);
      await c.insertOne({ _id: 3, n: 3 });
      await c.updateOne({ _id: 1 }, { $set: { n: 10 } });
      expect(await c.find({}, { session }).sort({ _id: 1 }).toArray()).to.deep.equal([
        { _id: 1, n: 1 },
        { _id: 2, n: 2 },
      ]);
      expect(await c.distinct('n', {}, { session })).to.have.members([1, 2]);
      expect(await c.countDocuments({}, { session })).to.equal(2);
      // another session asking for the same time sees the same state
      (later as unknown as { snapshotTime?: unknown }).snapshotTime = time;
      expect(await c.findOne({ _id: 1 }, { session: later })).to.deep.equal({ _id: 1, n: 1 });
      expect(await c.countDocuments()).to.equal(3);
    } finally {
      await session.endSession();
      await later.endSession();
    }
  });

  it('a snapshot read at a time no longer kept is SnapshotTooOld (239); one in the future is InvalidOptions', async () => {
    const db = mongo.db('snapread');
    await db.collection('c').insertOne({ a: 1 });
    const info = await db.command({ find: 'c', readConcern: { level: 'snapshot' } });
    const at = info.cursor.atClusterTime as Timestamp;
    expect(at).to.be.instanceOf(Timestamp);
    await db.collection('c').insertOne({ a: 2 });
    // `at` is kept: reads at it still work
    expect((await db.command({ find: 'c', readConcern: { level: 'snapshot', atClusterTime: at } })).cursor.firstBatch).to.have.length(1);
    const stale = new Timestamp({ t: at.t, i: at.i - 1 });
    const tooOld = await failure(db.command({ find: 'c', readConcern: { level: 'snapshot', atClusterTime: stale } }));
    expect(tooOld.codeName).to.equal('SnapshotTooOld');
    const future = new Timestamp({ t: at.t, i: at.i + 1000 });
    expect((await failure(db.command({ find: 'c', readConcern: { level: 'snapshot', atClusterTime: future } }))).codeName).to.equal('InvalidOptions');
    expect((await failure(db.command({ insert: 'c', documents: [{}], readConcern: { level: 'snapshot' } }))).codeName).to.equal('InvalidOptions');
  });

  it('commitTransaction with an unsatisfiable write concern commits and reports writeConcernError (100)', async () => {
    const db = mongo.db('snapwc');
    await db.createCollection('c');
    const session = mongo.client.startSession();
    try {
      session.startTransaction({ writeConcern: { w: 10 } });
      await db.collection('c').insertOne({ _id: 1 } as never, { session });
      const error = await session.commitTransaction().then(
        () => undefined,
        (e: unknown) => e as { code?: number; errorLabels?: string[] },
      );
      expect(error?.code).to.equal(100);
    } finally {
      await session.endSession();
    }
    expect(await db.collection('c').countDocuments()).to.equal(1);
  });
});

describe('emulator conformance: session fields of a command, as the server validates them', () => {
  const state = new EmulatorState();
  const lsid = { id: new Binary(Buffer.alloc(16, 7), 4) };
  let requestId = 0;
  const send = (command: Record<string, unknown>, db = 'v'): Record<string, unknown> =>
    execute(state, { opCode: 2013, requestId: ++requestId, command, db, moreToCome: false, exhaustAllowed: false } as Request, 1);

  const refused = (reply: Record<string, unknown>, codeName: string, errmsg?: string): void => {
    expect(reply.ok, JSON.stringify(reply)).to.equal(0);
    expect(reply.codeName).to.equal(codeName);
    if (errmsg !== undefined) expect(reply.errmsg).to.equal(errmsg);
  };

  it('refuses malformed transaction fields with InvalidOptions', () => {
    refused(send({ find: 'c', lsid, txnNumber: 1, autocommit: true }), 'InvalidOptions', 'Specifying autocommit=true is not allowed.');
    refused(send({ find: 'c', lsid, autocommit: false }), 'InvalidOptions', "'autocommit' field requires a transaction number to also be specified");
    refused(send({ insert: 'c', documents: [{}], lsid, txnNumber: 1, startTransaction: true }), 'InvalidOptions', "'startTransaction' field requires 'autocommit' field to also be specified");
    refused(send({ find: 'c', lsid, txnNumber: 1, autocommit: false, startTransaction: false }), 'InvalidOptions', 'Specifying startTransaction=false is not allowed.');
    refused(send({ find: 'c', txnNumber: 1, autocommit: false }), 'InvalidOptions', 'Transaction number requires a session ID to also be specified');
    refused(send({ find: 'c', lsid, txnNumber: 1 }), 'NotARetryableWriteCommand');
    refused(send({ ping: 1, lsid, txnNumber: 1, autocommit: false }), 'OperationNotSupportedInTransaction', 'This command is not supported in transactions');
  });

  it('first commands that cannot start a transaction, and transaction numbers out of order', () => {
    refused(send({ killCursors: 'c', cursors: [], lsid, txnNumber: 1, autocommit: false, startTransaction: true }), 'OperationNotSupportedInTransaction', 'Cannot run killCursors as the first operation in a multi-document transaction.');
    refused(send({ commitTransaction: 1, lsid, txnNumber: 1, autocommit: false, startTransaction: true }, 'admin'), 'OperationNotSupportedInTransaction', 'Cannot start a transaction with a commit');
    refused(send({ listCollections: 1, lsid, txnNumber: 1, autocommit: false, startTransaction: true }), 'OperationNotSupportedInTransaction', "Cannot run 'listCollections' in a multi-document transaction.");

    expect(send({ insert: 'c', documents: [{ _id: 1 }], lsid, txnNumber: 5, autocommit: false, startTransaction: true }).ok).to.equal(1);
    refused(send({ find: 'c', lsid, txnNumber: 5, autocommit: false, startTransaction: true }), 'ConflictingOperationInProgress');
    refused(send({ find: 'c', lsid, txnNumber: 4, autocommit: false }), 'TransactionTooOld');
    const mismatch = send({ find: 'c', lsid, txnNumber: 6, autocommit: false });
    refused(mismatch, 'NoSuchTransaction', 'Given transaction number 6 does not match any in-progress transactions. The active transaction number is 5');
    expect(mismatch.errorLabels).to.deep.equal(['TransientTransactionError']);
    refused(send({ find: 'c', lsid, txnNumber: 5, autocommit: false, readConcern: { level: 'snapshot' } }), 'InvalidOptions', 'Only the first command in a transaction may specify a readConcern');
    refused(send({ insert: 'c', documents: [{}], lsid, txnNumber: 5, autocommit: false, writeConcern: { w: 1 } }), 'InvalidOptions', 'writeConcern is not allowed within a multi-statement transaction');
    // none of these refusals ended the transaction
    expect(send({ commitTransaction: 1, lsid, txnNumber: 5, autocommit: false }, 'admin').ok).to.equal(1);
    // commit is retryable; abort after commit and anything else after commit are not
    expect(send({ commitTransaction: 1, lsid, txnNumber: 5, autocommit: false }, 'admin').ok).to.equal(1);
    refused(send({ abortTransaction: 1, lsid, txnNumber: 5, autocommit: false }, 'admin'), 'TransactionCommitted', 'Transaction with { txnNumber: 5, txnRetryCounter: 0 } has been committed.');
    refused(send({ find: 'c', lsid, txnNumber: 5, autocommit: false }), 'TransactionCommitted');
  });

  it('after an abort: NoSuchTransaction with TransientTransactionError, for commit and abort too', () => {
    expect(send({ insert: 'c', documents: [{ _id: 2 }], lsid, txnNumber: 8, autocommit: false, startTransaction: true }).ok).to.equal(1);
    expect(send({ abortTransaction: 1, lsid, txnNumber: 8, autocommit: false }, 'admin').ok).to.equal(1);
    for (const command of [{ find: 'c' }, { commitTransaction: 1 }, { abortTransaction: 1 }]) {
      const db = 'find' in command ? 'v' : 'admin';
      const reply = send({ ...command, lsid, txnNumber: 8, autocommit: false }, db);
      refused(reply, 'NoSuchTransaction', 'Transaction with { txnNumber: 8, txnRetryCounter: 0 } has been aborted.');
      expect(reply.errorLabels).to.deep.equal(['TransientTransactionError']);
    }
  });
});

describe('emulator internals: old versions are kept only while a snapshot needs them', () => {
  it('history grows while a transaction is open and is dropped when the last snapshot that can read it closes', () => {
    const store = new Store();
    const txns = new TransactionManager(store);
    const coll = store.ensure('db', 'c').coll;
    const plain = (): Scope => new Scope(store, txns);
    plain().write(coll, keyOf(1), { _id: 1, v: 0 }, true);
    plain().write(coll, keyOf(1), { _id: 1, v: 1 }, false);
    expect(coll.history.size, 'no transaction open: nothing kept').to.equal(0);

    const older = txns.start('s1', 1);
    plain().write(coll, keyOf(1), { _id: 1, v: 2 }, false);
    const newer = txns.start('s2', 1);
    plain().write(coll, keyOf(1), { _id: 1, v: 3 }, false);
    plain().write(coll, keyOf(2), { _id: 2 }, true);
    expect(new Scope(store, txns, older).list(coll)).to.deep.equal([{ _id: 1, v: 1 }]);
    expect(new Scope(store, txns, newer).list(coll)).to.deep.equal([{ _id: 1, v: 2 }]);
    expect(new Scope(store, txns, older).readsCommitted(coll)).to.equal(false);
    expect(coll.history.get(keyOf(1))).to.have.length(2);

    txns.abort(older);
    // only the version the newer snapshot reads is left
    expect(coll.history.get(keyOf(1))).to.deep.equal([{ seq: store.currentSeq - 2, doc: { _id: 1, v: 2 } }]);
    expect(new Scope(store, txns, newer).visible(coll, keyOf(1))).to.deep.equal({ _id: 1, v: 2 });
    txns.commit(newer);
    expect(coll.history.size).to.equal(0);
    expect(plain().list(coll)).to.deep.equal([{ _id: 1, v: 3 }, { _id: 2 }]);
  });
});
