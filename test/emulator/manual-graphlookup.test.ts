import { expect } from 'chai';
import type { Db, Document } from 'mongodb';
import { useMongo } from './helpers';

/**
 * `$graphLookup` as the MongoDB manual documents it (page "$graphLookup (aggregation)"). The manual
 * says the documents of the `as` array come in no particular order, so they are compared sorted by
 * `_id`; the outer documents keep the input order.
 */
describe('emulator conformance (manual): $graphLookup', () => {
  const mongo = useMongo();
  let db: Db;
  const put = (name: string, docs: Document[]): Promise<unknown> => db.collection(name).insertMany(docs);
  const byId = (docs: Document[]): Document[] => [...docs].sort((a, b) => (a._id as number) - (b._id as number));
  const sortAs = (docs: Document[], as: string): Document[] => docs.map((d) => ({ ...d, [as]: byId(d[as] as Document[]) }));

  const employees = [
    { _id: 1, name: 'Dev' },
    { _id: 2, name: 'Eliot', reportsTo: 'Dev' },
    { _id: 3, name: 'Ron', reportsTo: 'Eliot' },
    { _id: 4, name: 'Andrew', reportsTo: 'Eliot' },
    { _id: 5, name: 'Asya', reportsTo: 'Ron' },
    { _id: 6, name: 'Dan', reportsTo: 'Andrew' },
  ];
  const airports = [
    { _id: 0, airport: 'JFK', connects: ['BOS', 'ORD'] },
    { _id: 1, airport: 'BOS', connects: ['JFK', 'PWM'] },
    { _id: 2, airport: 'ORD', connects: ['JFK'] },
    { _id: 3, airport: 'PWM', connects: ['BOS', 'LHR'] },
    { _id: 4, airport: 'LHR', connects: ['PWM'] },
  ];
  const travelers = [
    { _id: 1, name: 'Dev', nearestAirport: 'JFK' },
    { _id: 2, name: 'Eliot', nearestAirport: 'JFK' },
    { _id: 3, name: 'Jeff', nearestAirport: 'BOS' },
  ];

  before(async () => {
    db = mongo.db('manual_graph');
    await put('employees', employees);
    await put('airports', airports);
    await put('travelers', travelers);
    await put('people', [
      { _id: 1, name: 'Tanya Jordan', friends: ['Shirley Soto', 'Terry Hawkins', 'Carole Hale'], hobbies: ['tennis', 'unicycling', 'golf'] },
      { _id: 2, name: 'Carole Hale', friends: ['Joseph Dennis', 'Tanya Jordan', 'Terry Hawkins'], hobbies: ['archery', 'golf', 'woodworking'] },
      { _id: 3, name: 'Terry Hawkins', friends: ['Tanya Jordan', 'Carole Hale', 'Angelo Ward'], hobbies: ['knitting', 'frisbee'] },
      { _id: 4, name: 'Joseph Dennis', friends: ['Angelo Ward', 'Carole Hale'], hobbies: ['tennis', 'golf', 'topiary'] },
      { _id: 5, name: 'Angelo Ward', friends: ['Terry Hawkins', 'Shirley Soto', 'Joseph Dennis'], hobbies: ['travel', 'ceramics', 'golf'] },
      { _id: 6, name: 'Shirley Soto', friends: ['Angelo Ward', 'Tanya Jordan', 'Carole Hale'], hobbies: ['frisbee', 'set theory'] },
    ]);
  });

  // Manual, $graphLookup: "Within a Single Collection".
  it('within a single collection: the reporting hierarchy of each employee', async () => {
    const out = await db
      .collection('employees')
      .aggregate([{ $graphLookup: { from: 'employees', startWith: '$reportsTo', connectFromField: 'reportsTo', connectToField: 'name', as: 'reportingHierarchy' } }])
      .toArray();
    const [dev, eliot, ron, andrew] = employees;
    expect(sortAs(out, 'reportingHierarchy')).to.deep.equal([
      { ...employees[0], reportingHierarchy: [] },
      { ...employees[1], reportingHierarchy: [dev] },
      { ...employees[2], reportingHierarchy: [dev, eliot] },
      { ...employees[3], reportingHierarchy: [dev, eliot] },
      { ...employees[4], reportingHierarchy: [dev, eliot, ron] },
      { ...employees[5], reportingHierarchy: [dev, eliot, andrew] },
    ]);
  });

  // Manual, $graphLookup: "Across Multiple Collections" (maxDepth 2, depthField; the airports graph has
  // cycles JFK<->BOS and array connectFromField values: each airport appears once, at its least depth).
  it('across collections with maxDepth, depthField, cycles and array connectFromField', async () => {
    const out = await db
      .collection('travelers')
      .aggregate([
        { $graphLookup: { from: 'airports', startWith: '$nearestAirport', connectFromField: 'connects', connectToField: 'airport', maxDepth: 2, depthField: 'numConnections', as: 'destinations' } },
      ])
      .toArray();
    const at = (id: number, depth: number): Document => ({ ...airports[id], numConnections: depth });
    const fromJfk = [at(0, 0), at(1, 1), at(2, 1), at(3, 2)];
    expect(sortAs(out, 'destinations')).to.deep.equal([
      { ...travelers[0], destinations: fromJfk },
      { ...travelers[1], destinations: fromJfk },
      { ...travelers[2], destinations: [at(0, 1), at(1, 0), at(2, 2), at(3, 1), at(4, 2)] },
    ]);
  });

  // Manual, $graphLookup: "Max Depth" — maxDepth 0 is a non-recursive search.
  it('maxDepth 0 is a non-recursive lookup', async () => {
    const out = await db
      .collection('travelers')
      .aggregate([
        { $match: { name: 'Jeff' } },
        { $graphLookup: { from: 'airports', startWith: '$nearestAirport', connectFromField: 'connects', connectToField: 'airport', maxDepth: 0, as: 'destinations' } },
      ])
      .toArray();
    expect(out).to.deep.equal([{ ...travelers[2], destinations: [airports[1]] }]);
  });

  // Manual, $graphLookup: "With a Query Filter" (restrictSearchWithMatch; the start value is an array).
  it('restrictSearchWithMatch limits the traversal to matching documents', async () => {
    const out = await db
      .collection('people')
      .aggregate([
        { $match: { name: 'Tanya Jordan' } },
        { $graphLookup: { from: 'people', startWith: '$friends', connectFromField: 'friends', connectToField: 'name', as: 'golfers', restrictSearchWithMatch: { hobbies: 'golf' } } },
        { $project: { name: 1, friends: 1, 'connections who play golf': '$golfers.name' } },
      ])
      .toArray();
    expect(out).to.have.length(1);
    const { 'connections who play golf': golfers, ...rest } = out[0];
    expect(rest).to.deep.equal({ _id: 1, name: 'Tanya Jordan', friends: ['Shirley Soto', 'Terry Hawkins', 'Carole Hale'] });
    expect([...(golfers as string[])].sort()).to.deep.equal(['Angelo Ward', 'Carole Hale', 'Joseph Dennis', 'Tanya Jordan']);
  });
  // Manual, $graphLookup: "Within a Single Collection" shows Dev (no reportsTo) with an empty
  // hierarchy; that holds even when some documents lack the connectToField: a missing start value
  // searches nothing, and a document without the connectToField is never reached (the server adds
  // `$exists: true` to its `$in` query), while a null value matches only a stored null.
  it('missing start values reach nothing; documents without the connectToField are never reached', async () => {
    await put('staff', [
      { _id: 1, name: 'Dev' },
      { _id: 2, name: 'Eliot', reportsTo: 'Dev' },
      { _id: 3, reportsTo: 'Dev' },
      { _id: 4, name: null, reportsTo: 'Eliot' },
      { _id: 5, name: 'Nobody', reportsTo: null },
    ]);
    const out = await db
      .collection('staff')
      .aggregate([
        { $graphLookup: { from: 'staff', startWith: '$reportsTo', connectFromField: 'reportsTo', connectToField: 'name', as: 'chain' } },
        { $project: { chain: '$chain._id' } },
      ])
      .toArray();
    const sorted = out.map((d) => ({ _id: d._id, chain: [...(d.chain as number[])].sort() }));
    expect(sorted).to.deep.equal([
      { _id: 1, chain: [] },
      { _id: 2, chain: [1] },
      { _id: 3, chain: [1] },
      { _id: 4, chain: [1, 2] },
      { _id: 5, chain: [1, 2, 4] },
    ]);
  });

  // Manual, $graphLookup: maxDepth is a "non-negative integral number"; unknown fields are refused.
  it('refuses invalid specifications with the server codes', async () => {
    const fail = async (spec: Document): Promise<number | undefined> => {
      try {
        await db.collection('employees').aggregate([{ $graphLookup: spec }]).toArray();
      } catch (e) {
        return (e as { code?: number }).code;
      }
      throw new Error('expected an error');
    };
    const base = { from: 'employees', startWith: '$reportsTo', connectFromField: 'reportsTo', connectToField: 'name', as: 'h' };
    expect(await fail({ ...base, maxDepth: -1 })).to.equal(40101);
    expect(await fail({ ...base, maxDepth: 1.5 })).to.equal(40102);
    expect(await fail({ ...base, depth: 1 })).to.equal(40104);
    const { startWith: _s, ...noStart } = base;
    expect(await fail(noStart)).to.equal(40105);
  });
});
