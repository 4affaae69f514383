import { expect } from 'chai';
import { ObjectId, type Db, type Document } from 'mongodb';
import { useMongo } from './helpers';

/**
 * `$unwind`, `$group`, `$sort`, `$skip`/`$limit` and `$facet` as the MongoDB manual documents them:
 * each case uses the example documents of the manual page named in its comment and expects the
 * documented output. Where the manual's data uses NumberDecimal prices, plain doubles stand in
 * (Decimal128 arithmetic is a known gap of the emulator); the documented figures are unchanged.
 * `$group` does not order its output, so grouped results are compared sorted.
 */
describe('emulator conformance (manual): $unwind, $group, $sort, $skip/$limit, $facet', () => {
  const mongo = useMongo();
  let db: Db;
  beforeEach(() => {
    db = mongo.db('manual_stages');
  });
  const seed = async (name: string, docs: Document[]): Promise<void> => {
    await db.collection(name).insertMany(docs);
  };
  const run = (coll: string, pipeline: Document[]): Promise<Document[]> => db.collection(coll).aggregate(pipeline).toArray();
  const byKey = (docs: Document[]): Document[] => [...docs].sort((a, b) => (JSON.stringify(a._id) < JSON.stringify(b._id) ? -1 : 1));

  const inventory2 = [
    { _id: 1, item: 'ABC', price: 80, sizes: ['S', 'M', 'L'] },
    { _id: 2, item: 'EFG', price: 120, sizes: [] },
    { _id: 3, item: 'IJK', price: 160, sizes: 'M' },
    { _id: 4, item: 'LMN', price: 10 },
    { _id: 5, item: 'XYZ', price: 5.75, sizes: null },
  ];

  describe('$unwind', () => {
    // Manual, $unwind: "Unwind Array".
    it('outputs one document per array element', async () => {
      await seed('inventory', [{ _id: 1, item: 'ABC1', sizes: ['S', 'M', 'L'] }]);
      expect(await run('inventory', [{ $unwind: '$sizes' }])).to.deep.equal([
        { _id: 1, item: 'ABC1', sizes: 'S' },
        { _id: 1, item: 'ABC1', sizes: 'M' },
        { _id: 1, item: 'ABC1', sizes: 'L' },
      ]);
    });

    // Manual, $unwind: "includeArrayIndex and preserveNullAndEmptyArrays" (both equivalent forms);
    // a non-array value is a one-element array; null, missing and [] produce nothing.
    it('field path and document operand: non-array values unwind as one element, null/missing/[] dropped', async () => {
      await seed('inventory2', inventory2);
      const expected = [
        { _id: 1, item: 'ABC', price: 80, sizes: 'S' },
        { _id: 1, item: 'ABC', price: 80, sizes: 'M' },
        { _id: 1, item: 'ABC', price: 80, sizes: 'L' },
        { _id: 3, item: 'IJK', price: 160, sizes: 'M' },
      ];
      expect(await run('inventory2', [{ $unwind: '$sizes' }])).to.deep.equal(expected);
      expect(await run('inventory2', [{ $unwind: { path: '$sizes' } }])).to.deep.equal(expected);
    });

    // Manual, $unwind: "includeArrayIndex" (null index for the non-array value).
    it('includeArrayIndex numbers the elements, null for a non-array value', async () => {
      await seed('inventory2', inventory2);
      expect(await run('inventory2', [{ $unwind: { path: '$sizes', includeArrayIndex: 'arrayIndex' } }])).to.deep.equal([
        { _id: 1, item: 'ABC', price: 80, sizes: 'S', arrayIndex: 0 },
        { _id: 1, item: 'ABC', price: 80, sizes: 'M', arrayIndex: 1 },
        { _id: 1, item: 'ABC', price: 80, sizes: 'L', arrayIndex: 2 },
        { _id: 3, item: 'IJK', price: 160, sizes: 'M', arrayIndex: null },
      ]);
    });

    // Manual, $unwind: "preserveNullAndEmptyArrays" (the empty array's field is dropped, null kept).
    it('preserveNullAndEmptyArrays keeps null, missing and empty-array documents', async () => {
      await seed('inventory2', inventory2);
      expect(await run('inventory2', [{ $unwind: { path: '$sizes', preserveNullAndEmptyArrays: true } }])).to.deep.equal([
        { _id: 1, item: 'ABC', price: 80, sizes: 'S' },
        { _id: 1, item: 'ABC', price: 80, sizes: 'M' },
        { _id: 1, item: 'ABC', price: 80, sizes: 'L' },
        { _id: 2, item: 'EFG', price: 120 },
        { _id: 3, item: 'IJK', price: 160, sizes: 'M' },
        { _id: 4, item: 'LMN', price: 10 },
        { _id: 5, item: 'XYZ', price: 5.75, sizes: null },
      ]);
    });

    // Manual, $unwind: "Group by Unwound Values" (missing and null sizes group under null).
    it('group by unwound values, then sort by the average', async () => {
      await seed('inventory2', inventory2);
      const out = await run('inventory2', [
        { $unwind: { path: '$sizes', preserveNullAndEmptyArrays: true } },
        { $group: { _id: '$sizes', averagePrice: { $avg: '$price' } } },
        { $sort: { averagePrice: -1 } },
      ]);
      expect(out[0]).to.deep.equal({ _id: 'M', averagePrice: 120 });
      expect(byKey(out.slice(1, 3))).to.deep.equal([
        { _id: 'L', averagePrice: 80 },
        { _id: 'S', averagePrice: 80 },
      ]);
      expect(out[3]).to.deep.equal({ _id: null, averagePrice: 45.25 });
      expect(out).to.have.length(4);
    });
  });

  describe('$group', () => {
    // Manual, $group: the sales collection of "Calculate Count, Sum, and Average".
    const sales = [
      { _id: 1, item: 'abc', price: 10, quantity: 2, date: new Date('2014-03-01T08:00:00Z') },
      { _id: 2, item: 'jkl', price: 20, quantity: 1, date: new Date('2014-03-01T09:00:00Z') },
      { _id: 3, item: 'xyz', price: 5, quantity: 10, date: new Date('2014-03-15T09:00:00Z') },
      { _id: 4, item: 'xyz', price: 5, quantity: 20, date: new Date('2014-04-04T11:21:39.736Z') },
      { _id: 5, item: 'abc', price: 10, quantity: 10, date: new Date('2014-04-04T21:23:13.331Z') },
    ];

    // Manual, $group: "Group by Month, Day, and Year" (compound _id of expressions).
    it('compound _id of date parts with $sum, $avg and a count', async () => {
      await seed('sales', sales);
      const out = await run('sales', [
        {
          $group: {
            _id: { month: { $month: '$date' }, day: { $dayOfMonth: '$date' }, year: { $year: '$date' } },
            totalPrice: { $sum: { $multiply: ['$price', '$quantity'] } },
            averageQuantity: { $avg: '$quantity' },
            count: { $sum: 1 },
          },
        },
        { $sort: { '_id.month': 1, '_id.day': 1 } },
      ]);
      expect(out).to.deep.equal([
        { _id: { month: 3, day: 1, year: 2014 }, totalPrice: 40, averageQuantity: 1.5, count: 2 },
        { _id: { month: 3, day: 15, year: 2014 }, totalPrice: 50, averageQuantity: 10, count: 1 },
        { _id: { month: 4, day: 4, year: 2014 }, totalPrice: 200, averageQuantity: 15, count: 2 },
      ]);
    });

    // Manual, $group: "Group by null".
    it('_id null accumulates over all documents', async () => {
      await seed('sales', sales);
      const out = await run('sales', [
        { $group: { _id: null, totalPrice: { $sum: { $multiply: ['$price', '$quantity'] } }, averageQuantity: { $avg: '$quantity' }, count: { $sum: 1 } } },
      ]);
      expect(out).to.deep.equal([{ _id: null, totalPrice: 290, averageQuantity: 8.6, count: 5 }]);
    });

    // Manual, $group: "Retrieve Distinct Values".
    it('distinct values', async () => {
      await seed('sales', sales);
      expect(byKey(await run('sales', [{ $group: { _id: '$item' } }]))).to.deep.equal([{ _id: 'abc' }, { _id: 'jkl' }, { _id: 'xyz' }]);
    });

    // Manual, $group: "Pivot Data" ($push keeps the input order; $$ROOT pushes whole documents).
    it('pivot with $push of a field and of $$ROOT', async () => {
      const books = [
        { _id: 8751, title: 'The Banquet', author: 'Dante', copies: 2 },
        { _id: 8752, title: 'Divine Comedy', author: 'Dante', copies: 1 },
        { _id: 8645, title: 'Eclogues', author: 'Dante', copies: 2 },
        { _id: 7000, title: 'The Odyssey', author: 'Homer', copies: 10 },
        { _id: 7020, title: 'Iliad', author: 'Homer', copies: 10 },
      ];
      await seed('books', books);
      expect(byKey(await run('books', [{ $group: { _id: '$author', books: { $push: '$title' } } }]))).to.deep.equal([
        { _id: 'Dante', books: ['The Banquet', 'Divine Comedy', 'Eclogues'] },
        { _id: 'Homer', books: ['The Odyssey', 'Iliad'] },
      ]);
      expect(byKey(await run('books', [{ $group: { _id: '$author', books: { $push: '$$ROOT' } } }]))).to.deep.equal([
        { _id: 'Dante', books: books.slice(0, 3) },
        { _id: 'Homer', books: books.slice(3) },
      ]);
    });

    // Manual, $first and $last (accumulators): "Use in $group Stage" (sales sorted by item and date).
    it('$first and $last after a $sort; $min, $max, $addToSet and $count on the same groups', async () => {
      await seed('sales', [
        { _id: 1, item: 'abc', price: 10, quantity: 2, date: new Date('2014-01-01T08:00:00Z') },
        { _id: 2, item: 'jkl', price: 20, quantity: 1, date: new Date('2014-02-03T09:00:00Z') },
        { _id: 3, item: 'xyz', price: 5, quantity: 5, date: new Date('2014-02-03T09:05:00Z') },
        { _id: 4, item: 'abc', price: 10, quantity: 10, date: new Date('2014-02-15T08:00:00Z') },
        { _id: 5, item: 'xyz', price: 5, quantity: 10, date: new Date('2014-02-15T09:05:00Z') },
        { _id: 6, item: 'xyz', price: 5, quantity: 5, date: new Date('2014-02-15T12:05:10Z') },
        { _id: 7, item: 'xyz', price: 5, quantity: 10, date: new Date('2014-02-15T14:12:12Z') },
      ]);
      const out = await run('sales', [
        { $sort: { item: 1, date: 1 } },
        {
          $group: {
            _id: '$item',
            firstSale: { $first: '$date' },
            lastSale: { $last: '$date' },
            minQuantity: { $min: '$quantity' },
            maxQuantity: { $max: '$quantity' },
            quantities: { $addToSet: '$quantity' },
            count: { $count: {} },
          },
        },
        { $sort: { _id: 1 } },
      ]);
      const sorted = out.map((d) => ({ ...d, quantities: [...(d.quantities as number[])].sort((a, b) => a - b) }));
      expect(sorted).to.deep.equal([
        { _id: 'abc', firstSale: new Date('2014-01-01T08:00:00Z'), lastSale: new Date('2014-02-15T08:00:00Z'), minQuantity: 2, maxQuantity: 10, quantities: [2, 10], count: 2 },
        { _id: 'jkl', firstSale: new Date('2014-02-03T09:00:00Z'), lastSale: new Date('2014-02-03T09:00:00Z'), minQuantity: 1, maxQuantity: 1, quantities: [1], count: 1 },
        { _id: 'xyz', firstSale: new Date('2014-02-03T09:05:00Z'), lastSale: new Date('2014-02-15T14:12:12Z'), minQuantity: 5, maxQuantity: 10, quantities: [5, 10], count: 4 },
      ]);
    });

    // Manual, $first/$last "Missing Values" (a missing field yields null), $min/$max/$avg/$sum ignore
    // null and missing, $count counts documents; $push/$addToSet add no value for a missing field
    // (as the server's accumulators do); a missing group key and null group together, while a
    // compound key omits a missing field ({} and {k: null} are different groups).
    it('missing fields in accumulators and group keys', async () => {
      await seed('bad', [{ _id: 1, k: null, v: 3 }, { _id: 2, v: null }, { _id: 3 }, { _id: 4, k: null, v: 1 }]);
      const out = await run('bad', [
        { $sort: { _id: 1 } },
        {
          $group: {
            _id: '$k',
            first: { $first: '$w' },
            last: { $last: '$v' },
            min: { $min: '$v' },
            max: { $max: '$v' },
            avg: { $avg: '$v' },
            sum: { $sum: '$v' },
            count: { $count: {} },
            pushed: { $push: '$v' },
            set: { $addToSet: '$v' },
          },
        },
      ]);
      expect(out).to.have.length(1);
      const { set, ...rest } = out[0];
      expect(rest).to.deep.equal({ _id: null, first: null, last: 1, min: 1, max: 3, avg: 2, sum: 4, count: 4, pushed: [3, null, 1] });
      expect(set).to.have.deep.members([3, null, 1]).and.have.length(3);
      const compound = await run('bad', [{ $group: { _id: { k: '$k' }, n: { $sum: 1 } } }]);
      expect(byKey(compound)).to.deep.equal([
        { _id: { k: null }, n: 2 },
        { _id: {}, n: 2 },
      ]);
    });
    // Manual, $max/$min (accumulators): values of different types compare in BSON order ("Comparison/
    // Sort Order"), null and missing are ignored; $group keys are whole values, so embedded documents
    // with the same fields in another order are different groups.
    it('$max/$min across types; group keys compare field order', async () => {
      const oid = new ObjectId('0123456789abcdef01234567');
      await seed('mixed', [{ _id: 1, v: true }, { _id: 2, v: oid }, { _id: 3, v: new Date(0) }, { _id: 4, v: null }, { _id: 5 }, { _id: 6, v: 'text' }]);
      expect(await run('mixed', [{ $group: { _id: null, max: { $max: '$v' }, min: { $min: '$v' } } }])).to.deep.equal([{ _id: null, max: new Date(0), min: 'text' }]);
      await seed('keys', [{ _id: 1, k: { a: 1, b: 2 } }, { _id: 2, k: { b: 2, a: 1 } }, { _id: 3, k: { a: 1, b: 2 } }]);
      const groups = await run('keys', [{ $group: { _id: '$k', n: { $sum: 1 } } }]);
      expect(groups).to.have.deep.members([
        { _id: { a: 1, b: 2 }, n: 2 },
        { _id: { b: 2, a: 1 }, n: 1 },
      ]);
      expect(groups).to.have.length(2);
    });
  });

  describe('$sort, $skip, $limit', () => {
    // Manual, $sort: "Sort Consistency" (a duplicate-valued key plus _id gives one order).
    it('multi-key sort with _id as tie-breaker, then $skip and $limit', async () => {
      await seed('restaurants', [
        { _id: 1, name: 'Central Park Cafe', borough: 'Manhattan' },
        { _id: 2, name: 'Rock A Feller Bar and Grill', borough: 'Queens' },
        { _id: 3, name: 'Empire State Pub', borough: 'Brooklyn' },
        { _id: 4, name: "Stan's Pizzaria", borough: 'Manhattan' },
        { _id: 5, name: "Jane's Deli", borough: 'Brooklyn' },
      ]);
      const ids = async (pipeline: Document[]): Promise<unknown[]> => (await run('restaurants', pipeline)).map((d) => d._id);
      expect(await ids([{ $sort: { borough: 1, _id: 1 } }])).to.deep.equal([3, 5, 1, 4, 2]);
      expect(await ids([{ $sort: { borough: -1, _id: -1 } }])).to.deep.equal([2, 4, 1, 5, 3]);
      // Manual, $skip and $limit: skip n then pass at most n documents.
      expect(await ids([{ $sort: { borough: 1, _id: 1 } }, { $skip: 1 }, { $limit: 3 }])).to.deep.equal([5, 1, 4]);
      expect(await ids([{ $sort: { borough: 1, _id: 1 } }, { $skip: 10 }])).to.deep.equal([]);
    });

    // Manual, "Comparison/Sort Order": MinKey, null, numbers, strings, objects, arrays, BinData,
    // ObjectId, booleans, dates, regular expressions, MaxKey; numbers compare by value across types;
    // a missing field sorts as null.
    it('values of different types sort in BSON comparison order', async () => {
      const { Binary, MaxKey, MinKey } = await import('mongodb');
      await seed('mixed', [
        { _id: 1, v: true },
        { _id: 2, v: new Date('2020-01-01') },
        { _id: 3, v: 'abc' },
        { _id: 4, v: { a: 1 } },
        { _id: 5, v: 10 },
        { _id: 6, v: null },
        { _id: 7, v: new ObjectId('0123456789abcdef01234567') },
        { _id: 8, v: 2.5 },
        { _id: 9, v: new Binary(Buffer.from('x')) },
        { _id: 10, v: /re/ },
        { _id: 11, v: new MaxKey() },
        { _id: 12, v: new MinKey() },
        { _id: 13 },
        { _id: 14, v: false },
      ]);
      const asc = (await run('mixed', [{ $sort: { v: 1, _id: 1 } }])).map((d) => d._id);
      expect(asc).to.deep.equal([12, 6, 13, 8, 5, 3, 4, 9, 7, 14, 1, 2, 10, 11]);
      const desc = (await run('mixed', [{ $sort: { v: -1, _id: 1 } }])).map((d) => d._id);
      expect(desc).to.deep.equal([11, 10, 2, 1, 14, 7, 9, 4, 3, 5, 8, 6, 13, 12]);
    });

    // Manual, "Comparison/Sort Order", Arrays: an ascending sort uses an array's smallest element, a
    // descending sort its largest; an empty array sorts before null and missing.
    it('arrays sort by their smallest element ascending and largest descending', async () => {
      await seed('arrays', [
        { _id: 1, v: [1, 9] },
        { _id: 2, v: 5 },
        { _id: 3, v: [] },
        { _id: 4, v: [4, 6] },
        { _id: 5 },
        { _id: 6, v: [{ b: 2 }] },
      ]);
      expect((await run('arrays', [{ $sort: { v: 1, _id: 1 } }])).map((d) => d._id)).to.deep.equal([3, 5, 1, 4, 2, 6]);
      expect((await run('arrays', [{ $sort: { v: -1, _id: 1 } }])).map((d) => d._id)).to.deep.equal([6, 1, 4, 2, 5, 3]);
    });

    // Manual, "Comparison/Sort Order": objects compare field by field in order; dotted sort paths reach
    // into arrays of documents (the smallest/largest of the reached values).
    it('embedded documents and dotted paths through arrays', async () => {
      await seed('objs', [
        { _id: 1, o: { x: 2 }, a: [{ b: 3 }, { b: 1 }] },
        { _id: 2, o: { x: 1, y: 1 }, a: [{ b: 2 }] },
        { _id: 3, o: { w: 5 }, a: [{ c: 1 }] },
        { _id: 4, o: {}, a: [{ b: 0 }, { b: 9 }] },
      ]);
      expect((await run('objs', [{ $sort: { o: 1 } }])).map((d) => d._id)).to.deep.equal([4, 3, 2, 1]);
      expect((await run('objs', [{ $sort: { 'a.b': 1 } }])).map((d) => d._id)).to.deep.equal([3, 4, 1, 2]);
      expect((await run('objs', [{ $sort: { 'a.b': -1 } }])).map((d) => d._id)).to.deep.equal([4, 1, 2, 3]);
    });
  });

  // Manual, $skip ("positive integer"), $limit ("positive 64-bit integer"), $sort ("1 or -1"),
  // $unwind ("prefix the field name with a dollar sign"), $lookup (as is required), $addFields: invalid
  // arguments are refused with the server's codes.
  it('invalid stage arguments are refused with the server codes', async () => {
    await seed('any', [{ _id: 1, a: [1] }]);
    const code = async (stage: Document): Promise<number | undefined> => {
      try {
        await run('any', [stage]);
      } catch (e) {
        return (e as { code?: number }).code;
      }
      throw new Error(`expected ${JSON.stringify(stage)} to fail`);
    };
    expect(await code({ $skip: -1 })).to.equal(5107200);
    expect(await code({ $limit: 0 })).to.equal(15958);
    expect(await code({ $limit: -2 })).to.equal(5107201);
    expect(await code({ $sort: { a: 2 } })).to.equal(15975);
    expect(await code({ $sort: {} })).to.equal(15976);
    expect(await code({ $unwind: 'a' })).to.equal(28818);
    expect(await code({ $group: { n: { $sum: 1 } } })).to.equal(15955);
    expect(await code({ $group: { _id: null, n: 1 } })).to.equal(40234);
    expect(await code({ $lookup: { from: 'any', localField: 'a', foreignField: 'a' } })).to.equal(40321);
    expect(await code({ $addFields: {} })).to.equal(40177);
    expect(await code({ $facet: { x: [{ $skip: -1 }] } })).to.equal(5107200);
  });

  // Manual, $facet: the artwork example (sub-pipelines $unwind + $sortByCount, $match + $bucket,
  // $bucketAuto) over the same input.
  it('$facet runs independent sub-pipelines over the same documents', async () => {
    await seed('artwork', [
      { _id: 1, title: 'The Pillars of Society', artist: 'Grosz', year: 1926, price: 199.99, tags: ['painting', 'satire', 'Expressionism', 'caricature'] },
      { _id: 2, title: 'Melancholy III', artist: 'Munch', year: 1902, price: 280.0, tags: ['woodcut', 'Expressionism'] },
      { _id: 3, title: 'Dancer', artist: 'Miro', year: 1925, price: 76.04, tags: ['oil', 'Surrealism', 'painting'] },
      { _id: 4, title: 'The Great Wave off Kanagawa', artist: 'Hokusai', price: 167.3, tags: ['woodblock', 'ukiyo-e'] },
      { _id: 5, title: 'The Persistence of Memory', artist: 'Dali', year: 1931, price: 483.0, tags: ['Surrealism', 'painting', 'oil'] },
      { _id: 6, title: 'Composition VII', artist: 'Kandinsky', year: 1913, price: 385.0, tags: ['oil', 'painting', 'abstract'] },
      { _id: 7, title: 'The Scream', artist: 'Munch', year: 1893, tags: ['Expressionism', 'painting', 'oil'] },
      { _id: 8, title: 'Blue Flower', artist: "O'Keefe", year: 1918, price: 118.42, tags: ['abstract', 'painting'] },
    ]);
    const [out] = await run('artwork', [
      {
        $facet: {
          categorizedByTags: [{ $unwind: '$tags' }, { $sortByCount: '$tags' }],
          categorizedByPrice: [
            { $match: { price: { $exists: 1 } } },
            { $bucket: { groupBy: '$price', boundaries: [0, 150, 200, 300, 400], default: 'Other', output: { count: { $sum: 1 }, titles: { $push: '$title' } } } },
          ],
          'categorizedByYears(Auto)': [{ $bucketAuto: { groupBy: '$year', buckets: 4 } }],
        },
      },
    ]);
    expect(Object.keys(out).sort()).to.deep.equal(['categorizedByPrice', 'categorizedByTags', 'categorizedByYears(Auto)']);
    expect(out['categorizedByYears(Auto)']).to.deep.equal([
      { _id: { min: null, max: 1902 }, count: 2 },
      { _id: { min: 1902, max: 1918 }, count: 2 },
      { _id: { min: 1918, max: 1926 }, count: 2 },
      { _id: { min: 1926, max: 1931 }, count: 2 },
    ]);
    expect(out.categorizedByPrice).to.deep.equal([
      { _id: 0, count: 2, titles: ['Dancer', 'Blue Flower'] },
      { _id: 150, count: 2, titles: ['The Pillars of Society', 'The Great Wave off Kanagawa'] },
      { _id: 200, count: 1, titles: ['Melancholy III'] },
      { _id: 300, count: 1, titles: ['Composition VII'] },
      { _id: 'Other', count: 1, titles: ['The Persistence of Memory'] },
    ]);
    // $sortByCount orders by count; the order among equal counts is unspecified.
    const tags = out.categorizedByTags as Document[];
    expect(tags.map((t) => t.count)).to.deep.equal([6, 4, 3, 2, 2, 1, 1, 1, 1, 1]);
    expect(byKey(tags)).to.deep.equal(
      byKey([
        { _id: 'painting', count: 6 },
        { _id: 'oil', count: 4 },
        { _id: 'Expressionism', count: 3 },
        { _id: 'Surrealism', count: 2 },
        { _id: 'abstract', count: 2 },
        { _id: 'woodblock', count: 1 },
        { _id: 'woodcut', count: 1 },
        { _id: 'ukiyo-e', count: 1 },
        { _id: 'satire', count: 1 },
        { _id: 'caricature', count: 1 },
      ]),
    );
  });
});
