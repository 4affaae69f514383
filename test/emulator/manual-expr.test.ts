import { expect } from 'chai';
import type { Db, Document } from 'mongodb';
import { useMongo } from './helpers';

/**
 * Aggregation expressions and `$expr` against null and missing fields, from the MongoDB manual. The
 * query language's `{field: null}` matches a missing field (page "Query for Null or Missing Fields");
 * aggregation expressions do not: `$eq`/`$ne` treat a missing field as a value distinct from null, two
 * missing fields as equal (page "$ne (expression operator)"), and compare values of different types in
 * BSON order (page "Comparison/Sort Order") without traversing arrays.
 */
describe('emulator conformance (manual): $expr, null and missing', () => {
  const mongo = useMongo();
  let db: Db;
  const put = (name: string, docs: Document[]): Promise<unknown> => db.collection(name).insertMany(docs);
  before(async () => {
    db = mongo.db('manual_expr');
    await put('monthlyBudget', [
      { _id: 1, category: 'food', budget: 400, spent: 450 },
      { _id: 2, category: 'drinks', budget: 100, spent: 150 },
      { _id: 3, category: 'clothes', budget: 100, spent: 50 },
      { _id: 4, category: 'misc', budget: 500, spent: 300 },
      { _id: 5, category: 'travel', budget: 200, spent: 650 },
    ]);
    await put('supplies', [
      { _id: 1, item: 'binder', qty: 100, price: 12 },
      { _id: 2, item: 'notebook', qty: 200, price: 8 },
      { _id: 3, item: 'pencil', qty: 50, price: 6 },
      { _id: 4, item: 'eraser', qty: 150, price: 3 },
    ]);
    // "Query for Null or Missing Fields": one document with item null, one without item.
    await put('nulls', [{ _id: 1, item: null }, { _id: 2 }]);
    // "$ifNull (aggregation)": description present, null, and missing.
    await put('inventory', [
      { _id: 1, item: 'buggy', description: 'toy car', quantity: 300 },
      { _id: 2, item: 'bicycle', description: null, quantity: 200 },
      { _id: 3, item: 'flag' },
    ]);
  });
  const ids = (docs: Document[]): unknown[] => docs.map((d) => d._id);
  const find = async (coll: string, filter: Document): Promise<unknown[]> => ids(await db.collection(coll).find(filter).sort({ _id: 1 }).toArray());
  const match = async (coll: string, filter: Document): Promise<unknown[]> => ids(await db.collection(coll).aggregate([{ $match: filter }, { $sort: { _id: 1 } }]).toArray());

  // Manual, $expr: "Compare Two Fields from A Single Document".
  it('$expr compares two fields of a document (find and $match)', async () => {
    const filter = { $expr: { $gt: ['$spent', '$budget'] } };
    expect(await find('monthlyBudget', filter)).to.deep.equal([1, 2, 5]);
    expect(await match('monthlyBudget', filter)).to.deep.equal([1, 2, 5]);
  });

  // Manual, $expr: "Using $expr With Conditional Statements".
  it('$expr with $cond', async () => {
    const filter = { $expr: { $lt: [{ $cond: { if: { $gte: ['$qty', 100] }, then: { $divide: ['$price', 2] }, else: { $divide: ['$price', 4] } } }, 5] } };
    expect(await find('supplies', filter)).to.deep.equal([2, 3, 4]);
    expect(await match('supplies', filter)).to.deep.equal([2, 3, 4]);
  });

  // Manual, "Query for Null or Missing Fields": equality with null matches null and missing, $type 10
  // only null, $exists: false only missing — in find filters and in $match alike.
  it('the query language: {field: null} matches null and missing', async () => {
    for (const q of [find, match]) {
      expect(await q('nulls', { item: null })).to.deep.equal([1, 2]);
      expect(await q('nulls', { item: { $type: 10 } })).to.deep.equal([1]);
      expect(await q('nulls', { item: { $exists: false } })).to.deep.equal([2]);
      expect(await q('nulls', { item: { $ne: null } })).to.deep.equal([]);
      expect(await q('nulls', { item: { $in: [null] } })).to.deep.equal([1, 2]);
    }
  });

  // Manual, "$ne (expression operator)" and "$eq (expression operator)": a missing field is distinct
  // from null; two missing fields are equal. In $expr (find, $match) and in computed fields.
  it('expressions: missing is not null, missing equals missing', async () => {
    for (const q of [find, match]) {
      expect(await q('nulls', { $expr: { $eq: ['$item', null] } })).to.deep.equal([1]);
      expect(await q('nulls', { $expr: { $ne: ['$item', null] } })).to.deep.equal([2]);
      expect(await q('nulls', { $expr: { $eq: ['$item', '$alsoMissing'] } })).to.deep.equal([2]);
    }
    const out = await db
      .collection('nulls')
      .aggregate([
        { $sort: { _id: 1 } },
        {
          $project: {
            eqNull: { $eq: ['$item', null] },
            neNull: { $ne: ['$item', null] },
            eqMissing: { $eq: ['$item', '$$REMOVE'] },
            inNull: { $in: ['$item', [null]] },
            isNull: { $eq: [{ $ifNull: ['$item', null] }, null] },
            type: { $type: '$item' },
          },
        },
      ])
      .toArray();
    expect(out).to.deep.equal([
      { _id: 1, eqNull: true, neNull: false, eqMissing: false, inNull: true, isNull: true, type: 'null' },
      { _id: 2, eqNull: false, neNull: true, eqMissing: true, inNull: false, isNull: true, type: 'missing' },
    ]);
  });

  // Manual, "$ifNull (aggregation)": null and missing both take the replacement.
  it('$ifNull replaces null and missing alike', async () => {
    const out = await db
      .collection('inventory')
      .aggregate([{ $project: { item: 1, description: { $ifNull: ['$description', 'Unspecified'] } } }])
      .toArray();
    expect(out).to.deep.equal([
      { _id: 1, item: 'buggy', description: 'toy car' },
      { _id: 2, item: 'bicycle', description: 'Unspecified' },
      { _id: 3, item: 'flag', description: 'Unspecified' },
    ]);
  });

  // Manual, "Comparison/Sort Order" as used by the expression comparison operators ("$gt", "$lt",
  // "$cmp": "compares both value and type, using the specified BSON comparison order for values of
  // different types"): a string is greater than any number, null below numbers, missing below null
  // (the server's lowest canonical type); arrays compare as whole values, not element by element.
  it('expression comparisons across types follow BSON order; arrays are not traversed', async () => {
    const [doc] = await db
      .collection('nulls')
      .aggregate([
        { $match: { _id: 2 } },
        {
          $project: {
            _id: 0,
            strGtNum: { $gt: ['abc', 5] },
            nullLtNum: { $lt: [null, 0] },
            missingLtNull: { $lt: ['$item', null] },
            missingGtNum: { $gt: ['$item', 5] },
            cmpMissingNull: { $cmp: ['$item', null] },
            cmpArrayNull: { $cmp: [[], null] },
            arrayEqElement: { $eq: [[1, 2], 1] },
            arrayEqArray: { $eq: [[1, 2], [1, 2]] },
            arrayGtNumber: { $gt: [[1], 5] },
            objLtArray: { $lt: [{ a: 1 }, [0]] },
            dateGtBool: { $gt: [new Date(0), true] },
            intEqDouble: { $eq: [1, 1.0] },
          },
        },
      ])
      .toArray();
    expect(doc).to.deep.equal({
      strGtNum: true,
      nullLtNum: true,
      missingLtNull: true,
      missingGtNum: false,
      cmpMissingNull: -1,
      cmpArrayNull: 1,
      arrayEqElement: false,
      arrayEqArray: true,
      arrayGtNumber: true,
      objLtArray: true,
      dateGtBool: true,
      intEqDouble: true,
    });
  });

  // Manual, $sum / $avg / $max / $min (expression use in $project): one operand that is an array is
  // accumulated over its elements, a list of operands over their values; a single non-array value is
  // its own result (missing: 0 for $sum, null for the others).
  it('$sum, $avg, $max and $min as expressions', async () => {
    await put('students', [
      { _id: 1, quizzes: [10, 6, 7], labs: [5, 8], final: 80, midterm: 75 },
      { _id: 2, quizzes: [9, 10], labs: [8, 8], final: 95, midterm: 80 },
      { _id: 3, quizzes: [4, 5, 5], labs: [6, 5], final: 78, midterm: 70 },
    ]);
    const out = await db
      .collection('students')
      .aggregate([
        {
          $project: {
            quizTotal: { $sum: '$quizzes' },
            labTotal: { $sum: '$labs' },
            examTotal: { $sum: ['$final', '$midterm'] },
            quizAvg: { $avg: '$quizzes' },
            examAvg: { $avg: ['$final', '$midterm'] },
            quizMax: { $max: '$quizzes' },
            examMin: { $min: ['$final', '$midterm'] },
            finalSum: { $sum: '$final' },
            finalMax: { $max: '$final' },
            noneSum: { $sum: '$none' },
            noneAvg: { $avg: '$none' },
          },
        },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    const none = { noneSum: 0, noneAvg: null };
    expect(out).to.deep.equal([
      { _id: 1, quizTotal: 23, labTotal: 13, examTotal: 155, quizAvg: 23 / 3, examAvg: 77.5, quizMax: 10, examMin: 75, finalSum: 80, finalMax: 80, ...none },
      { _id: 2, quizTotal: 19, labTotal: 16, examTotal: 175, quizAvg: 9.5, examAvg: 87.5, quizMax: 10, examMin: 80, finalSum: 95, finalMax: 95, ...none },
      { _id: 3, quizTotal: 14, labTotal: 11, examTotal: 148, quizAvg: 14 / 3, examAvg: 74, quizMax: 5, examMin: 70, finalSum: 78, finalMax: 78, ...none },
    ]);
  });

  // Manual, $lookup: a let variable bound to a missing field stays missing, so a correlated
  // `$eq: ['$field', '$$var']` joins foreign documents missing the field, not those holding null.
  it('a $lookup let variable of a missing field matches missing, not null', async () => {
    await put('lk_local', [{ _id: 1 }, { _id: 2, k: null }, { _id: 3, k: 7 }]);
    await put('lk_foreign', [{ _id: 10 }, { _id: 11, k: null }, { _id: 12, k: 7 }]);
    const out = await db
      .collection('lk_local')
      .aggregate([
        { $lookup: { from: 'lk_foreign', let: { k: '$k' }, pipeline: [{ $match: { $expr: { $eq: ['$k', '$$k'] } } }, { $project: { _id: 1 } }], as: 'j' } },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    expect(out.map((d) => ({ _id: d._id, j: ids(d.j as Document[]) }))).to.deep.equal([
      { _id: 1, j: [10] },
      { _id: 2, j: [11] },
      { _id: 3, j: [12] },
    ]);
  });
});
