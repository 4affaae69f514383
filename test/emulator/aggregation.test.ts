import { expect } from 'chai';
import { MongoServerError, ObjectId, type Db } from 'mongodb';
import { useMongo } from './helpers';

describe('emulator conformance: aggregation', () => {
  const mongo = useMongo();
  let db: Db;
  const authorA = new ObjectId();
  const authorB = new ObjectId();
  before(async () => {
    db = mongo.db('agg');
    await db.collection('authors').insertMany([
      { _id: authorA, name: 'Ann', country: 'NO' },
      { _id: authorB, name: 'Bob', country: 'SE' },
    ]);
    await db.collection('books').insertMany([
      { title: 'A1', author: new ObjectId(authorA.toHexString()), year: 2001, tags: ['x', 'y'], price: 10 },
      { title: 'A2', author: authorA, year: 2005, tags: ['y'], price: 20 },
      { title: 'B1', author: authorB, year: 2003, tags: [], price: 30 },
    ]);
    await db.collection<{ _id: number; name: string; boss: string | null; dept: string }>('staff').insertMany([
      { _id: 1, name: 'CEO', boss: null, dept: 'top' },
      { _id: 2, name: 'CTO', boss: 'CEO', dept: 'tech' },
      { _id: 3, name: 'Dev', boss: 'CTO', dept: 'tech' },
      { _id: 4, name: 'Intern', boss: 'Dev', dept: 'tech' },
      { _id: 5, name: 'CFO', boss: 'CEO', dept: 'money' },
    ]);
  });

  it('$match, $sort, $skip, $limit, $project', async () => {
    const out = await db
      .collection('books')
      .aggregate([{ $match: { year: { $gte: 2002 } } }, { $sort: { year: -1 } }, { $skip: 0 }, { $limit: 2 }, { $project: { _id: 0, title: 1, decade: { $subtract: ['$year', { $mod: ['$year', 10] }] } } }])
      .toArray();
    expect(out).to.deep.equal([
      { title: 'A2', decade: 2000 },
      { title: 'B1', decade: 2000 },
    ]);
  });

  it('$group by ObjectId with accumulators and $sort on the group key', async () => {
    const out = await db
      .collection('books')
      .aggregate([{ $group: { _id: '$author', n: { $sum: 1 }, total: { $sum: '$price' }, titles: { $push: '$title' }, first: { $min: '$year' } } }, { $sort: { total: 1 } }])
      .toArray();
    expect(out.length).to.equal(2);
    expect(out[0]._id.equals(authorA)).to.equal(true);
    expect(out[0]).to.include({ n: 2, total: 30, first: 2001 });
    expect(out[0].titles).to.deep.equal(['A1', 'A2']);
  });

  it('$addFields/$set, $unset, $unwind, $replaceRoot', async () => {
    const out = await db
      .collection('books')
      .aggregate([
        { $addFields: { pricey: { $gt: ['$price', 15] } } },
        { $set: { label: { $toUpper: '$title' } } },
        { $unset: ['author', 'year'] },
        { $unwind: '$tags' },
        { $replaceRoot: { newRoot: { tag: '$tags', label: '$label', pricey: '$pricey' } } },
      ])
      .toArray();
    expect(out).to.deep.equal([
      { tag: 'x', label: 'A1', pricey: false },
      { tag: 'y', label: 'A1', pricey: false },
      { tag: 'y', label: 'A2', pricey: true },
    ]);
  });

  it('$lookup with localField/foreignField joins on ObjectId', async () => {
    const out = await db
      .collection('books')
      .aggregate([{ $lookup: { from: 'authors', localField: 'author', foreignField: '_id', as: 'who' } }, { $project: { _id: 0, title: 1, who: '$who.name' } }])
      .toArray();
    expect(out).to.deep.equal([
      { title: 'A1', who: ['Ann'] },
      { title: 'A2', who: ['Ann'] },
      { title: 'B1', who: ['Bob'] },
    ]);
  });

  it('$lookup with let/pipeline', async () => {
    const out = await db
      .collection('authors')
      .aggregate([
        {
          $lookup: {
            from: 'books',
            let: { aid: '$_id' },
            pipeline: [{ $match: { $expr: { $and: [{ $eq: ['$author', '$$aid'] }, { $gte: ['$year', 2002] }] } } }, { $project: { _id: 0, title: 1 } }],
            as: 'recent',
          },
        },
        { $project: { _id: 0, name: 1, recent: 1 } },
      ])
      .toArray();
    expect(out).to.deep.equal([
      { name: 'Ann', recent: [{ title: 'A2' }] },
      { name: 'Bob', recent: [{ title: 'B1' }] },
    ]);
  });

  it('$graphLookup with maxDepth and depthField', async () => {
    const out = await db
      .collection('staff')
      .aggregate([
        { $match: { name: 'CEO' } },
        { $graphLookup: { from: 'staff', startWith: '$name', connectFromField: 'name', connectToField: 'boss', as: 'reports', maxDepth: 1, depthField: 'level' } },
      ])
      .toArray();
    const reports = out[0].reports.map((r: { name: string; level: number }) => `${r.name}:${r.level}`).sort();
    expect(reports).to.deep.equal(['CFO:0', 'CTO:0', 'Dev:1']);
  });

  it('$graphLookup with restrictSearchWithMatch', async () => {
    const out = await db
      .collection('staff')
      .aggregate([
        { $match: { name: 'CEO' } },
        { $graphLookup: { from: 'staff', startWith: '$name', connectFromField: 'name', connectToField: 'boss', as: 'tech', restrictSearchWithMatch: { dept: 'tech' } } },
      ])
      .toArray();
    expect(out[0].tech.map((r: { name: string }) => r.name).sort()).to.deep.equal(['CTO', 'Dev', 'Intern']);
  });

  it('$facet with $count', async () => {
    const [out] = await db
      .collection('books')
      .aggregate([{ $facet: { total: [{ $count: 'n' }], cheap: [{ $match: { price: { $lt: 25 } } }, { $count: 'n' }], titles: [{ $sort: { title: -1 } }, { $limit: 1 }, { $project: { _id: 0, title: 1 } }] } }])
      .toArray();
    expect(out).to.deep.equal({ total: [{ n: 3 }], cheap: [{ n: 2 }], titles: [{ title: 'B1' }] });
  });

  it('$count alone, and an empty result gives no document', async () => {
    expect(await db.collection('books').aggregate([{ $count: 'n' }]).toArray()).to.deep.equal([{ n: 3 }]);
    expect(await db.collection('books').aggregate([{ $match: { year: 1900 } }, { $count: 'n' }]).toArray()).to.deep.equal([]);
  });

  it('pages aggregate results with an explicit batchSize', async () => {
    const big = db.collection('big');
    await big.insertMany(Array.from({ length: 230 }, (_, i) => ({ i })));
    const out = await big.aggregate([{ $match: { i: { $gte: 0 } } }], { batchSize: 40 }).toArray();
    expect(out.length).to.equal(230);
    const raw = await db.command({ aggregate: 'big', pipeline: [], cursor: { batchSize: 7 } });
    expect(raw.cursor.firstBatch.length).to.equal(7);
    expect(raw.cursor.id.toString()).to.not.equal('0');
    await db.command({ killCursors: 'big', cursors: [raw.cursor.id] });
  });

  it('countDocuments (aggregate-based) and a stage that does not change stored documents', async () => {
    await db.collection('books').aggregate([{ $set: { title: 'changed' } }]).toArray();
    expect(await db.collection('books').countDocuments({ title: 'changed' })).to.equal(0);
  });

  it('rejects an unknown stage naming it', async () => {
    try {
      await db.collection('books').aggregate([{ $frobnicate: {} }]).toArray();
      expect.fail('should throw');
    } catch (err) {
      expect(err).to.be.instanceOf(MongoServerError);
      expect((err as MongoServerError).code).to.equal(40324);
      expect((err as MongoServerError).message).to.contain('$frobnicate');
    }
  });

  it('rejects an unknown expression operator', async () => {
    try {
      await db.collection('books').aggregate([{ $project: { x: { $frobnicate: '$price' } } }]).toArray();
      expect.fail('should throw');
    } catch (err) {
      expect(err).to.be.instanceOf(MongoServerError);
      expect((err as MongoServerError).message).to.contain('$frobnicate');
    }
  });
});
