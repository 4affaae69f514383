import { expect } from 'chai';
import { ObjectId, type Db, type Document } from 'mongodb';
import { useMongo } from './helpers';

/**
 * $lookup forms the MongoDB driver of this library emits (let + pipeline starting with a
 * `$match: {$expr: {$eq: [...]}}`), plus the concise localField/foreignField + pipeline form.
 * Written from MongoDB's documented semantics; the emulator evaluates them with a hash join.
 */
describe('emulator conformance: $lookup joins', () => {
  const mongo = useMongo();
  let db: Db;
  const p1 = new ObjectId();
  const p2 = new ObjectId();
  const p3 = new ObjectId();
  const t1 = new ObjectId();
  const t2 = new ObjectId();

  before(async () => {
    db = mongo.db('lookupjoin');
    await db.collection('products').insertMany([
      { _id: p1, name: 'one', tagIds: [t2, t1], rank: 1 },
      { _id: p2, name: 'two', tagIds: [], rank: 2 },
      { _id: p3, name: 'three', rank: 3 },
    ]);
    await numeric('reviews').insertMany([
      { _id: 1, product_id: new ObjectId(p1.toHexString()), stars: 5, state: 'ok' },
      { _id: 2, product_id: p2, stars: 2, state: 'ok' },
      { _id: 3, product_id: p1, stars: 3, state: 'hidden' },
      { _id: 4, product_id: p1, stars: 4, state: 'ok' },
      { _id: 5, product_id: 'not-an-id', stars: 1, state: 'ok' },
    ]);
    await db.collection('tags').insertMany([
      { _id: t1, label: 'red' },
      { _id: t2, label: 'blue' },
      { _id: new ObjectId(), label: 'unused' },
    ]);
    await numeric('votes').insertMany([
      { _id: 1, review_id: 1, up: true },
      { _id: 2, review_id: 4, up: false },
      { _id: 3, review_id: 4, up: true },
      { _id: 4, review_id: 3, up: true },
    ]);
  });

  const reviewsOf = (pipeline: Document[] = [], swap = false): Document => ({
    $lookup: {
      from: 'reviews',
      let: { k: '$_id' },
      pipeline: [{ $match: { $expr: { $eq: swap ? ['$$k', '$product_id'] : ['$product_id', '$$k'] } } }, ...pipeline],
      as: 'reviews',
    },
  });
  const numeric = (name: string) => db.collection<{ _id: number } & Document>(name);
  const run = (coll: string, pipeline: Document[]): Promise<Document[]> => db.collection(coll).aggregate(pipeline).toArray();

  it('let/$expr $eq joins on ObjectId keys, keeping foreign collection order', async () => {
    const out = await run('products', [{ $sort: { rank: 1 } }, reviewsOf([{ $project: { _id: 1 } }]), { $project: { _id: 0, name: 1, reviews: 1 } }]);
    expect(out).to.deep.equal([
      { name: 'one', reviews: [{ _id: 1 }, { _id: 3 }, { _id: 4 }] },
      { name: 'two', reviews: [{ _id: 2 }] },
      { name: 'three', reviews: [] },
    ]);
  });

  it('swapped $eq operands give the same join', async () => {
    const out = await run('products', [{ $sort: { rank: 1 } }, reviewsOf([{ $project: { _id: 1 } }], true), { $project: { _id: 0, reviews: '$reviews._id' } }]);
    expect(out).to.deep.equal([{ reviews: [1, 3, 4] }, { reviews: [2] }, { reviews: [] }]);
  });

  it('extra conditions next to $expr and inside $and, and stages after the $match', async () => {
    const sideBySide = await run('products', [
      { $match: { _id: p1 } },
      { $lookup: { from: 'reviews', let: { k: '$_id' }, pipeline: [{ $match: { $expr: { $eq: ['$product_id', '$$k'] }, state: 'ok' } }, { $sort: { stars: -1 } }], as: 'reviews' } },
    ]);
    expect(sideBySide[0].reviews.map((r: Document) => r._id)).to.deep.equal([1, 4]);
    const inAnd = await run('products', [
      { $match: { _id: p1 } },
      {
        $lookup: {
          from: 'reviews',
          let: { k: '$_id', min: 4 },
          pipeline: [{ $match: { $and: [{ stars: { $lt: 5 } }, { $expr: { $and: [{ $eq: ['$$k', '$product_id'] }, { $gte: ['$stars', '$$min'] }] } }] } }],
          as: 'reviews',
        },
      },
    ]);
    expect(inAnd[0].reviews.map((r: Document) => r._id)).to.deep.equal([4]);
  });

  it('$limit: 1 after the $match returns the first matching document per input', async () => {
    const out = await run('products', [{ $sort: { rank: 1 } }, reviewsOf([{ $sort: { _id: 1 } }, { $limit: 1 }, { $project: { _id: 1 } }]), { $project: { _id: 0, reviews: 1 } }]);
    expect(out).to.deep.equal([{ reviews: [{ _id: 1 }] }, { reviews: [{ _id: 2 }] }, { reviews: [] }]);
  });

  it('null local values match null foreign values; missing matches missing', async () => {
    // Collections chosen so $expr semantics agree whatever missing-vs-null rule applies: null only
    // meets null, missing only meets missing.
    await numeric('nl_parents').insertMany([
      { _id: 1, ref: null },
      { _id: 2, ref: 'a' },
    ]);
    await numeric('nl_children').insertMany([
      { _id: 10, ref: null },
      { _id: 11, ref: 'a' },
      { _id: 12, ref: 'b' },
    ]);
    const withNull = await run('nl_parents', [{ $sort: { _id: 1 } }, { $lookup: { from: 'nl_children', let: { r: '$ref' }, pipeline: [{ $match: { $expr: { $eq: ['$ref', '$$r'] } } }], as: 'kids' } }]);
    expect(withNull.map((d) => d.kids.map((k: Document) => k._id))).to.deep.equal([[10], [11]]);

    await numeric('ms_parents').insertMany([{ _id: 1 }, { _id: 2, ref: 'a' }]);
    await numeric('ms_children').insertMany([{ _id: 10 }, { _id: 11, ref: 'a' }, { _id: 12, ref: 'b' }]);
    const withMissing = await run('ms_parents', [{ $sort: { _id: 1 } }, { $lookup: { from: 'ms_children', let: { r: '$ref' }, pipeline: [{ $match: { $expr: { $eq: ['$ref', '$$r'] } } }], as: 'kids' } }]);
    expect(withMissing.map((d) => d.kids.map((k: Document) => k._id))).to.deep.equal([[10], [11]]);
  });

  it('array local values with $in ($expr) join every element, in foreign collection order', async () => {
    const out = await run('products', [
      { $sort: { rank: 1 } },
      { $lookup: { from: 'tags', let: { ids: { $ifNull: ['$tagIds', []] } }, pipeline: [{ $match: { $expr: { $in: ['$_id', '$$ids'] } } }, { $project: { _id: 0, label: 1 } }], as: 'tags' } },
      { $project: { _id: 0, tags: '$tags.label' } },
    ]);
    expect(out).to.deep.equal([{ tags: ['red', 'blue'] }, { tags: [] }, { tags: [] }]);
  });

  it('a nested $lookup inside the sub-pipeline sees its own and the outer variables', async () => {
    const out = await run('products', [
      { $match: { _id: p1 } },
      reviewsOf([
        { $match: { state: 'ok' } },
        { $lookup: { from: 'votes', let: { rid: '$_id' }, pipeline: [{ $match: { $expr: { $eq: ['$review_id', '$$rid'] } } }, { $match: { up: true } }, { $project: { _id: 1 } }], as: 'ups' } },
        { $project: { _id: 1, ups: '$ups._id', product: '$$k' } },
      ]),
    ]);
    expect(out[0].reviews).to.have.length(2);
    expect(out[0].reviews.map((r: Document) => [r._id, r.ups])).to.deep.equal([
      [1, [1]],
      [4, [3]],
    ]);
    expect(out[0].reviews.every((r: Document) => p1.equals(r.product))).to.equal(true);
  });

  it('concise form with a pipeline runs the pipeline on the matching foreign documents only', async () => {
    const out = await run('products', [
      { $sort: { rank: 1 } },
      { $lookup: { from: 'reviews', localField: '_id', foreignField: 'product_id', pipeline: [{ $match: { state: 'ok' } }, { $project: { _id: 1 } }], as: 'reviews' } },
      { $project: { _id: 0, reviews: '$reviews._id' } },
    ]);
    expect(out).to.deep.equal([{ reviews: [1, 4] }, { reviews: [2] }, { reviews: [] }]);
    const byArray = await run('products', [
      { $match: { _id: p1 } },
      { $lookup: { from: 'tags', localField: 'tagIds', foreignField: '_id', let: { n: '$name' }, pipeline: [{ $project: { _id: 0, label: 1, of: '$$n' } }], as: 'tags' } },
    ]);
    expect(byArray[0].tags).to.deep.equal([
      { label: 'red', of: 'one' },
      { label: 'blue', of: 'one' },
    ]);
  });
});
