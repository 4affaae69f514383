import { expect } from 'chai';
import { MongoServerError } from 'mongodb';
import { useMongo } from './helpers';
import { boundedBsonSize, BSON_OBJECT_LIMIT } from '../../lib/testing/emulator/reply-size';

/**
 * A result document over the BSON limit is MongoDB's error 10334 (BSONObjectTooLarge), answered
 * to the command; the server (and the process hosting the emulator) keeps serving.
 */
describe('emulator conformance: result documents over 16 MB', () => {
  const mongo = useMongo();

  async function failure(work: () => Promise<unknown>): Promise<MongoServerError> {
    try {
      await work();
    } catch (err) {
      return err as MongoServerError;
    }
    throw new Error('expected the command to fail');
  }

  it('an aggregation whose one result document is over 16 MB fails with code 10334, and the server answers on', async function () {
    this.timeout(60_000);
    const c = mongo.db('size').collection('big');
    const chunk = 'x'.repeat(1024 * 1024);
    await c.insertMany(Array.from({ length: 18 }, (_, i) => ({ i, chunk })));
    const err = await failure(() => c.aggregate([{ $group: { _id: null, all: { $push: '$chunk' } } }]).toArray());
    expect(err).to.be.instanceOf(MongoServerError);
    expect(err.code).to.equal(10334);
    expect(err.codeName).to.equal('BSONObjectTooLarge');
    expect(err.message).to.match(/BSONObj size: .* is invalid/);
    expect(await c.db.command({ ping: 1 })).to.include({ ok: 1 });
    // the same documents in a result under the limit still come back
    const small = await c.aggregate([{ $limit: 15 }, { $group: { _id: null, n: { $sum: 1 } } }]).toArray();
    expect(small[0].n).to.equal(15);
  });

  it('a $lookup fan-out of millions of nested documents fails with 10334 quickly instead of crashing the host', async function () {
    this.timeout(60_000);
    const db = mongo.db('fanout');
    const categories = db.collection('categories');
    const products = db.collection('products');
    const { insertedId } = await categories.insertOne({ name: 'c' });
    await products.insertMany(Array.from({ length: 20 }, (_, i) => ({ name: `p${i}`, category_id: insertedId })));
    // products.category.products.category... : 20^5 products in one document
    let inner: object[] = [];
    for (let level = 0; level < 5; level++) {
      const byCategory = { $lookup: { from: 'products', let: { k: '$_id' }, pipeline: [{ $match: { $expr: { $eq: ['$category_id', '$$k'] } } }, ...inner], as: 'products' } };
      const byProduct = { $lookup: { from: 'categories', let: { k: '$category_id' }, pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$k'] } } }, byCategory], as: 'category' } };
      inner = [byProduct];
    }
    const started = Date.now();
    const err = await failure(() => products.aggregate([{ $limit: 1 }, ...inner]).toArray());
    // mongod itself may stop earlier, at the $lookup's own 16 MB bound (4568)
    expect(err.code, err.message).to.be.oneOf([10334, 4568]);
    expect(Date.now() - started).to.be.below(30_000);
    expect(await db.command({ ping: 1 })).to.include({ ok: 1 });
  });

  it('a message whose length field is below the header closes that connection only; the server answers on', async function () {
    this.timeout(30_000);
    const net = await import('node:net');
    const port = Number(/:(\d+)\//.exec(mongo.handle.uri)?.[1]);
    const closed = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        const bytes = Buffer.alloc(32);
        bytes.writeInt32LE(0, 0); // length 0: a loop that never advanced, before
        socket.write(bytes);
      });
      socket.on('close', () => resolve(true));
      socket.on('error', () => undefined);
      setTimeout(() => resolve(false), 5000).unref();
    });
    expect(closed).to.equal(true);
    expect(await mongo.client.db('admin').command({ ping: 1 })).to.include({ ok: 1 });
  });

  it('boundedBsonSize stops counting past the limit and sizes ordinary documents like BSON', () => {
    expect(boundedBsonSize({ a: 1 })).to.equal(12);
    const shared = Array.from({ length: 100 }, (_, i) => ({ i }));
    let nested: unknown = shared;
    for (let k = 0; k < 4; k++) nested = Array.from({ length: 100 }, () => ({ children: nested }));
    expect(boundedBsonSize({ nested } as Record<string, unknown>)).to.equal(null);
    expect(BSON_OBJECT_LIMIT).to.equal(16_793_600);
  });
});
