import { expect } from 'chai';
import { EJSON, ObjectId, type Document } from 'bson';
import { aggregate } from '../../lib/testing/emulator/engine';
import { copyOnWrite } from '../../lib/testing/emulator/copy-on-write';
import type { Doc } from '../../lib/testing/emulator/values';
import { useMongo } from './helpers';

/**
 * Aggregation reads stored documents in place and copies only before a stage that may change its
 * input (copy-on-write.ts). Stored documents must come out of any pipeline exactly as they went in,
 * and a repeated aggregation must answer the same: these pipelines put changing stages ($set,
 * $addFields on nested paths, $unwind, $replaceRoot then $set) after stages that share documents
 * ($facet, $sort, $match, $lookup, memoised joins, $group's $$ROOT).
 */
const snapshot = (docs: Doc[]): string => EJSON.stringify(docs as Document[], { relaxed: false });

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !(value instanceof ObjectId)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const products = (): Doc[] => [
  { _id: 1, name: 'a', price: 5, cat: 10, tags: ['x', 'y'], dims: { w: 1, h: 2 }, at: new Date(1000) },
  { _id: 2, name: 'b', price: 15, cat: 10, tags: ['z'], dims: { w: 3, h: 4 }, at: new Date(2000) },
  { _id: 3, name: 'c', price: 25, cat: 11, tags: [], dims: { w: 5, h: 6 }, at: new Date(3000) },
  { _id: 4, name: 'd', price: 35, cat: 12, tags: [{ t: 1 }, { t: 2 }], dims: { w: 7, h: 8 }, at: new Date(4000) },
];
const categories = (): Doc[] => [
  { _id: 10, name: 'ten', meta: { n: 1 }, parts: [{ p: 1 }] },
  { _id: 11, name: 'eleven', meta: { n: 2 }, parts: [{ p: 2 }] },
  { _id: 12, name: 'twelve', meta: { n: 3 }, parts: [] },
];

