import { expect } from 'chai';
import { MongoServerError, ObjectId, type Collection, type Db, type Document } from 'mongodb';
import { freshDbName, useMongo } from './helpers';

describe('emulator conformance: updates, upserts, findAndModify', () => {
  const mongo = useMongo();
  let db: Db;
  let c: Collection<Document>;
  beforeEach(() => {
    db = mongo.client.db(freshDbName('updates'));
    c = db.collection('docs');
  });
  afterEach(async () => {
    await db.dropDatabase();
  });

  async function one(filter: Document = {}): Promise<Document> {
    const doc = await c.findOne(filter, { projection: { _id: 0 } });
    expect(doc).to.not.equal(null);
    return doc!;
  }

  it('field operators: $set (dotted), $unset, $rename, $setOnInsert is ignored on update', async () => {
    await c.insertOne({ a: 1, b: { c: 2 }, old: 'x', gone: true });
    await c.updateOne({ a: 1 }, { $set: { 'b.d': 3, e: 'new' }, $unset: { gone: '' }, $rename: { old: 'renamed' }, $setOnInsert: { never: 1 } });
    expect(await one()).to.deep.equal({ a: 1, b: { c: 2, d: 3 }, e: 'new', renamed: 'x' });
  });

  it('arithmetic operators: $inc, $mul, $min, $max', async () => {
    await c.insertOne({ n: 10, m: 3, lo: 5, hi: 5 });
    await c.updateOne({}, { $inc: { n: -4, fresh: 1 }, $mul: { m: 2.5 }, $min: { lo: 2 }, $max: { hi: 9 } });
    expect(await one()).to.deep.equal({ n: 6, m: 7.5, lo: 2, hi: 9, fresh: 1 });
  });

  it('$currentDate sets a Date', async () => {
    await c.insertOne({ k: 1 });
    const before = Date.now();
    await c.updateOne({ k: 1 }, { $currentDate: { at: true } });
    const doc = await one();
    expect(doc.at).to.be.instanceOf(Date);
    expect(doc.at.getTime()).to.be.at.least(before - 1000);
  });

  it('array operators: $push ($each/$slice/$sort), $addToSet, $pop, $pull, $pullAll', async () => {
    await c.insertOne({ a: [3, 1], s: ['x'], p: [1, 2, 3], q: [1, 2, 3, 2], r: [1, 2, 3, 4] });
    await c.updateOne(
      {},
      {
        $push: { a: { $each: [5, 2], $sort: 1, $slice: 3 } },
        $addToSet: { s: { $each: ['x', 'y'] } },
        $pop: { p: -1 },
        $pull: { q: 2 },
        $pullAll: { r: [1, 4] },
      } as Document,
    );
    expect(await one()).to.deep.equal({ a: [1, 2, 3], s: ['x', 'y'], p: [2, 3], q: [1, 3], r: [2, 3] });
  });

  it('$pull with a condition and $bit', async () => {
    await c.insertOne({ items: [{ q: 1 }, { q: 5 }, { q: 8 }], flags: 5 });
    await c.updateOne({}, { $pull: { items: { q: { $gte: 5 } } }, $bit: { flags: { or: 2 } } } as Document);
    expect(await one()).to.deep.equal({ items: [{ q: 1 }], flags: 7 });
  });

  it('positional $ and all-positional $[] operators', async () => {
    await c.insertOne({ grades: [80, 85, 90], items: [{ n: 1 }, { n: 2 }] });
    await c.updateOne({ grades: 85 }, { $set: { 'grades.$': 86 } });
    await c.updateOne({}, { $inc: { 'items.$[].n': 10 } });
    expect(await one()).to.deep.equal({ grades: [80, 86, 90], items: [{ n: 11 }, { n: 12 }] });
  });

  it('arrayFilters with filtered positional $[<id>]', async () => {
    await c.insertOne({ items: [{ q: 1, ok: false }, { q: 6, ok: false }, { q: 9, ok: false }] });
    const res = await c.updateOne({}, { $set: { 'items.$[big].ok': true } }, { arrayFilters: [{ 'big.q': { $gt: 5 } }] });
    expect(res.modifiedCount).to.equal(1);
    expect((await one()).items.map((i: Document) => i.ok)).to.deep.equal([false, true, true]);
  });

  it('updateMany reports matched and modified counts (no-op updates are not modified)', async () => {
    await c.insertMany([{ g: 1, v: 1 }, { g: 1, v: 2 }, { g: 2, v: 1 }]);
    const res = await c.updateMany({ g: 1 }, { $set: { v: 1 } });
    expect(res.matchedCount).to.equal(2);
    expect(res.modifiedCount).to.equal(1);
    const none = await c.updateMany({ g: 42 }, { $set: { v: 0 } });
    expect(none.matchedCount).to.equal(0);
  });

  it('pipeline-style updates', async () => {
    await c.insertOne({ first: 'Ada', last: 'Lovelace' });
    await c.updateOne({}, [{ $set: { full: { $concat: ['$first', ' ', '$last'] } } }, { $unset: 'first' }]);
    expect(await one()).to.deep.equal({ last: 'Lovelace', full: 'Ada Lovelace' });
  });

  it('upsert inserts from the filter equality fields plus $set and $setOnInsert', async () => {
    const res = await c.updateOne({ sku: 'abc', 'meta.kind': 'k', qty: { $gt: 1 } }, { $set: { price: 5 }, $setOnInsert: { created: true } }, { upsert: true });
    expect(res.upsertedCount).to.equal(1);
    expect(res.upsertedId).to.be.instanceOf(ObjectId);
    expect(await one()).to.deep.equal({ sku: 'abc', meta: { kind: 'k' }, price: 5, created: true });
    const again = await c.updateOne({ sku: 'abc' }, { $set: { price: 6 }, $setOnInsert: { created: false } }, { upsert: true });
    expect(again.upsertedCount).to.equal(0);
    expect(again.modifiedCount).to.equal(1);
    expect((await one()).created).to.equal(true);
  });

  it('replacement upsert takes _id from the filter', async () => {
    await c.replaceOne({ _id: 'fixed' as unknown as ObjectId }, { v: 1 }, { upsert: true });
    expect(await c.findOne({ _id: 'fixed' as unknown as ObjectId })).to.deep.equal({ _id: 'fixed', v: 1 });
  });

  it('rejects an unknown update operator naming it', async () => {
    await c.insertOne({ a: 1 });
    try {
      await c.updateOne({}, { $frobnicate: { a: 1 } } as Document);
      expect.fail('should throw');
    } catch (err) {
      expect(err).to.be.instanceOf(MongoServerError);
      expect((err as MongoServerError).message).to.contain('$frobnicate');
    }
  });

  it('rejects modifying _id through $set', async () => {
    const { insertedId } = await c.insertOne({ a: 1 });
    try {
      await c.updateOne({ _id: insertedId }, { $set: { _id: new ObjectId() } });
      expect.fail('should throw');
    } catch (err) {
      expect((err as MongoServerError).code).to.equal(66);
    }
  });

  it('findOneAndUpdate returns the document before or after, with sort and projection', async () => {
    await c.insertMany([{ k: 'a', n: 1 }, { k: 'a', n: 2 }]);
    const before = await c.findOneAndUpdate({ k: 'a' }, { $inc: { n: 10 } }, { sort: { n: -1 }, projection: { _id: 0, n: 1 } });
    expect(before).to.deep.equal({ n: 2 });
    const after = await c.findOneAndUpdate({ k: 'a' }, { $inc: { n: 100 } }, { sort: { n: 1 }, returnDocument: 'after', projection: { _id: 0, n: 1 } });
    expect(after).to.deep.equal({ n: 101 });
  });

  it('findOneAndUpdate with upsert returns the new document; without match returns null', async () => {
    expect(await c.findOneAndUpdate({ k: 'none' }, { $set: { v: 1 } })).to.equal(null);
    const created = await c.findOneAndUpdate({ k: 'new' }, { $set: { v: 2 } }, { upsert: true, returnDocument: 'after' });
    expect(created).to.include({ k: 'new', v: 2 });
    const raw = await c.findOneAndUpdate({ k: 'new2' }, { $set: { v: 3 } }, { upsert: true, includeResultMetadata: true });
    expect(raw.value).to.equal(null);
    expect(raw.lastErrorObject?.updatedExisting).to.equal(false);
    expect(raw.lastErrorObject?.upserted).to.be.instanceOf(ObjectId);
  });

  it('findOneAndReplace and findOneAndDelete', async () => {
    await c.insertMany([{ k: 1 }, { k: 2 }]);
    const replaced = await c.findOneAndReplace({ k: 1 }, { k: 1, replaced: true }, { returnDocument: 'after', projection: { _id: 0 } });
    expect(replaced).to.deep.equal({ k: 1, replaced: true });
    const deleted = await c.findOneAndDelete({}, { sort: { k: -1 }, projection: { _id: 0 } });
    expect(deleted).to.deep.equal({ k: 2 });
    expect(await c.countDocuments()).to.equal(1);
  });
});
