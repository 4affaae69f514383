import { expect } from 'chai';
import type { Db, Document } from 'mongodb';
import { useMongo } from './helpers';

/**
 * `$lookup` as the MongoDB manual documents it: each case inserts the example documents of the
 * manual page named in its comment, runs the page's pipeline through the official driver and expects
 * the documented output. Result order is the input collection's order (no sort in the pipelines);
 * the joined arrays are in the foreign collection's order, as the manual shows them.
 */
describe('emulator conformance (manual): $lookup', () => {
  const mongo = useMongo();
  let db: Db;
  const put = (name: string, docs: Document[]): Promise<unknown> => db.collection(name).insertMany(docs);
  beforeEach(() => {
    db = mongo.db('manual_lookup');
  });
  const run = (coll: string, pipeline: Document[]): Promise<Document[]> => db.collection(coll).aggregate(pipeline).toArray();

  // Manual, $lookup: "Perform a Single Equality Join with $lookup".
  it('equality join; an input without the localField matches foreign null and missing', async () => {
    await put('orders', [
      { _id: 1, item: 'almonds', price: 12, quantity: 2 },
      { _id: 2, item: 'pecans', price: 20, quantity: 1 },
      { _id: 3 },
    ]);
    await put('inventory', [
      { _id: 1, sku: 'almonds', description: 'product 1', instock: 120 },
      { _id: 2, sku: 'bread', description: 'product 2', instock: 80 },
      { _id: 3, sku: 'cashews', description: 'product 3', instock: 60 },
      { _id: 4, sku: 'pecans', description: 'product 4', instock: 70 },
      { _id: 5, sku: null, description: 'Incomplete' },
      { _id: 6 },
    ]);
    const out = await run('orders', [{ $lookup: { from: 'inventory', localField: 'item', foreignField: 'sku', as: 'inventory_docs' } }]);
    expect(out).to.deep.equal([
      { _id: 1, item: 'almonds', price: 12, quantity: 2, inventory_docs: [{ _id: 1, sku: 'almonds', description: 'product 1', instock: 120 }] },
      { _id: 2, item: 'pecans', price: 20, quantity: 1, inventory_docs: [{ _id: 4, sku: 'pecans', description: 'product 4', instock: 70 }] },
      { _id: 3, inventory_docs: [{ _id: 5, sku: null, description: 'Incomplete' }, { _id: 6 }] },
    ]);
  });

  // Manual, $lookup: "Use $lookup with an Array" (matches come in the foreign collection's order).
  it('an array localField matches each element, joined documents in foreign order', async () => {
    await put('classes', [
      { _id: 1, title: 'Reading is ...', enrollmentlist: ['giraffe2', 'pandabear', 'artie'], days: ['M', 'W', 'F'] },
      { _id: 2, title: 'But Writing ...', enrollmentlist: ['giraffe1', 'artie'], days: ['T', 'F'] },
    ]);
    const members = [
      { _id: 1, name: 'artie', joined: new Date('2016-05-01'), status: 'A' },
      { _id: 2, name: 'giraffe', joined: new Date('2017-05-01'), status: 'D' },
      { _id: 3, name: 'giraffe1', joined: new Date('2017-10-01'), status: 'A' },
      { _id: 4, name: 'panda', joined: new Date('2018-10-11'), status: 'A' },
      { _id: 5, name: 'pandabear', joined: new Date('2018-12-01'), status: 'A' },
      { _id: 6, name: 'giraffe2', joined: new Date('2018-12-01'), status: 'D' },
    ];
    await put('members', members);
    const out = await run('classes', [{ $lookup: { from: 'members', localField: 'enrollmentlist', foreignField: 'name', as: 'enrollee_info' } }]);
    expect(out).to.deep.equal([
      { _id: 1, title: 'Reading is ...', enrollmentlist: ['giraffe2', 'pandabear', 'artie'], days: ['M', 'W', 'F'], enrollee_info: [members[0], members[4], members[5]] },
      { _id: 2, title: 'But Writing ...', enrollmentlist: ['giraffe1', 'artie'], days: ['T', 'F'], enrollee_info: [members[0], members[2]] },
    ]);
  });

  // Manual, $lookup: "Use $lookup with $mergeObjects".
  it('equality join followed by $replaceRoot with $mergeObjects', async () => {
    await put('orders', [
      { _id: 1, item: 'almonds', price: 12, quantity: 2 },
      { _id: 2, item: 'pecans', price: 20, quantity: 1 },
    ]);
    await put('items', [
      { _id: 1, item: 'almonds', description: 'almond clusters', instock: 120 },
      { _id: 2, item: 'bread', description: 'raisin and nut bread', instock: 80 },
      { _id: 3, item: 'pecans', description: 'candied pecans', instock: 60 },
    ]);
    const out = await run('orders', [
      { $lookup: { from: 'items', localField: 'item', foreignField: 'item', as: 'fromItems' } },
      { $replaceRoot: { newRoot: { $mergeObjects: [{ $arrayElemAt: ['$fromItems', 0] }, '$$ROOT'] } } },
      { $project: { fromItems: 0 } },
    ]);
    expect(out).to.deep.equal([
      { _id: 1, item: 'almonds', description: 'almond clusters', instock: 120, price: 12, quantity: 2 },
      { _id: 2, item: 'pecans', description: 'candied pecans', instock: 60, price: 20, quantity: 1 },
    ]);
  });

  // Manual, $lookup: "Perform Multiple Joins and a Correlated Subquery with $lookup".
  it('let + pipeline: correlated subquery with $expr on two conditions', async () => {
    await put('orders', [
      { _id: 1, item: 'almonds', price: 12, ordered: 2 },
      { _id: 2, item: 'pecans', price: 20, ordered: 1 },
      { _id: 3, item: 'cookies', price: 10, ordered: 60 },
    ]);
    await put('warehouses', [
      { _id: 1, stock_item: 'almonds', warehouse: 'A', instock: 120 },
      { _id: 2, stock_item: 'pecans', warehouse: 'A', instock: 80 },
      { _id: 3, stock_item: 'almonds', warehouse: 'B', instock: 60 },
      { _id: 4, stock_item: 'cookies', warehouse: 'B', instock: 40 },
      { _id: 5, stock_item: 'cookies', warehouse: 'A', instock: 80 },
    ]);
    const out = await run('orders', [
      {
        $lookup: {
          from: 'warehouses',
          let: { order_item: '$item', order_qty: '$ordered' },
          pipeline: [
            { $match: { $expr: { $and: [{ $eq: ['$stock_item', '$$order_item'] }, { $gte: ['$instock', '$$order_qty'] }] } } },
            { $project: { stock_item: 0, _id: 0 } },
          ],
          as: 'stockdata',
        },
      },
    ]);
    expect(out).to.deep.equal([
      { _id: 1, item: 'almonds', price: 12, ordered: 2, stockdata: [{ warehouse: 'A', instock: 120 }, { warehouse: 'B', instock: 60 }] },
      { _id: 2, item: 'pecans', price: 20, ordered: 1, stockdata: [{ warehouse: 'A', instock: 80 }] },
      { _id: 3, item: 'cookies', price: 10, ordered: 60, stockdata: [{ warehouse: 'A', instock: 80 }] },
    ]);
  });

  // Manual, $lookup: "Perform an Uncorrelated Subquery with $lookup".
  it('uncorrelated subquery: the same sub-pipeline result joins every input', async () => {
    const ann = { _id: 1, student: 'Ann Aardvark', sickdays: [new Date('2018-05-01'), new Date('2018-08-23')] };
    const zoe = { _id: 2, student: 'Zoe Zebra', sickdays: [new Date('2018-02-01'), new Date('2018-05-23')] };
    await put('absences', [ann, zoe]);
    await put('holidays', [
      { _id: 1, year: 2018, name: 'New Years', date: new Date('2018-01-01') },
      { _id: 2, year: 2018, name: 'Pi Day', date: new Date('2018-03-14') },
      { _id: 3, year: 2018, name: 'Ice Cream Day', date: new Date('2018-07-15') },
      { _id: 4, year: 2017, name: 'New Years', date: new Date('2017-01-01') },
      { _id: 5, year: 2017, name: 'Ice Cream Day', date: new Date('2017-07-16') },
    ]);
    const out = await run('absences', [
      {
        $lookup: {
          from: 'holidays',
          pipeline: [{ $match: { year: 2018 } }, { $project: { _id: 0, date: { name: '$name', date: '$date' } } }, { $replaceRoot: { newRoot: '$date' } }],
          as: 'holidays',
        },
      },
    ]);
    const holidays = [
      { name: 'New Years', date: new Date('2018-01-01') },
      { name: 'Pi Day', date: new Date('2018-03-14') },
      { name: 'Ice Cream Day', date: new Date('2018-07-15') },
    ];
    expect(out).to.deep.equal([{ ...ann, holidays }, { ...zoe, holidays }]);
  });

  // Manual, $lookup: "Perform a Concise Correlated Subquery with $lookup" (5.0+), and the verbose
  // let + pipeline form the page gives as equivalent. `$$orders_drink` is missing for order 1.
  it('concise correlated subquery (localField/foreignField + pipeline) equals the verbose form', async () => {
    await put('restaurants', [
      { _id: 1, name: 'American Steak House', food: ['filet', 'sirloin'], beverages: ['beer', 'wine'] },
      { _id: 2, name: 'Honest John Pizza', food: ['cheese pizza', 'pepperoni pizza'], beverages: ['soda'] },
    ]);
    await put('orders', [
      { _id: 1, item: 'filet', restaurant_name: 'American Steak House' },
      { _id: 2, item: 'cheese pizza', restaurant_name: 'Honest John Pizza', drink: 'lemonade' },
      { _id: 3, item: 'cheese pizza', restaurant_name: 'Honest John Pizza', drink: 'soda' },
    ]);
    const expected = [
      { _id: 1, item: 'filet', restaurant_name: 'American Steak House', matches: [] },
      { _id: 2, item: 'cheese pizza', restaurant_name: 'Honest John Pizza', drink: 'lemonade', matches: [] },
      {
        _id: 3,
        item: 'cheese pizza',
        restaurant_name: 'Honest John Pizza',
        drink: 'soda',
        matches: [{ _id: 2, name: 'Honest John Pizza', food: ['cheese pizza', 'pepperoni pizza'], beverages: ['soda'] }],
      },
    ];
    const concise = await run('orders', [
      {
        $lookup: {
          from: 'restaurants',
          localField: 'restaurant_name',
          foreignField: 'name',
          let: { orders_drink: '$drink' },
          pipeline: [{ $match: { $expr: { $in: ['$$orders_drink', '$beverages'] } } }],
          as: 'matches',
        },
      },
    ]);
    expect(concise).to.deep.equal(expected);
    const verbose = await run('orders', [
      {
        $lookup: {
          from: 'restaurants',
          let: { orders_restaurant_name: '$restaurant_name', orders_drink: '$drink' },
          pipeline: [{ $match: { $expr: { $and: [{ $eq: ['$$orders_restaurant_name', '$name'] }, { $in: ['$$orders_drink', '$beverages'] }] } } }],
          as: 'matches',
        },
      },
    ]);
    expect(verbose).to.deep.equal(expected);
  });

  // Manual, $lookup: the let + pipeline syntax ("pipeline ... cannot include $out or $merge", any
  // other stage allowed): a $lookup inside a $lookup sub-pipeline, the inner one correlated by the
  // outer one's variables. Data: the "Multiple Joins" orders/warehouses plus a suppliers collection.
  it('nested $lookup inside a $lookup pipeline sees the outer let variables', async () => {
    await put('orders', [
      { _id: 1, item: 'almonds', ordered: 2 },
      { _id: 2, item: 'pecans', ordered: 1 },
    ]);
    await put('warehouses', [
      { _id: 1, stock_item: 'almonds', warehouse: 'A', instock: 120 },
      { _id: 2, stock_item: 'pecans', warehouse: 'A', instock: 80 },
      { _id: 3, stock_item: 'almonds', warehouse: 'B', instock: 60 },
    ]);
    await put('suppliers', [
      { _id: 1, warehouse: 'A', item: 'almonds', supplier: 'Acme' },
      { _id: 2, warehouse: 'B', item: 'almonds', supplier: 'Bolt' },
      { _id: 3, warehouse: 'A', item: 'pecans', supplier: 'Crux' },
      { _id: 4, warehouse: 'A', item: 'cashews', supplier: 'Dune' },
    ]);
    const out = await run('orders', [
      {
        $lookup: {
          from: 'warehouses',
          let: { order_item: '$item' },
          pipeline: [
            { $match: { $expr: { $eq: ['$stock_item', '$$order_item'] } } },
            {
              $lookup: {
                from: 'suppliers',
                localField: 'warehouse',
                foreignField: 'warehouse',
                let: { wanted: '$$order_item' },
                pipeline: [{ $match: { $expr: { $eq: ['$item', '$$wanted'] } } }, { $project: { _id: 0, supplier: 1 } }],
                as: 'suppliers',
              },
            },
            { $project: { _id: 0, warehouse: 1, suppliers: 1 } },
          ],
          as: 'stock',
        },
      },
    ]);
    expect(out).to.deep.equal([
      { _id: 1, item: 'almonds', ordered: 2, stock: [{ warehouse: 'A', suppliers: [{ supplier: 'Acme' }] }, { warehouse: 'B', suppliers: [{ supplier: 'Bolt' }] }] },
      { _id: 2, item: 'pecans', ordered: 1, stock: [{ warehouse: 'A', suppliers: [{ supplier: 'Crux' }] }] },
    ]);
  });

  // Manual, $lookup: "as ... If the specified name already exists in the input document, the existing
  // field is overwritten"; localField missing is matched as null (equality syntax field table).
  it('the as field overwrites an existing field; missing, null and array-with-null locals', async () => {
    await put('local', [
      { _id: 1, joined: 'old' },
      { _id: 2, k: null },
      { _id: 3, k: [2, null] },
    ]);
    await put('foreign', [{ _id: 10 }, { _id: 11, k: null }, { _id: 12, k: 2 }, { _id: 13, k: [null, 5] }, { _id: 14, k: 3 }]);
    const out = await run('local', [{ $lookup: { from: 'foreign', localField: 'k', foreignField: 'k', as: 'joined' } }, { $project: { ids: '$joined._id' } }]);
    expect(out).to.deep.equal([
      { _id: 1, ids: [10, 11, 13] },
      { _id: 2, ids: [10, 11, 13] },
      { _id: 3, ids: [10, 11, 12, 13] },
    ]);
  });
});
