import { expect } from 'chai';
import { MongoBulkWriteError, MongoServerError, type Db } from 'mongodb';
import { useMongo } from './helpers';

async function expectDuplicate(p: Promise<unknown>): Promise<MongoServerError> {
  try {
    await p;
  } catch (err) {
    expect((err as MongoServerError).code).to.equal(11000);
    return err as MongoServerError;
  }
  throw new Error('expected E11000');
}

describe('emulator conformance: indexes and namespaces', () => {
  const mongo = useMongo();
  let db: Db;
  beforeEach(() => {
    db = mongo.db('idx');
  });

  it('enforces a unique index with E11000, keyPattern and keyValue', async () => {
    const c = db.collection('items');
    expect(await c.createIndex({ sku: 1 }, { unique: true })).to.equal('sku_1');
    await c.insertOne({ sku: 'x' });
    const err = await expectDuplicate(c.insertOne({ sku: 'x' }));
    expect(err.message).to.match(/^E11000 duplicate key error collection: \S+\.items index: sku_1 dup key: \{ sku: "x" \}/);
    expect(err.keyPattern).to.deep.equal({ sku: 1 });
    expect(err.keyValue).to.deep.equal({ sku: 'x' });
  });

  it('enforces a compound unique index on the combination only', async () => {
    const c = db.collection('pairs');
    await c.createIndex({ a: 1, b: 1 }, { unique: true, name: 'ab' });
    await c.insertMany([{ a: 1, b: 1 }, { a: 1, b: 2 }, { a: 2, b: 1 }]);
    const err = await expectDuplicate(c.insertOne({ a: 1, b: 2 }));
    expect(err.keyPattern).to.deep.equal({ a: 1, b: 1 });
    expect(err.keyValue).to.deep.equal({ a: 1, b: 2 });
  });

  it('rejects a duplicate _id', async () => {
    const c = db.collection('ids');
    await c.insertOne({ _id: 'k' as never });
    const err = await expectDuplicate(c.insertOne({ _id: 'k' as never }));
    expect(err.message).to.contain('index: _id_');
  });

  it('ordered insertMany stops at the first duplicate; unordered continues', async () => {
    const c = db.collection('batch');
    await c.createIndex({ k: 1 }, { unique: true });
    try {
      await c.insertMany([{ k: 1 }, { k: 2 }, { k: 1 }, { k: 3 }]);
      expect.fail('should throw');
    } catch (err) {
      expect(err).to.be.instanceOf(MongoBulkWriteError);
      const e = err as MongoBulkWriteError;
      expect(e.code).to.equal(11000);
      expect(e.result.insertedCount).to.equal(2);
      expect(e.writeErrors).to.have.length(1);
    }
    expect(await c.countDocuments()).to.equal(2);
    try {
      await c.insertMany([{ k: 1 }, { k: 4 }, { k: 2 }, { k: 5 }], { ordered: false });
      expect.fail('should throw');
    } catch (err) {
      const e = err as MongoBulkWriteError;
      expect(e.result.insertedCount).to.equal(2);
      expect((e.writeErrors as unknown[]).length).to.equal(2);
    }
    expect((await c.find().sort({ k: 1 }).toArray()).map((d) => d.k)).to.deep.equal([1, 2, 4, 5]);
  });

  it('enforces unique indexes on update, upsert and findOneAndUpdate', async () => {
    const c = db.collection('upd');
    await c.createIndex({ email: 1 }, { unique: true });
    await c.insertMany([{ email: 'a@x' }, { email: 'b@x' }]);
    await expectDuplicate(c.updateOne({ email: 'b@x' }, { $set: { email: 'a@x' } }));
    await expectDuplicate(c.updateOne({ email: 'c@x', name: 'n' }, { $set: { email: 'a@x' } }, { upsert: true }));
    await expectDuplicate(c.findOneAndUpdate({ email: 'b@x' }, { $set: { email: 'a@x' } }));
    expect(await c.countDocuments()).to.equal(2);
    expect(await c.countDocuments({ email: 'b@x' })).to.equal(1);
  });

  it('treats a missing field as null in a unique index; sparse indexes skip it', async () => {
    const plain = db.collection('plain');
    await plain.createIndex({ code: 1 }, { unique: true });
    await plain.insertOne({ other: 1 });
    await expectDuplicate(plain.insertOne({ other: 2 }));
    const sparse = db.collection('sparse');
    await sparse.createIndex({ code: 1 }, { unique: true, sparse: true });
    await sparse.insertMany([{ other: 1 }, { other: 2 }]);
    expect(await sparse.countDocuments()).to.equal(2);
  });

  it('accepts a partialFilterExpression and only enforces matching documents', async () => {
    const c = db.collection('partial');
    await c.createIndex({ user: 1 }, { unique: true, partialFilterExpression: { active: true } });
    await c.insertMany([{ user: 1, active: false }, { user: 1, active: true }]);
    await expectDuplicate(c.insertOne({ user: 1, active: true }));
  });

  it('fails to build a unique index over existing duplicates', async () => {
    const c = db.collection('prebuilt');
    await c.insertMany([{ v: 1 }, { v: 1 }]);
    await expectDuplicate(c.createIndex({ v: 1 }, { unique: true }));
    expect((await c.listIndexes().toArray()).map((i) => i.name)).to.deep.equal(['_id_']);
  });

  it('listIndexes always includes _id_; dropIndex and dropIndexes remove the others', async () => {
    const c = db.collection('li');
    await c.insertOne({ a: 1 });
    await c.createIndexes([{ key: { a: 1 } }, { key: { b: -1 }, name: 'b_desc', unique: true }]);
    const indexes = await c.listIndexes().toArray();
    expect(indexes.map((i) => i.name)).to.deep.equal(['_id_', 'a_1', 'b_desc']);
    expect(indexes[2].unique).to.equal(true);
    expect(indexes[2].key).to.deep.equal({ b: -1 });
    await c.dropIndex('a_1');
    expect((await c.listIndexes().toArray()).map((i) => i.name)).to.deep.equal(['_id_', 'b_desc']);
    await c.dropIndexes();
    expect((await c.listIndexes().toArray()).map((i) => i.name)).to.deep.equal(['_id_']);
    // The unique constraint went away with the index.
    await c.insertMany([{ b: 1 }, { b: 1 }]);
  });

  it('dropping a missing index fails with IndexNotFound; _id_ cannot be dropped', async () => {
    const c = db.collection('nodrop');
    await c.insertOne({});
    try {
      await c.dropIndex('nope_1');
      expect.fail('should throw');
    } catch (err) {
      expect((err as MongoServerError).code).to.equal(27);
    }
    try {
      await c.dropIndex('_id_');
      expect.fail('should throw');
    } catch (err) {
      expect((err as MongoServerError).code).to.equal(72);
    }
  });

  it('listIndexes on a missing collection fails with NamespaceNotFound', async () => {
    try {
      await db.collection('missing').listIndexes().toArray();
      expect.fail('should throw');
    } catch (err) {
      expect((err as MongoServerError).code).to.equal(26);
    }
  });

  it('createCollection, listCollections (filter, nameOnly) and NamespaceExists', async () => {
    await db.createCollection('alpha');
    await db.createCollection('beta');
    await db.collection('gamma').insertOne({});
    const all = await db.listCollections().toArray();
    expect(all.map((c) => c.name).sort()).to.deep.equal(['alpha', 'beta', 'gamma']);
    expect(all[0].type).to.equal('collection');
    const filtered = await db.listCollections({ name: 'beta' }, { nameOnly: true }).toArray();
    expect(filtered).to.deep.equal([{ name: 'beta', type: 'collection' }]);
    try {
      await db.command({ create: 'alpha' });
      expect.fail('should throw');
    } catch (err) {
      expect((err as MongoServerError).code).to.equal(48);
      expect((err as MongoServerError).codeName).to.equal('NamespaceExists');
    }
  });

  it('drop removes a collection and its data; dropDatabase removes the database', async () => {
    await db.collection('x').insertOne({ a: 1 });
    await db.collection('y').insertOne({ a: 1 });
    expect(await db.collection('x').drop()).to.equal(true);
    expect((await db.listCollections().toArray()).map((c) => c.name)).to.deep.equal(['y']);
    const before = await mongo.client.db('admin').admin().listDatabases();
    expect(before.databases.map((d) => d.name)).to.include(db.databaseName);
    await db.dropDatabase();
    const after = await mongo.client.db('admin').admin().listDatabases({ nameOnly: true });
    expect(after.databases.map((d) => d.name)).to.not.include(db.databaseName);
    expect(await db.collection('y').countDocuments()).to.equal(0);
  });
});
