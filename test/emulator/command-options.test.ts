import { expect } from 'chai';
import { MongoServerError, MongoWriteConcernError, Timestamp, type Collection, type Db } from 'mongodb';

type Row = { _id: number; [field: string]: unknown };
import { freshDbName, useMongo } from './helpers';

const rows = (db: Db, name: string): Collection<Row> => db.collection<Row>(name);

/** What a command is refused with: its code and codeName. */
async function refusal(work: Promise<unknown>): Promise<MongoServerError> {
  try {
    await work;
  } catch (err) {
    expect(err).to.be.instanceOf(MongoServerError);
    return err as MongoServerError;
  }
  return expect.fail('the command should have been refused');
}

describe('emulator conformance: let, collation, hint, validators, collection options', () => {
  const mongo = useMongo();
  let db: Db;
  beforeEach(async () => {
    db = mongo.client.db(freshDbName('options'));
    await rows(db, 'c').insertMany([
      { _id: 1, name: 'a', x: 1 },
      { _id: 2, name: 'b', x: 2 },
      { _id: 3, name: 'B', x: 3 },
    ]);
  });
  afterEach(async () => {
    await db.dropDatabase();
  });

  it('evaluates a top-level let for find, aggregate, update, delete and findAndModify', async () => {
    const c = rows(db, 'c');
    expect(await c.find({ $expr: { $eq: ['$_id', '$$id'] } }, { let: { id: 2 } }).toArray()).to.deep.equal([{ _id: 2, name: 'b', x: 2 }]);
    // let values are expressions: $literal keeps a dollar string
    const agg = await c.aggregate([{ $match: { _id: 1 } }, { $project: { _id: 0, v: '$$v' } }], { let: { v: { $literal: '$x' } } }).toArray();
    expect(agg).to.deep.equal([{ v: '$x' }]);
    const upd = await c.updateOne({ $expr: { $eq: ['$name', '$$n'] } }, [{ $set: { x: '$$nx' } }], { let: { n: 'a', nx: 10 } });
    expect(upd.modifiedCount).to.equal(1);
    expect((await c.findOne({ _id: 1 }))?.x).to.equal(10);
    const fam = await c.findOneAndUpdate({ $expr: { $eq: ['$_id', '$$id'] } }, { $inc: { x: 1 } } as never, { let: { id: 3 }, returnDocument: 'after' });
    expect(fam?.x).to.equal(4);
    expect((await c.deleteMany({ $expr: { $gt: ['$x', '$$min'] } }, { let: { min: 3 } })).deletedCount).to.equal(2);
  });

  it('compares strings under an English collation, and refuses what it cannot honour (238)', async () => {
    const c = rows(db, 'c');
    expect(await c.countDocuments({}, { collation: { locale: 'simple' } })).to.equal(3);
    const ci = { locale: 'en_US', strength: 2 };
    expect(await c.find({ name: 'b' }, { collation: ci, projection: { _id: 1 } }).toArray()).to.deep.equal([{ _id: 2 }, { _id: 3 }]);
    expect(await c.find({ name: 'b' }, { collation: { locale: 'en_US' } }).toArray()).to.have.length(1);
    expect(await c.distinct('name', {}, { collation: ci })).to.deep.equal(['a', 'b']);
    expect(await c.aggregate([{ $match: { name: 'B' } }, { $project: { _id: 1 } }], { collation: ci }).toArray()).to.have.length(2);
    expect((await c.updateMany({ name: 'B' }, { $set: { y: 1 } }, { collation: ci })).modifiedCount).to.equal(2);
    // ICU order: a < b < B at strength 3 (binary order would put B first)
    const sorted = await c.find({}, { sort: { name: 1 }, collation: { locale: 'en' } }).toArray();
    expect(sorted.map((d) => d.name)).to.deep.equal(['a', 'b', 'B']);
    expect((await refusal(c.find({ name: 'b' }, { collation: { locale: 'fr', strength: 2 } }).toArray())).code).to.equal(238);
    expect((await refusal(c.find({ name: { $gt: 'a' } }, { collation: ci }).toArray())).code).to.equal(238);
    expect((await refusal(c.aggregate([{ $group: { _id: '$name' } }], { collation: ci }).toArray())).code).to.equal(238);
    expect((await refusal(db.createCollection('d', { collation: { locale: 'en' } }))).code).to.equal(238);
    expect((await refusal(c.createIndex({ name: 1 }, { collation: { locale: 'en' } }))).code).to.equal(238);
  });

  it('checks that a hint names an existing index', async () => {
    const c = rows(db, 'c');
    await c.createIndex({ x: 1 });
    expect(await c.find({}, { hint: { x: 1 } }).toArray()).to.have.length(3);
    expect(await c.find({}, { hint: 'x_1' }).toArray()).to.have.length(3);
    const err = await refusal(c.find({}, { hint: 'nope_1' }).toArray());
    expect(err.code).to.equal(2);
    expect(err.message).to.match(/hint provided does not correspond to an existing index/);
    expect((await refusal(c.deleteOne({ _id: 1 }, { hint: { y: 1 } }))).code).to.equal(2);
  });

  it('refuses unknown index options (197) and text/geo indexes (238); lists indexes in batches', async () => {
    const c = rows(db, 'c');
    expect((await refusal(db.command({ createIndexes: 'c', indexes: [{ key: { x: 1 }, name: 'x_1', frobnicate: true }] }))).code).to.equal(197);
    expect((await refusal(c.createIndex({ name: 'text' }))).code).to.equal(238);
    expect((await refusal(c.createIndex({ loc: '2dsphere' }))).code).to.equal(238);
    await c.createIndex({ name: 'hashed' });
    await c.createIndex({ x: 1 });
    const first = await db.command({ listIndexes: 'c', cursor: { batchSize: 1 } });
    expect(first.cursor.firstBatch).to.have.length(1);
    expect(Number(first.cursor.id)).to.not.equal(0);
    expect(await c.listIndexes().toArray()).to.have.length(3);
  });

  it('refuses time-series and capped collections instead of creating plain ones', async () => {
    expect((await refusal(db.createCollection('t', { timeseries: { timeField: 'time' } }))).code).to.equal(238);
    expect((await refusal(db.createCollection('k', { capped: true, size: 4096 }))).code).to.equal(238);
    expect((await refusal(db.command({ create: 'u', frobnicate: 1 }))).code).to.equal(40415);
    const names = (await db.listCollections().toArray()).map((i) => i.name);
    expect(names).to.deep.equal(['c']);
  });

  it('serves read-only views: reads through the pipeline, writes refused (166)', async () => {
    await db.createCollection('big', { viewOn: 'c', pipeline: [{ $match: { x: { $gte: 2 } } }, { $project: { name: 1 } }] });
    await db.createCollection('upper', { viewOn: 'big', pipeline: [{ $match: { name: 'B' } }] });
    const big = rows(db, 'big');
    expect(await big.find({}, { sort: { _id: -1 } }).toArray()).to.deep.equal([{ _id: 3, name: 'B' }, { _id: 2, name: 'b' }]);
    expect(await big.find({ name: 'b' }, { projection: { _id: 0 } }).toArray()).to.deep.equal([{ name: 'b' }]);
    expect(await big.countDocuments()).to.equal(2);
    expect(await big.estimatedDocumentCount()).to.equal(2);
    expect(await big.distinct('name')).to.deep.equal(['b', 'B']);
    expect(await rows(db, 'upper').find().toArray()).to.deep.equal([{ _id: 3, name: 'B' }]);
    const joined = await rows(db, 'c').aggregate([{ $match: { _id: 3 } }, { $lookup: { from: 'big', localField: '_id', foreignField: '_id', as: 'v' } }]).toArray();
    expect(joined[0].v).to.deep.equal([{ _id: 3, name: 'B' }]);
    const info = await db.listCollections({ type: 'view' }).toArray();
    expect(info.map((i) => i.name).sort()).to.deep.equal(['big', 'upper']);
    expect((await refusal(big.insertOne({ _id: 9 }))).code).to.equal(166);
    expect((await refusal(big.deleteMany({}))).code).to.equal(166);
    expect((await refusal(big.createIndex({ name: 1 }))).code).to.equal(166);
    expect((await refusal(rows(db, 'c').aggregate([{ $out: 'big' }]).toArray())).code).to.equal(166);
    expect((await refusal(db.createCollection('bad', { viewOn: 'c', pipeline: [{ $out: 'x' }] }))).code).to.equal(167);
    await db.command({ collMod: 'big', viewOn: 'c', pipeline: [] });
    expect(await big.countDocuments()).to.equal(3);
    await big.drop();
    expect(await rows(db, 'c').countDocuments()).to.equal(3);
  });

  it('enforces a query-operator validator, with bypassDocumentValidation and collMod', async () => {
    await db.createCollection('v', { validator: { x: { $type: 'number' } } });
    const v = rows(db, 'v');
    await v.insertOne({ _id: 1, x: 1 });
    const err = await refusal(v.insertOne({ _id: 2, x: 'no' }));
    expect(err.code).to.equal(121);
    await v.insertOne({ _id: 3, x: 'bypassed' }, { bypassDocumentValidation: true });
    const upd = await refusal(v.findOneAndUpdate({ _id: 1 }, { $set: { x: 'str' } }));
    expect(upd.code).to.equal(121);
    expect(upd.errInfo?.failingDocumentId).to.equal(1);
    await db.command({ collMod: 'v', validationLevel: 'off' });
    await v.insertOne({ _id: 4, x: 'now allowed' });
    expect(await v.countDocuments()).to.equal(3);
    expect((await refusal(db.createCollection('j', { validator: { $jsonSchema: { required: ['x'] } } }))).code).to.equal(238);
  });

  it('converts an index to unique through collMod prepareUnique, then unique', async () => {
    const c = rows(db, 'c');
    await c.createIndex({ x: 1 });
    await c.insertOne({ _id: 4, x: 1 });
    expect((await db.command({ collMod: 'c', index: { keyPattern: { x: 1 }, prepareUnique: true } })).prepareUnique_new).to.equal(true);
    expect((await refusal(c.insertOne({ _id: 5, x: 2 }))).code).to.equal(11000);
    await c.updateOne({ _id: 4 }, { $set: { y: 1 } }); // keeps its (duplicated) key: allowed
    const err = await refusal(db.command({ collMod: 'c', index: { keyPattern: { x: 1 }, unique: true } }));
    expect(err.code).to.equal(359);
    expect(err.errorResponse.violations).to.deep.equal([{ ids: [1, 4] }]);
    await c.deleteOne({ _id: 4 });
    await db.command({ collMod: 'c', index: { keyPattern: { x: 1 }, unique: true } });
    expect((await c.listIndexes().toArray()).find((i) => i.name === 'x_1')?.unique).to.equal(true);
    expect((await refusal(c.updateOne({ _id: 3 }, { $set: { x: 1 } }))).code).to.equal(11000);
  });

  it('lists a clustered collection and its clustered index', async () => {
    await db.createCollection('cl', { clusteredIndex: { key: { _id: 1 }, unique: true, name: 'by id' } });
    const [info] = await db.listCollections({ name: 'cl' }, { nameOnly: false }).toArray();
    expect(info.options?.clusteredIndex).to.deep.equal({ v: 2, key: { _id: 1 }, name: 'by id', unique: true });
    const indexes = await rows(db, 'cl').listIndexes().toArray();
    expect(indexes).to.deep.equal([{ v: 2, key: { _id: 1 }, name: 'by id', unique: true, clustered: true }]);
  });

  it('refuses an _id with $-prefixed fields, snapshot reads on writes, and Atlas Search commands', async () => {
    expect((await refusal(rows(db, 'c').insertOne({ _id: { $a: 1 } } as never))).code).to.equal(52);
    expect((await refusal(db.command({ insert: 'c', documents: [{ _id: 9 }], readConcern: { level: 'snapshot' } }))).code).to.equal(72);
    expect((await refusal(rows(db, 'c').createSearchIndex({ name: 's', definition: { mappings: { dynamic: true } } }))).message).to.match(/Atlas/);
    expect((await refusal(rows(db, 'c').listSearchIndexes().toArray())).message).to.match(/Atlas/);
  });

  it('refuses unknown command fields (40415) and known ones it does not implement (238)', async () => {
    expect((await refusal(db.command({ find: 'c', filter: {}, frobnicate: 1 }))).code).to.equal(40415);
    expect((await refusal(db.command({ update: 'c', updates: [{ q: {}, u: { $set: { a: 1 } }, nope: 1 }] }))).code).to.equal(40415);
    expect((await refusal(rows(db, 'c').find({}, { min: { _id: 1 } }).toArray())).code).to.equal(238);
    expect((await refusal(rows(db, 'c').find({}, { showRecordId: true }).toArray())).code).to.equal(238);
  });

  it('lists local sessions with $listLocalSessions', async () => {
    const session = mongo.client.startSession();
    await rows(db, 'c').findOne({}, { session });
    const sessions = await mongo.client.db('admin').aggregate([{ $listLocalSessions: {} }]).toArray();
    expect(sessions.some((s) => Buffer.from(s._id.id.buffer).equals(Buffer.from(session.id!.id.buffer)))).to.equal(true);
    await session.endSession();
  });
  it('stamps replies with operationTime and $clusterTime, advancing with writes', async () => {
    const before = await db.command({ ping: 1 });
    expect(before.operationTime).to.be.instanceOf(Timestamp);
    expect(before.$clusterTime.clusterTime).to.be.instanceOf(Timestamp);
    expect(Number(before.$clusterTime.signature.keyId)).to.equal(0);
    const write = await db.command({ insert: 'c', documents: [{ _id: 10 }] });
    expect(write.operationTime.greaterThan(before.operationTime)).to.equal(true);
    const read = await db.command({ find: 'c', filter: {}, readConcern: { afterClusterTime: write.operationTime } });
    expect(read.cursor.firstBatch).to.have.length(4);
    const ahead = new Timestamp({ t: write.operationTime.high + 1000, i: 1 });
    expect((await refusal(db.command({ find: 'c', filter: {}, readConcern: { afterClusterTime: ahead } }))).code).to.equal(72);
    const failed = await refusal(db.command({ frobnicate: 1 }));
    expect(failed.errorResponse.operationTime).to.be.instanceOf(Timestamp);
  });

  it('answers w > 1 with a writeConcernError after applying the write', async () => {
    const err = await db.command({ insert: 'c', documents: [{ _id: 11 }], writeConcern: { w: 3 } }).then(
      () => expect.fail('a write concern error was expected'),
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(MongoWriteConcernError);
    expect((err as MongoWriteConcernError).code).to.equal(100);
    expect(await rows(db, 'c').countDocuments({ _id: 11 })).to.equal(1);
  });

  it('writes aggregate results with $out and $merge', async () => {
    const c = rows(db, 'c');
    await rows(db, 'o').insertOne({ _id: 99 });
    expect(await c.aggregate([{ $match: { x: { $gte: 2 } } }, { $out: 'o' }]).toArray()).to.deep.equal([]);
    expect(await rows(db, 'o').find().sort({ _id: 1 }).toArray()).to.deep.equal([{ _id: 2, name: 'b', x: 2 }, { _id: 3, name: 'B', x: 3 }]);
    await rows(db, 'm').insertMany([{ _id: 1, x: 100, keep: true }, { _id: 7, x: 7 }]);
    await c.aggregate([{ $project: { x: 1 } }, { $merge: { into: 'm' } }]).toArray();
    expect(await rows(db, 'm').find().sort({ _id: 1 }).toArray()).to.deep.equal([
      { _id: 1, x: 1, keep: true },
      { _id: 2, x: 2 },
      { _id: 3, x: 3 },
      { _id: 7, x: 7 },
    ]);
    await c.aggregate([{ $merge: { into: 'm', whenMatched: [{ $set: { x: { $add: ['$x', '$$new.x'] } } }], whenNotMatched: 'discard' } }]).toArray();
    expect((await rows(db, 'm').findOne({ _id: 3 }))?.x).to.equal(6);
    const dup = await refusal(c.aggregate([{ $merge: { into: 'm', whenMatched: 'fail' } }]).toArray());
    expect(dup.code).to.equal(11000);
  });
});