const PIPELINES: Array<[string, Doc[]]> = [
  ['$facet after $match/$sort, facets changing nested fields and unwinding', [
    { $match: { price: { $gte: 10 } } },
    { $sort: { price: -1 } },
    { $facet: {
      data: [{ $skip: 1 }, { $set: { 'dims.w': 0, 'tags.t': 9 } }],
      // mingo's $unwind deletes an empty array from its input and writes the index into it
      unwound: [{ $unwind: { path: '$tags', includeArrayIndex: 'i', preserveNullAndEmptyArrays: true } }, { $set: { 'tags.t': '$_id' } }],
      total: [{ $count: 'total' }],
      again: [{ $addFields: { 'dims.h': { $multiply: ['$dims.h', 10] } } }],
    } },
  ]],
  ['equality $lookup sharing one foreign document between inputs, then $unwind and $set', [
    { $lookup: { from: 'categories', localField: 'cat', foreignField: '_id', as: 'c' } },
    { $unwind: '$c' },
    { $unwind: { path: '$c.parts', preserveNullAndEmptyArrays: true } },
    { $set: { 'c.meta.n': '$_id', 'c.parts.p': '$price' } },
  ]],
  ['memoised let + pipeline $lookup, then changes to the joined documents', [
    { $lookup: { from: 'categories', let: { k: '$cat' }, pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$k'] } } }], as: 'c' } },
    { $addFields: { 'c.meta.owner': '$_id' } },
    { $unwind: '$c' },
    { $unwind: { path: '$c.parts', includeArrayIndex: 'i', preserveNullAndEmptyArrays: true } },
    { $set: { 'c.parts.p': '$price' } },
  ]],
  ['$replaceRoot on a sub-document, then $set', [
    { $replaceRoot: { newRoot: '$dims' } },
    { $unwind: { path: '$w', includeArrayIndex: 'i' } },
    { $set: { w: 100 } },
  ]],
  ['$group pushing $$ROOT, then $unwind and nested $set', [
    { $group: { _id: '$cat', docs: { $push: '$$ROOT' } } },
    { $unwind: '$docs' },
    { $unwind: { path: '$docs.tags', preserveNullAndEmptyArrays: true } },
    { $set: { 'docs.dims.w': -1 } },
    { $sort: { 'docs._id': 1 } },
  ]],
  ['$unionWith the foreign collection, then $unwind and $set', [
    { $unionWith: { coll: 'categories', pipeline: [{ $match: { _id: { $gte: 11 } } }] } },
    { $unwind: { path: '$parts', preserveNullAndEmptyArrays: true } },
    { $set: { 'parts.p': 0, 'meta.n': 0 } },
  ]],
];

describe('emulator aggregation: copy-on-write', () => {
  for (const [title, pipeline] of PIPELINES) {
    it(`${title}: stored documents unchanged, a second run answers the same`, () => {
      const stored = products();
      const foreign = categories();
      const before = [snapshot(stored), snapshot(foreign)];
      const resolver = (name: string): Doc[] => (name === 'categories' ? foreign : []);
      const first = aggregate(stored, pipeline, resolver);
      expect([snapshot(stored), snapshot(foreign)]).to.deep.equal(before);
      const second = aggregate(stored, pipeline, resolver);
      expect(snapshot(second)).to.equal(snapshot(first));
      // frozen inputs: any write into them would throw (mingo's modules are strict) or be lost
      const frozen = aggregate(deepFreeze(products()), pipeline, (name) => (name === 'categories' ? deepFreeze(categories()) : []));
      expect(snapshot(frozen)).to.equal(snapshot(first));
    });
  }

  it('changes made to one joined copy are not seen by another input (no shared result arrays)', () => {
    const out = aggregate(products(), PIPELINES[2][1], (name) => (name === 'categories' ? categories() : []));
    const owners = out.map((d) => [d._id, (d.c as Doc).meta]);
    expect(owners).to.deep.equal([[1, { n: 1, owner: 1 }], [2, { n: 1, owner: 2 }], [3, { n: 2, owner: 3 }], [4, { n: 3, owner: 4 }]]);
    const parts = out.map((d) => (d.c as Doc).parts);
    expect(parts).to.deep.equal([{ p: 5 }, { p: 15 }, { p: 25 }, { p: 35 }]);
    expect(out.map((d) => d.i)).to.deep.equal([0, 0, 0, null]);
  });

  it('puts one copy before each run of changing stages and none before read-only ones', () => {
    const names = (stages: Doc[]): string[] => copyOnWrite(stages).map((s) => Object.keys(s)[0]);
    expect(names([{ $match: {} }, { $sort: { a: 1 } }, { $facet: {} }, { $project: { a: 1 } }, { $set: { a: 1 } }, { $group: { _id: null } }])).to.deep.equal(
      ['$match', '$sort', '$facet', '$project', '$set', '$group'],
    );
    expect(names([{ $match: {} }, { $unwind: '$a' }, { $limit: 1 }, { $unwind: '$b' }, { $lookup: {} }, { $redact: '$$KEEP' }])).to.deep.equal(
      ['$match', '$__emuClone', '$unwind', '$limit', '$__emuClone', '$unwind', '$lookup', '$__emuClone', '$redact'],
    );
    // $documents must stay the first stage (of a pipeline, or of a $lookup/$unionWith sub-pipeline)
    expect(names([{ $documents: [{ a: [1] }] }, { $unwind: '$a' }])).to.deep.equal(['$documents', '$__emuClone', '$unwind']);
  });

  describe('over the wire (the join reads candidates from the _id index and memoises per category)', () => {
    const mongo = useMongo();

    it('stored products and categories (products 1 and 2 share one memoised join) are unchanged and two identical aggregations answer identically', async () => {
      const db = mongo.db('cow');
      await db.collection('products').insertMany(products() as never[]);
      await db.collection('categories').insertMany(categories() as never[]);
      const pipeline = [
        { $match: { price: { $gte: 0 } } },
        { $lookup: { from: 'categories', let: { k: '$cat' }, pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$k'] } } }, { $limit: 1 }], as: 'c' } },
        { $sort: { _id: 1 } },
        { $facet: {
          data: [{ $unwind: '$c' }, { $unwind: { path: '$c.parts', preserveNullAndEmptyArrays: true } }, { $set: { 'c.meta.n': '$_id', 'dims.w': 0 } }],
          total: [{ $count: 'total' }],
        } },
      ];
      const storedBefore = [await db.collection('products').find().toArray(), await db.collection('categories').find().toArray()];
      const first = await db.collection('products').aggregate(pipeline).toArray();
      const second = await db.collection('products').aggregate(pipeline).toArray();
      const storedAfter = [await db.collection('products').find().toArray(), await db.collection('categories').find().toArray()];
      expect(EJSON.stringify(storedAfter, { relaxed: false })).to.equal(EJSON.stringify(storedBefore, { relaxed: false }));
      expect(EJSON.stringify(second, { relaxed: false })).to.equal(EJSON.stringify(first, { relaxed: false }));
      const data = (first[0] as Doc).data as Doc[];
      expect(data.map((d) => [d._id, (d.c as Doc).meta, (d.dims as Doc).w])).to.deep.equal([[1, { n: 1 }], [2, { n: 2 }], [3, { n: 3 }], [4, { n: 4 }]].map(([id, meta]) => [id, meta, 0]));
      expect((first[0] as Doc).total).to.deep.equal([{ total: 4 }]);
    });

    it('the memoised join keys its runs by value and type: 10, 10.5, "10", null, a missing field and two equal ObjectIds', async () => {
      const db = mongo.db('cow');
      const oid = new ObjectId();
      await db.collection('p').insertMany([
        { _id: 1, k: 10 }, { _id: 2, k: '10' }, { _id: 3, k: null }, { _id: 4 }, { _id: 5, k: 10 }, { _id: 6, k: 10.5 },
        { _id: 7, k: oid }, { _id: 8, k: new ObjectId(oid.toHexString()) }, { _id: 9, k: '10' },
      ] as never[]);
      await db.collection('c').insertMany([{ _id: 10, v: 'int' }, { _id: '10', v: 'string' }, { _id: 10.5, v: 'double' }, { _id: oid, v: 'oid' }] as never[]);
      const out = await db.collection('p').aggregate([
        { $lookup: { from: 'c', let: { k: '$k' }, pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$k'] } } }, { $project: { _id: 0, v: 1 } }], as: 'j' } },
        { $sort: { _id: 1 } },
      ]).toArray();
      expect(out.map((d) => [d._id, (d.j as Doc[]).map((x) => x.v)])).to.deep.equal([
        [1, ['int']], [2, ['string']], [3, []], [4, []], [5, ['int']], [6, ['double']], [7, ['oid']], [8, ['oid']], [9, ['string']],
      ]);
    });
  });
});
