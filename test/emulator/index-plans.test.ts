import { expect } from 'chai';
import { MongoClient, ObjectId, type Collection, type Db, type Document } from 'mongodb';
import { EmulatorState } from '../../lib/testing/emulator/commands';
import { listen, type RunningServer } from '../../lib/testing/emulator/server';

/**
 * The emulator's index planner (by-id.ts) only narrows candidates: every read through an index
 * must return exactly what a collection scan returns, in the same (natural) order. Two collections
 * hold the same documents, one with indexes, one without (always scanned); random filters,
 * updates and deletes run on both and the answers are compared. Then: an indexed equality on
 * 20,000 documents examines only its matches (the planner's counter, read from the server state).
 */
type Numbered = { _id: number } & Document;

describe('emulator: index plans', () => {
  let state: EmulatorState;
  let server: RunningServer;
  let client: MongoClient;
  let db: Db;

  before(async () => {
    state = new EmulatorState();
    server = await listen(state);
    state.host = `127.0.0.1:${server.port}`;
    client = await MongoClient.connect(`mongodb://127.0.0.1:${server.port}/?replicaSet=rs0&directConnection=true`);
    db = client.db('plans');
  });
  after(async () => {
    await client?.close();
    await server?.close();
  });

  /** Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed. */
  function random(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  const ids = Array.from({ length: 4 }, () => new ObjectId());
  const dates = [new Date(0), new Date(1_000), new Date(2_000)];

  function valueFrom(rnd: () => number): unknown {
    const pool: unknown[] = [0, 1, 2, -0, 1.5, -3, 'a', 'b', '1', true, false, null, ids[0], ids[1], ids[2], dates[0], dates[1], dates[2], [1, 2], ['a', 1], [], [[1]], [dates[1]], { x: 1 }, { x: 1, y: 2 }, { y: 2, x: 1 }];
    return pool[Math.floor(rnd() * pool.length)];
  }

  function documentFrom(rnd: () => number, i: number): Document {
    const doc: Document = { _id: i, i };
    // each field: missing, a value, or (for n) a sub-document / array of sub-documents
    if (rnd() < 0.85) doc.a = valueFrom(rnd);
    if (rnd() < 0.85) doc.b = valueFrom(rnd);
    if (rnd() < 0.5) doc.ref = ids[Math.floor(rnd() * ids.length)];
    // mostly numbers (so range plans are picked), a few dates and odd values
    const r = rnd();
    doc.num = r < 0.85 ? Math.floor(rnd() * 13) / 2 - 2 : r < 0.92 ? dates[Math.floor(rnd() * dates.length)] : valueFrom(rnd);
    const shape = rnd();
    if (shape < 0.4) doc.n = { x: valueFrom(rnd) };
    else if (shape < 0.6) doc.n = [{ x: valueFrom(rnd) }, { x: valueFrom(rnd) }];
    else if (shape < 0.7) doc.n = valueFrom(rnd);
    return doc;
  }

  function filterFrom(rnd: () => number): Document {
    const paths = ['a', 'b', 'ref', 'n.x', '_id', 'num', 'num'];
    const one = (): Document => {
      const path = paths[Math.floor(rnd() * paths.length)];
      const kind = rnd();
      const v = path === '_id' ? Math.floor(rnd() * 60) : path === 'ref' ? ids[Math.floor(rnd() * ids.length)] : valueFrom(rnd);
      if (kind < 0.3) return { [path]: v };
      if (kind < 0.4) return { [path]: { $eq: v } };
      if (kind < 0.6) return { [path]: { $in: [v, path === '_id' ? Math.floor(rnd() * 60) : valueFrom(rnd)] } };
      if (kind < 0.65) return { [path]: { $in: [v], $ne: valueFrom(rnd) } };
      // ranges: numbers and dates are read through the index's ordered part, anything else scans
      const bound = (): unknown => (path === '_id' ? Math.floor(rnd() * 60) : rnd() < 0.2 ? dates[Math.floor(rnd() * dates.length)] : rnd() < 0.9 ? Math.floor(rnd() * 13) / 2 - 2 : valueFrom(rnd));
      const [low, high] = [['$gt', '$gte'][Math.floor(rnd() * 2)], ['$lt', '$lte'][Math.floor(rnd() * 2)]];
      const shape = rnd();
      if (shape < 0.35) return { [path]: { [low]: bound() } };
      if (shape < 0.7) return { [path]: { [high]: bound() } };
      return { [path]: { [low]: bound(), [high]: bound() } };
    };
    const shape = rnd();
    if (shape < 0.5) return one();
    if (shape < 0.75) return { ...one(), ...one() };
    if (shape < 0.9) return { $and: [one(), one()] };
    return { $or: [one(), one()] };
  }

  /** A collection whose documents have numeric `_id`s (the driver's default typing wants ObjectIds). */
  const numbered = (name: string): Collection<Numbered> => db.collection<Numbered>(name);

  async function twins(name: string, docs: Document[]): Promise<[Collection<Numbered>, Collection<Numbered>]> {
    const indexed = numbered(`${name}_indexed`);
    const plain = numbered(`${name}_plain`);
    await indexed.createIndexes([{ key: { a: 1 } }, { key: { b: -1, a: 1 } }, { key: { 'n.x': 1 } }, { key: { ref: 'hashed' } }, { key: { num: -1 } }]);
    await indexed.insertMany(docs.map((d) => ({ ...d }) as Numbered));
    await plain.insertMany(docs.map((d) => ({ ...d }) as Numbered));
    return [indexed, plain];
  }

  it('random equality, $in and range filters read through indexes answer exactly as a scan (find, aggregate, count, update, delete)', async function () {
    this.timeout(120_000);
    const rnd = random(20_251_123);
    const [indexed, plain] = await twins('random', Array.from({ length: 60 }, (_, i) => documentFrom(rnd, i)));
    const coll = state.store.get('plans', 'random_indexed');
    expect(coll, 'indexed collection').to.not.equal(undefined);
    const examinedBefore = coll?.access.examined ?? 0;
    for (let round = 0; round < 200; round++) {
      const filter = filterFrom(rnd);
      const label = `round ${round}: ${JSON.stringify(filter)}`;
      expect(await indexed.find(filter).toArray(), label).to.deep.equal(await plain.find(filter).toArray());
      expect(await indexed.aggregate([{ $match: filter }, { $project: { i: 1 } }]).toArray(), label).to.deep.equal(await plain.aggregate([{ $match: filter }, { $project: { i: 1 } }]).toArray());
      expect(await indexed.countDocuments(filter), label).to.equal(await plain.countDocuments(filter));
      const op = rnd();
      if (op < 0.3) {
        const u = { $set: { a: valueFrom(rnd) }, $inc: { i: 100 } };
        const [x, y] = [await indexed.updateMany(filter, u), await plain.updateMany(filter, u)];
        expect([x.matchedCount, x.modifiedCount], label).to.deep.equal([y.matchedCount, y.modifiedCount]);
      } else if (op < 0.4) {
        const u = { $set: { 'n.x': valueFrom(rnd), ref: ids[Math.floor(rnd() * ids.length)] } };
        const [x, y] = [await indexed.updateOne(filter, u), await plain.updateOne(filter, u)];
        expect([x.matchedCount, x.modifiedCount], label).to.deep.equal([y.matchedCount, y.modifiedCount]);
      } else if (op < 0.45) {
        const [x, y] = [await indexed.deleteOne(filter), await plain.deleteOne(filter)];
        expect(x.deletedCount, label).to.equal(y.deletedCount);
        // put a fresh document back (it goes last in natural order on both)
        const doc = documentFrom(rnd, 1000 + round);
        await indexed.insertOne({ ...doc } as Numbered);
        await plain.insertOne({ ...doc } as Numbered);
      }
      expect(await indexed.find().toArray(), `${label}: whole collections after the write`).to.deep.equal(await plain.find().toArray());
    }
    // the comparison is only meaningful if the planner answered many of these reads
    expect((coll?.access.examined ?? 0) - examinedBefore).to.be.greaterThan(500);
  });

  it('a $lookup probing an indexed foreign field answers exactly as one probing an unindexed field', async function () {
    this.timeout(60_000);
    const rnd = random(7);
    const [indexed, plain] = await twins('joined', Array.from({ length: 80 }, (_, i) => documentFrom(rnd, i)));
    const products = numbered('lookup_products');
    await products.insertMany(Array.from({ length: 30 }, (_, i) => ({ _id: i, k: valueFrom(rnd), r: ids[i % ids.length], ks: [valueFrom(rnd), valueFrom(rnd)] })));
    const pipelineFor = (from: string): Document[] => [
      { $lookup: { from, let: { k: '$k' }, pipeline: [{ $match: { $expr: { $eq: ['$a', '$$k'] } } }, { $project: { i: 1 } }], as: 'byA' } },
      { $lookup: { from, let: { r: '$r' }, pipeline: [{ $match: { $expr: { $eq: ['$$r', '$ref'] } } }, { $sort: { i: -1 } }, { $limit: 2 }, { $project: { i: 1 } }], as: 'byRef' } },
      { $lookup: { from, let: { ks: '$ks' }, pipeline: [{ $match: { $expr: { $in: ['$n.x', '$$ks'] } } }, { $project: { i: 1 } }], as: 'byIn' } },
      { $lookup: { from, let: { k: '$k' }, pipeline: [{ $match: { $and: [{ $expr: { $eq: ['$b', '$$k'] } }, { i: { $lt: 50 } }] } }, { $count: 'n' }], as: 'counted' } },
    ];
    const viaIndex = await products.aggregate(pipelineFor(indexed.collectionName)).toArray();
    const viaScan = await products.aggregate(pipelineFor(plain.collectionName)).toArray();
    expect(viaIndex).to.deep.equal(viaScan);
    expect(viaIndex.some((p) => (p.byA as unknown[]).length > 0 && (p.byRef as unknown[]).length > 0)).to.equal(true);
  });

  it('sort + limit keeps the best documents (top-k) exactly as a full sort orders them, ties in natural order', async function () {
    this.timeout(60_000);
    const rnd = random(99);
    const c = numbered('topk');
    // few distinct keys, so ties are many; a second collection mixes types (mingo's general sort)
    await c.insertMany(Array.from({ length: 500 }, (_, i) => ({ _id: i, s: `k${Math.floor(rnd() * 20)}`, n: Math.floor(rnd() * 30) / 2, g: i % 3 })));
    const mixed = numbered('topk_mixed');
    await mixed.insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: i, s: i % 7 === 0 ? i : `k${i % 13}`, n: i % 11 === 0 ? null : i % 17 })));
    for (const coll of [c, mixed]) {
      for (let round = 0; round < 40; round++) {
        const sort = { [rnd() < 0.5 ? 's' : 'n']: rnd() < 0.5 ? 1 : -1 } as Record<string, 1 | -1>;
        const filter = rnd() < 0.5 ? {} : { g: Math.floor(rnd() * 3) };
        const skip = Math.floor(rnd() * 5);
        const limit = 1 + Math.floor(rnd() * 30);
        const whole = await coll.find(filter).sort(sort).toArray();
        const label = `${coll.collectionName} ${JSON.stringify({ filter, sort, skip, limit })}`;
        expect(await coll.find(filter).sort(sort).skip(skip).limit(limit).toArray(), label).to.deep.equal(whole.slice(skip, skip + limit));
        expect(await coll.find(filter, { projection: { _id: 1 } }).sort(sort).limit(limit).toArray(), label).to.deep.equal(whole.slice(0, limit).map((d) => ({ _id: d._id })));
      }
    }
  });

  it('streamed find cursors: the cursor id is 0 exactly when nothing is left, limits and batches as when materialised', async () => {
    const c = numbered('streamed');
    await c.insertMany(Array.from({ length: 102 }, (_, i) => ({ _id: i, odd: i % 2 === 1 })));
    const find = (cmd: Document): Promise<Document> => db.command({ find: 'streamed', ...cmd });
    const idOf = (reply: Document): number => Number((reply.cursor as Document).id);
    const batch = (reply: Document, which: 'firstBatch' | 'nextBatch'): number[] => ((reply.cursor as Document)[which] as Document[]).map((d) => d._id as number);
    // 102 documents: a first batch of 101 leaves one, then the cursor ends
    const first = await find({ filter: {} });
    expect(batch(first, 'firstBatch')).to.have.length(101);
    expect(idOf(first)).to.not.equal(0);
    const more = await db.command({ getMore: (first.cursor as Document).id, collection: 'streamed' });
    expect(batch(more, 'nextBatch')).to.deep.equal([101]);
    expect(idOf(more)).to.equal(0);
    // exactly the first batch's size left: closed at once
    const odd = await find({ filter: { odd: true }, batchSize: 51 });
    expect(batch(odd, 'firstBatch')).to.have.length(51);
    expect(idOf(odd)).to.equal(0);
    // limit and skip stop the stream; batchSize 0 opens a cursor that still returns everything
    const limited = await find({ filter: { odd: false }, skip: 3, limit: 4 });
    expect(batch(limited, 'firstBatch')).to.deep.equal([6, 8, 10, 12]);
    expect(idOf(limited)).to.equal(0);
    const empty = await find({ filter: {}, batchSize: 0 });
    expect(batch(empty, 'firstBatch')).to.deep.equal([]);
    const rest = await c.find({}, { batchSize: 40 }).toArray();
    expect(rest.map((d) => d._id)).to.deep.equal(Array.from({ length: 102 }, (_, i) => i));
    await db.command({ killCursors: 'streamed', cursors: [(empty.cursor as Document).id] });
  });

  it('an indexed equality on 20,000 documents examines only its matches; a by-id read only its document', async function () {
    this.timeout(120_000);
    const items = numbered('big');
    await items.createIndex({ sku: 1 }, { unique: true });
    await items.createIndex({ cat: 1 });
    await items.insertMany(Array.from({ length: 20_000 }, (_, i) => ({ _id: i, sku: `S${i}`, cat: i % 400, v: i })));
    const coll = state.store.get('plans', 'big');
    if (!coll) throw new Error('no collection');
    const examined = async (read: () => Promise<unknown>): Promise<number> => {
      const before = coll.access.examined;
      await read();
      return coll.access.examined - before;
    };
    expect(await examined(() => items.findOne({ sku: 'S12345' }))).to.equal(1);
    expect(await examined(() => items.find({ cat: 7, v: { $gt: 10_000 } }).toArray())).to.equal(50);
    expect(await examined(() => items.findOne({ _id: 19_999 }))).to.equal(1);
    expect(await examined(() => items.aggregate([{ $match: { sku: { $in: ['S1', 'S2', 'nope'] } } }]).toArray())).to.equal(2);
    expect(await examined(() => items.updateOne({ sku: 'S5' }, { $set: { v: -5 } }))).to.equal(1);
    expect(await examined(() => items.find({ _id: { $gte: 100, $lte: 129 } }).toArray())).to.equal(30);
    expect(await examined(() => items.countDocuments({ cat: { $gte: 398 }, v: { $gte: 0 } }))).to.equal(100);
    expect(await items.findOne({ sku: 'S5' }, { projection: { _id: 0, v: 1 } })).to.deep.equal({ v: -5 });
    // and a scan does not go through the index at all (the counter measures the planner only)
    expect(await examined(() => items.findOne({ v: 42 }))).to.equal(0);
  });
});
