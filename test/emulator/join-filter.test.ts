import { expect } from 'chai';
import { aggregate } from '../../lib/testing/emulator/engine';
import type { Doc } from '../../lib/testing/emulator/values';
import { useMongo } from './helpers';

/**
 * A $lookup directly followed by `$match: {<as>: {$ne: []}}` drops the inputs that join nothing
 * inside the lookup (engine.ts joinFilters, lookup.ts NON_EMPTY). The answers must be those of the
 * two stages run apart: here a `$match: {}` between them keeps them apart.
 */
const products: Doc[] = [
  { _id: 1, cat: 10 }, { _id: 2, cat: 11 }, { _id: 3, cat: 99 }, { _id: 4 }, { _id: 5, cat: [10, 12] }, { _id: 6, cat: 12 }, { _id: 7, cat: 10 },
];
const categories: Doc[] = [{ _id: 10, name: 'Gadgets A' }, { _id: 11, name: 'Tools' }, { _id: 12, name: 'Gadgets B' }];

const LOOKUPS: Array<[string, Doc]> = [
  ['equality form', { from: 'categories', localField: 'cat', foreignField: '_id', as: 'c' }],
  ['let + pipeline form', { from: 'categories', let: { k: '$cat' }, pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$k'] } } }, { $match: { name: { $regex: /^Gadgets/ } } }, { $project: { _id: 1 } }], as: 'c' }],
  ['form left to mingo', { from: 'categories', let: { k: '$cat' }, pipeline: [{ $match: { name: { $regex: /^Gadgets/ } } }, { $match: { $expr: { $eq: ['$_id', '$$k'] } } }], as: 'c' }],
];

function both(lookup: Doc, filter: Doc = { c: { $ne: [] } }): [Doc[], Doc[]] {
  const fused = [{ $lookup: lookup }, { $match: filter }, { $sort: { _id: 1 } }];
  const apart = [{ $lookup: lookup }, { $match: {} }, { $match: filter }, { $sort: { _id: 1 } }];
  return [fused, apart];
}

describe('emulator $lookup followed by a non-empty match', () => {
  for (const [title, lookup] of LOOKUPS) {
    it(`${title}: the same documents as the two stages apart`, () => {
      const resolver = (name: string): Doc[] => (name === 'categories' ? categories : []);
      const [fused, apart] = both(lookup);
      const expected = aggregate(products, apart, resolver);
      expect(aggregate(products, fused, resolver)).to.deep.equal(expected);
      expect(expected.length).to.be.greaterThan(0).and.lessThan(products.length);
    });
  }

  it('a different match after the lookup ($ne: [] on another field, $eq: []) is left to $match', () => {
    const resolver = (name: string): Doc[] => (name === 'categories' ? categories : []);
    for (const filter of [{ c: { $eq: [] } }, { other: { $ne: [] } }, { c: { $ne: [] }, _id: { $gt: 1 } }]) {
      const [fused, apart] = both(LOOKUPS[0][1], filter);
      expect(aggregate(products, fused, resolver)).to.deep.equal(aggregate(products, apart, resolver));
    }
  });

  describe('over the wire (indexed and memoised join)', () => {
    const mongo = useMongo();

    it('the library-shaped filter answers as the two stages apart, inside and outside $facet', async () => {
      const db = mongo.db('joinfilter');
      await db.collection('products').insertMany(products as never[]);
      await db.collection('categories').insertMany(categories as never[]);
      const [fused, apart] = both(LOOKUPS[1][1]);
      const withFacet = (stages: Doc[]): Doc[] => [{ $facet: { data: stages, total: [...stages, { $count: 'n' }] } }];
      const coll = db.collection('products');
      const expected = await coll.aggregate(apart).toArray();
      expect(expected.map((d) => d._id)).to.deep.equal([1, 6, 7]); // $expr $eq compares the whole array [10, 12]
      expect(await coll.aggregate(fused).toArray()).to.deep.equal(expected);
      expect(await coll.aggregate(withFacet(fused)).toArray()).to.deep.equal(await coll.aggregate(withFacet(apart)).toArray());
    });
  });
});
