import { expect } from 'chai';
import { Binary, Decimal128, Long, MongoServerError, ObjectId, Timestamp, type Db } from 'mongodb';
import { freshDbName, useMongo } from './helpers';

describe('emulator conformance: handshake, CRUD, cursors', () => {
  const mongo = useMongo();
  let db: Db;
  beforeEach(() => {
    db = mongo.client.db(freshDbName('basics'));
  });
  afterEach(async () => {
    await db.dropDatabase();
  });

  it('answers hello as a writable replica-set primary with sessions', async () => {
    const hello = await db.admin().command({ hello: 1 });
    expect(hello.isWritablePrimary).to.equal(true);
    expect(hello.setName).to.be.a('string');
    expect(hello.hosts).to.be.an('array').that.is.not.empty;
    expect(hello.maxWireVersion).to.be.at.least(21);
    expect(hello.logicalSessionTimeoutMinutes).to.be.a('number');
  });

  it('answers legacy isMaster and ping', async () => {
    const res = await db.admin().command({ isMaster: 1 });
    expect(res.ismaster).to.equal(true);
    expect((await db.command({ ping: 1 })).ok).to.equal(1);
  });

  it('answers buildInfo with a version', async () => {
    const info = await db.admin().command({ buildInfo: 1 });
    expect(info.version).to.match(/^\d+\.\d+/);
    expect(info.versionArray).to.be.an('array');
  });

  it('fails an unknown command with CommandNotFound (59)', async () => {
    try {
      await db.command({ frobnicate: 1 });
      expect.fail('should throw');
    } catch (err) {
      expect(err).to.be.instanceOf(MongoServerError);
      expect((err as MongoServerError).code).to.equal(59);
      expect((err as MongoServerError).codeName).to.equal('CommandNotFound');
      expect((err as MongoServerError).message).to.contain('frobnicate');
    }
  });

  it('generates an ObjectId _id and returns documents in insertion order', async () => {
    const c = db.collection('things');
    const res = await c.insertMany([{ n: 3 }, { n: 1 }, { n: 2 }]);
    expect(res.insertedCount).to.equal(3);
    const docs = await c.find().toArray();
    expect(docs.map((d) => d.n)).to.deep.equal([3, 1, 2]);
    expect(docs[0]._id).to.be.instanceOf(ObjectId);
    expect(docs[0]._id.equals(res.insertedIds[0])).to.equal(true);
  });

  it('round-trips BSON types exactly', async () => {
    const c = db.collection('types');
    const doc = {
      _id: new ObjectId(),
      date: new Date('2020-02-03T04:05:06.789Z'),
      dec: Decimal128.fromString('12345.6789'),
      long: Long.fromString('9007199254740993'),
      bin: new Binary(Buffer.from([1, 2, 3])),
      ts: new Timestamp({ t: 5, i: 1 }),
      nested: { arr: [1, 'two', { three: 3 }], nil: null },
      re: /ab+c/i,
      bool: false,
      str: 'héllo',
      dbl: 1.5,
    };
    await c.insertOne(doc);
    const back = await c.findOne({ _id: doc._id }, { promoteLongs: false });
    expect(back).to.not.equal(null);
    expect(back!.date.getTime()).to.equal(doc.date.getTime());
    expect(back!.dec.toString()).to.equal('12345.6789');
    expect(Long.isLong(back!.long) && back!.long.toString()).to.equal('9007199254740993');
    expect(Buffer.from(back!.bin.buffer).equals(Buffer.from([1, 2, 3]))).to.equal(true);
    expect(back!.ts.equals(doc.ts)).to.equal(true);
    expect(back!.nested).to.deep.equal(doc.nested);
    expect(back!.re.source).to.equal('ab+c');
    expect(back!.bool).to.equal(false);
    expect(back!.str).to.equal('héllo');
    expect(back!.dbl).to.equal(1.5);
  });

  it('matches ObjectIds with $eq and $in, and sorts by ObjectId and Date', async () => {
    const c = db.collection('oids');
    const ids = [new ObjectId('000000000000000000000003'), new ObjectId('000000000000000000000001'), new ObjectId('000000000000000000000002')];
    await c.insertMany(ids.map((id, i) => ({ _id: id, at: new Date(2020, 0, 3 - i) })));
    expect(await c.findOne({ _id: new ObjectId(ids[1].toHexString()) })).to.not.equal(null);
    expect(await c.countDocuments({ _id: { $in: [new ObjectId(ids[0].toHexString()), ids[2]] } })).to.equal(2);
    const byId = await c.find().sort({ _id: 1 }).toArray();
    expect(byId.map((d) => d._id.toHexString().slice(-1))).to.deep.equal(['1', '2', '3']);
    const byDate = await c.find().sort({ at: 1 }).toArray();
    expect(byDate.map((d) => d._id.toHexString().slice(-1))).to.deep.equal(['2', '1', '3']);
  });

  it('filters with comparison, logical, element, array and regex operators', async () => {
    const c = db.collection('q');
    await c.insertMany([
      { n: 1, tags: ['a', 'b'], name: 'Alpha' },
      { n: 2, tags: ['b'], name: 'beta' },
      { n: 3, name: 'Gamma', extra: true },
    ]);
    expect(await c.countDocuments({ n: { $gt: 1, $lte: 3 } })).to.equal(2);
    expect(await c.countDocuments({ $or: [{ n: 1 }, { extra: { $exists: true } }] })).to.equal(2);
    expect(await c.countDocuments({ tags: 'b' })).to.equal(2);
    expect(await c.countDocuments({ tags: { $all: ['a', 'b'] } })).to.equal(1);
    expect(await c.countDocuments({ tags: { $size: 1 } })).to.equal(1);
    expect(await c.countDocuments({ name: { $regex: '^a', $options: 'i' } })).to.equal(1);
    expect(await c.countDocuments({ n: { $nin: [1, 2] } })).to.equal(1);
    expect(await c.countDocuments({ $nor: [{ n: 1 }, { n: 2 }] })).to.equal(1);
  });

  it('applies inclusion and exclusion projections', async () => {
    const c = db.collection('p');
    await c.insertOne({ a: 1, b: 2, c: { d: 3, e: 4 } });
    const inc = await c.findOne({}, { projection: { a: 1, 'c.d': 1, _id: 0 } });
    expect(inc).to.deep.equal({ a: 1, c: { d: 3 } });
    const exc = await c.findOne({}, { projection: { b: 0, c: 0 } });
    expect(Object.keys(exc!).sort()).to.deep.equal(['_id', 'a']);
  });

  it('sorts, skips and limits', async () => {
    const c = db.collection('s');
    await c.insertMany([5, 3, 9, 1, 7].map((n) => ({ n, g: n % 2 })));
    const docs = await c.find().sort({ n: -1 }).skip(1).limit(3).toArray();
    expect(docs.map((d) => d.n)).to.deep.equal([7, 5, 3]);
    const multi = await c.find({}, { sort: { g: 1, n: 1 } }).toArray();
    expect(multi.map((d) => d.n)).to.deep.equal([1, 3, 5, 7, 9]);
  });

  it('pages with getMore over more than 101 documents', async () => {
    const c = db.collection('many');
    await c.insertMany(Array.from({ length: 350 }, (_, i) => ({ i })));
    const all = await c.find().toArray();
    expect(all.length).to.equal(350);
    expect(all.map((d) => d.i)).to.deep.equal(Array.from({ length: 350 }, (_, i) => i));
    const cursor = c.find({}, { batchSize: 50 });
    let count = 0;
    for await (const _ of cursor) count++;
    expect(count).to.equal(350);
  });

  it('returns a first batch of 101 and an open cursor id, then getMore batches', async () => {
    const c = db.collection('raw');
    await c.insertMany(Array.from({ length: 150 }, (_, i) => ({ i })));
    const first = await db.command({ find: 'raw', filter: {} });
    expect(first.cursor.firstBatch.length).to.equal(101);
    expect(first.cursor.id.toString()).to.not.equal('0');
    const more = await db.command({ getMore: first.cursor.id, collection: 'raw', batchSize: 20 });
    expect(more.cursor.nextBatch.length).to.equal(20);
    expect(more.cursor.nextBatch[0].i).to.equal(101);
    const rest = await db.command({ getMore: first.cursor.id, collection: 'raw' });
    expect(rest.cursor.nextBatch.length).to.equal(29);
    expect(rest.cursor.id.toString()).to.equal('0');
  });

  it('singleBatch and negative limit close the cursor', async () => {
    await db.collection('sb').insertMany(Array.from({ length: 20 }, (_, i) => ({ i })));
    const res = await db.command({ find: 'sb', batchSize: 5, singleBatch: true });
    expect(res.cursor.firstBatch.length).to.equal(5);
    expect(res.cursor.id.toString()).to.equal('0');
  });

  it('killCursors releases a cursor so getMore fails with CursorNotFound', async () => {
    await db.collection('k').insertMany(Array.from({ length: 30 }, (_, i) => ({ i })));
    const first = await db.command({ find: 'k', batchSize: 2 });
    const id = first.cursor.id;
    const killed = await db.command({ killCursors: 'k', cursors: [id] });
    expect(killed.cursorsKilled.map(String)).to.deep.equal([id.toString()]);
    try {
      await db.command({ getMore: id, collection: 'k' });
      expect.fail('should throw');
    } catch (err) {
      expect((err as MongoServerError).code).to.equal(43);
    }
  });

  it('counts with count/countDocuments/estimatedDocumentCount', async () => {
    const c = db.collection('cnt');
    await c.insertMany(Array.from({ length: 12 }, (_, i) => ({ i, even: i % 2 === 0 })));
    expect(await c.countDocuments({ even: true })).to.equal(6);
    expect(await c.countDocuments({}, { skip: 10 })).to.equal(2);
    expect(await c.countDocuments({}, { limit: 5 })).to.equal(5);
    expect(await c.estimatedDocumentCount()).to.equal(12);
    const raw = await db.command({ count: 'cnt', query: { i: { $lt: 4 } } });
    expect(raw.n).to.equal(4);
  });

  it('distinct flattens arrays and applies the filter', async () => {
    const c = db.collection('d');
    await c.insertMany([{ t: ['x', 'y'], k: 1 }, { t: 'y', k: 1 }, { t: 'z', k: 2 }]);
    expect((await c.distinct('t', { k: 1 })).sort()).to.deep.equal(['x', 'y']);
    const oids = [new ObjectId(), new ObjectId()];
    await c.insertMany([{ o: oids[0] }, { o: new ObjectId(oids[0].toHexString()) }, { o: oids[1] }]);
    expect((await c.distinct('o')).length).to.equal(2);
  });

  it('deletes one or many', async () => {
    const c = db.collection('del');
    await c.insertMany([{ g: 1 }, { g: 1 }, { g: 1 }, { g: 2 }]);
    expect((await c.deleteOne({ g: 1 })).deletedCount).to.equal(1);
    expect((await c.deleteMany({ g: 1 })).deletedCount).to.equal(2);
    expect((await c.deleteMany({ g: 9 })).deletedCount).to.equal(0);
    expect(await c.countDocuments()).to.equal(1);
  });

  it('replaceOne keeps _id and rejects changing it', async () => {
    const c = db.collection('rep');
    const { insertedId } = await c.insertOne({ a: 1, b: 2 });
    await c.replaceOne({ _id: insertedId }, { c: 3 });
    expect(await c.findOne({ _id: insertedId })).to.deep.equal({ _id: insertedId, c: 3 });
    try {
      await c.replaceOne({ _id: insertedId }, { _id: new ObjectId(), c: 4 });
      expect.fail('should throw');
    } catch (err) {
      expect((err as MongoServerError).code).to.equal(66);
    }
  });

  it('rejects an unknown query operator with an error naming it', async () => {
    await db.collection('e').insertOne({ a: 1 });
    try {
      await db.collection('e').find({ a: { $frob: 1 } }).toArray();
      expect.fail('should throw');
    } catch (err) {
      expect(err).to.be.instanceOf(MongoServerError);
      expect((err as MongoServerError).message).to.contain('$frob');
    }
  });

  it('w:0 writes are applied without an acknowledgement', async () => {
    const c = db.collection('w0');
    const res = await c.insertOne({ quiet: true }, { writeConcern: { w: 0 } });
    expect(res.acknowledged).to.equal(false);
    // The next command on the same pool is processed after the unacknowledged one.
    let n = 0;
    for (let i = 0; i < 50 && n === 0; i++) n = await c.countDocuments({ quiet: true });
    expect(n).to.equal(1);
  });

  it('bulkWrite mixes inserts, updates and deletes', async () => {
    const c = db.collection('bulk');
    const res = await c.bulkWrite([
      { insertOne: { document: { k: 1 } } },
      { insertOne: { document: { k: 2 } } },
      { updateOne: { filter: { k: 1 }, update: { $set: { v: 'x' } } } },
      { deleteOne: { filter: { k: 2 } } },
      { updateOne: { filter: { k: 3 }, update: { $set: { v: 'y' } }, upsert: true } },
    ]);
    expect(res.insertedCount).to.equal(2);
    expect(res.modifiedCount).to.equal(1);
    expect(res.deletedCount).to.equal(1);
    expect(res.upsertedCount).to.equal(1);
    expect(await c.find({}, { projection: { _id: 0 } }).toArray()).to.deep.equal([{ k: 1, v: 'x' }, { k: 3, v: 'y' }]);
  });
});
