import { expect } from 'chai';
import type { Db, Document } from 'mongodb';
import { useMongo } from './helpers';

/**
 * `$project`, `$addFields`, `$set` and `$unset` as the MongoDB manual documents them (each case names
 * its page and example). Field order is part of the output: included fields keep the input order,
 * computed fields follow in specification order, and `$addFields` replaces existing fields in place.
 */
describe('emulator conformance (manual): $project, $addFields, $set, $unset', () => {
  const mongo = useMongo();
  let db: Db;
  beforeEach(() => {
    db = mongo.db('manual_projection');
  });
  const put = (name: string, docs: Document[]): Promise<unknown> => db.collection(name).insertMany(docs);
  const run = (coll: string, pipeline: Document[]): Promise<Document[]> => db.collection(coll).aggregate(pipeline).toArray();
  /** deep equality plus the same field order at every level. */
  const same = (actual: Document[], expected: Document[]): void => {
    expect(actual).to.deep.equal(expected);
    expect(JSON.stringify(actual)).to.equal(JSON.stringify(expected));
  };

  const books = [
    { _id: 1, title: 'abc123', isbn: '0001122223334', author: { last: 'zzz', first: 'aaa' }, copies: 5, lastModified: '2016-07-28' },
    { _id: 2, title: 'Baked Goods', isbn: '9999999999999', author: { last: 'xyz', first: 'abc', middle: '' }, copies: 2, lastModified: '2017-07-21' },
    { _id: 3, title: 'Ice Cream Cakes', isbn: '8888888888888', author: { last: 'xyz', first: 'abc', middle: 'mmm' }, copies: 5, lastModified: '2017-07-22' },
  ];

  describe('$project', () => {
    // Manual, $project: "Include Specific Fields in Output Documents" and "Suppress _id Field".
    it('includes fields in input order, _id unless suppressed', async () => {
      await put('books', [books[0]]);
      same(await run('books', [{ $project: { author: 1, title: 1 } }]), [{ _id: 1, title: 'abc123', author: { last: 'zzz', first: 'aaa' } }]);
      same(await run('books', [{ $project: { _id: 0, title: 1, author: 1 } }]), [{ title: 'abc123', author: { last: 'zzz', first: 'aaa' } }]);
    });

    // Manual, $project: "Exclude Fields from Output Documents" and "Exclude Fields from Embedded Documents".
    it('excludes top-level and embedded fields', async () => {
      await put('books', [books[0]]);
      same(await run('books', [{ $project: { lastModified: 0 } }]), [{ _id: 1, title: 'abc123', isbn: '0001122223334', author: { last: 'zzz', first: 'aaa' }, copies: 5 }]);
      same(await run('books', [{ $project: { 'author.first': 0, lastModified: 0 } }]), [{ _id: 1, title: 'abc123', isbn: '0001122223334', author: { last: 'zzz' }, copies: 5 }]);
      same(await run('books', [{ $project: { author: { first: 0 }, lastModified: 0 } }]), [{ _id: 1, title: 'abc123', isbn: '0001122223334', author: { last: 'zzz' }, copies: 5 }]);
    });

    // Manual, $project: "Conditionally Exclude Fields" ($$REMOVE; a missing author.middle stays missing).
    it('conditionally excludes a field with $$REMOVE', async () => {
      await put('books', books);
      const out = await run('books', [
        { $project: { title: 1, 'author.first': 1, 'author.last': 1, 'author.middle': { $cond: { if: { $eq: ['', '$author.middle'] }, then: '$$REMOVE', else: '$author.middle' } } } },
      ]);
      same(out, [
        { _id: 1, title: 'abc123', author: { last: 'zzz', first: 'aaa' } },
        { _id: 2, title: 'Baked Goods', author: { last: 'xyz', first: 'abc' } },
        { _id: 3, title: 'Ice Cream Cakes', author: { last: 'xyz', first: 'abc', middle: 'mmm' } },
      ]);
    });

    // Manual, $project: "Include Specific Fields from Embedded Documents" (an embedded document and an
    // array of embedded documents).
    it('includes a field of an embedded document and of documents in an array', async () => {
      await put('bookmarks', [
        { _id: 1, user: '1234', stop: { title: 'book1', author: 'xyz', page: 32 } },
        { _id: 2, user: '7890', stop: [{ title: 'book2', author: 'abc', page: 5 }, { title: 'book3', author: 'ijk', page: 100 }] },
      ]);
      const expected = [
        { _id: 1, stop: { title: 'book1' } },
        { _id: 2, stop: [{ title: 'book2' }, { title: 'book3' }] },
      ];
      same(await run('bookmarks', [{ $project: { 'stop.title': 1 } }]), expected);
      same(await run('bookmarks', [{ $project: { stop: { title: 1 } } }]), expected);
    });

    // Manual, $project: "Include Computed Fields".
    it('computed fields: a new embedded document, renamed fields', async () => {
      await put('books', [books[0]]);
      const out = await run('books', [
        {
          $project: {
            title: 1,
            isbn: {
              prefix: { $substr: ['$isbn', 0, 3] },
              group: { $substr: ['$isbn', 3, 2] },
              publisher: { $substr: ['$isbn', 5, 4] },
              title: { $substr: ['$isbn', 9, 3] },
              checkDigit: { $substr: ['$isbn', 12, 1] },
            },
            lastName: '$author.last',
            copiesSold: '$copies',
          },
        },
      ]);
      same(out, [{ _id: 1, title: 'abc123', isbn: { prefix: '000', group: '11', publisher: '2222', title: '333', checkDigit: '4' }, lastName: 'zzz', copiesSold: 5 }]);
    });

    // Manual, $project: "Project New Array Fields" (a missing field in an array literal becomes null).
    it('new array fields; a missing field inside the array is null', async () => {
      await put('xy', [{ _id: 1, x: 1, y: 1 }]);
      same(await run('xy', [{ $project: { myArray: ['$x', '$y'] } }]), [{ _id: 1, myArray: [1, 1] }]);
      same(await run('xy', [{ $project: { myArray: ['$x', '$y', '$someField'] } }]), [{ _id: 1, myArray: [1, 1, null] }]);
    });

    // Manual, $project: "Considerations" — mixing inclusion and exclusion (other than _id) is an error;
    // an empty specification is an error.
    it('refuses mixed inclusion/exclusion and empty specifications with the server codes', async () => {
      await put('books', [books[0]]);
      const fail = async (spec: Document): Promise<{ code?: number }> => {
        try {
          await run('books', [{ $project: spec }]);
        } catch (e) {
          return e as { code?: number };
        }
        throw new Error('expected an error');
      };
      expect((await fail({ title: 1, copies: 0 })).code).to.equal(31254);
      expect((await fail({})).code).to.equal(51272);
      expect((await fail({ lastModified: 0, x: { $add: [1, 2] } })).code).to.equal(31252);
    });
  });

  describe('$addFields and $set', () => {
    const scores = [
      { _id: 1, student: 'Maya', homework: [10, 5, 10], quiz: [10, 8], extraCredit: 0 },
      { _id: 2, student: 'Ryan', homework: [5, 6, 5], quiz: [8, 8], extraCredit: 8 },
    ];

    // Manual, $addFields: "Using Two $addFields Stages" (and $set: "Using Two $set Stages").
    it('two stages, the second using the fields of the first', async () => {
      await put('scores', scores);
      const expected = [
        { ...scores[0], totalHomework: 25, totalQuiz: 18, totalScore: 43 },
        { ...scores[1], totalHomework: 16, totalQuiz: 16, totalScore: 40 },
      ];
      for (const stage of ['$addFields', '$set']) {
        const out = await run('scores', [
          { [stage]: { totalHomework: { $sum: '$homework' }, totalQuiz: { $sum: '$quiz' } } },
          { [stage]: { totalScore: { $add: ['$totalHomework', '$totalQuiz', '$extraCredit'] } } },
        ]);
        same(out, expected);
      }
    });

    // Manual, $addFields: "Adding Fields to an Embedded Document" (a missing parent is created).
    it('a dotted path adds to embedded documents and creates a missing parent', async () => {
      await put('vehicles', [
        { _id: 1, type: 'car', specs: { doors: 4, wheels: 4 } },
        { _id: 2, type: 'motorcycle', specs: { doors: 0, wheels: 2 } },
        { _id: 3, type: 'jet ski' },
      ]);
      const expected = [
        { _id: 1, type: 'car', specs: { doors: 4, wheels: 4, fuel_type: 'unleaded' } },
        { _id: 2, type: 'motorcycle', specs: { doors: 0, wheels: 2, fuel_type: 'unleaded' } },
        { _id: 3, type: 'jet ski', specs: { fuel_type: 'unleaded' } },
      ];
      same(await run('vehicles', [{ $addFields: { 'specs.fuel_type': 'unleaded' } }]), expected);
      same(await run('vehicles', [{ $set: { 'specs.fuel_type': 'unleaded' } }]), expected);
      // The same specification written as a nested object merges into the embedded document.
      same(await run('vehicles', [{ $set: { specs: { fuel_type: 'unleaded' } } }]), expected);
    });

    // Manual, $addFields: "Overwriting an existing field" (in place, _id included).
    it('overwrites existing fields in place, _id too', async () => {
      await put('animals', [{ _id: 1, dogs: 10, cats: 15 }]);
      same(await run('animals', [{ $addFields: { cats: 20 } }]), [{ _id: 1, dogs: 10, cats: 20 }]);
      await put('fruit', [
        { _id: 1, item: 'tangerine', type: 'citrus' },
        { _id: 2, item: 'lemon', type: 'citrus' },
        { _id: 3, item: 'grapefruit', type: 'citrus' },
      ]);
      same(await run('fruit', [{ $addFields: { _id: '$item', item: 'fruit' } }]), [
        { _id: 'tangerine', item: 'fruit', type: 'citrus' },
        { _id: 'lemon', item: 'fruit', type: 'citrus' },
        { _id: 'grapefruit', item: 'fruit', type: 'citrus' },
      ]);
    });

    // Manual, $addFields: "Add Element to an Array" ($concatArrays).
    it('adds an element to an array with $concatArrays', async () => {
      await put('scores', scores);
      same(await run('scores', [{ $match: { _id: 1 } }, { $addFields: { homework: { $concatArrays: ['$homework', [7]] } } }]), [{ ...scores[0], homework: [10, 5, 10, 7] }]);
    });

    // Manual, $addFields: "Remove Fields" ($$REMOVE, and conditionally with $ifNull).
    it('removes fields with $$REMOVE, conditionally with $ifNull', async () => {
      const readings = [
        { _id: 1, date: new Date('2024-10-09'), temperature: 80 },
        { _id: 2, date: null, temperature: 83 },
        { _id: 3, date: new Date('2024-12-09'), temperature: 85 },
      ];
      await put('labReadings', readings);
      same(await run('labReadings', [{ $addFields: { date: '$$REMOVE' } }]), readings.map(({ date: _date, ...rest }) => rest));
      same(await run('labReadings', [{ $addFields: { date: { $ifNull: ['$date', '$$REMOVE'] } } }]), [readings[0], { _id: 2, temperature: 83 }, readings[2]]);
    });

    // Manual, $addFields: "To add a field or fields to embedded documents (including documents in
    // arrays) use the dot notation": every document element of the array gets the field.
    it('a dotted path adds the field to every document of an array', async () => {
      await put('orders', [{ _id: 1, lines: [{ sku: 'a' }, { sku: 'b' }] }]);
      same(await run('orders', [{ $set: { 'lines.checked': true } }]), [{ _id: 1, lines: [{ sku: 'a', checked: true }, { sku: 'b', checked: true }] }]);
    });
  });

  // Manual, $unset (aggregation): "Remove a Single Field", "Remove Top-Level Fields", "Remove Embedded
  // Fields" (through an array of documents).
  it('$unset removes top-level and embedded fields, also inside arrays', async () => {
    const unsetBooks = [
      { _id: 1, title: 'Antelope Antics', isbn: '0001122223334', author: { last: 'An', first: 'Auntie' }, copies: [{ warehouse: 'A', qty: 5 }, { warehouse: 'B', qty: 15 }] },
      { _id: 2, title: 'Bees Babble', isbn: '999999999999', author: { last: 'Bumble', first: 'Bee' }, copies: [{ warehouse: 'A', qty: 2 }, { warehouse: 'B', qty: 5 }] },
    ];
    await put('books', unsetBooks);
    same(await run('books', [{ $unset: 'copies' }]), unsetBooks.map(({ copies: _c, ...rest }) => rest));
    same(await run('books', [{ $unset: ['isbn', 'copies'] }]), unsetBooks.map(({ copies: _c, isbn: _i, ...rest }) => rest));
    same(await run('books', [{ $unset: ['isbn', 'author.first', 'copies.warehouse'] }]), [
      { _id: 1, title: 'Antelope Antics', author: { last: 'An' }, copies: [{ qty: 5 }, { qty: 15 }] },
      { _id: 2, title: 'Bees Babble', author: { last: 'Bumble' }, copies: [{ qty: 2 }, { qty: 5 }] },
    ]);
  });
});
