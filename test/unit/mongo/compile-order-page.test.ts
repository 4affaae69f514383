import { expect } from 'chai';
import type { Document } from 'mongodb';
import { compileList } from '../../../drivers/mongo';
import type { OrderKey, Page, Scalar } from '../../../lib/query/ast';
import { catalog, collections, listQuery, OID, oid } from './fixture';

const key = (field: string, direction: 'asc' | 'desc' = 'asc', relations: string[] = []): OrderKey => ({ relations, field, direction });
const ID = key('id');
const PROJECT = { $project: { _id: 1, name: 1 } };

function compile(order: OrderKey[], page: Page | null = null, limit: number | null = null) {
  return compileList(listQuery({ order, page, limit, select: ['name'] }), catalog, collections);
}

describe('mongo compileList: order and pages', () => {
  it('plain keys: one $sort, _id last', () => {
    expect(compile([key('price', 'desc'), key('name'), ID]).pipeline).to.deep.equal([{ $sort: { price: -1, name: 1, _id: 1 } }, PROJECT]);
  });

  it('adds the _id tie-breaker when the order lacks it', () => {
    expect(compile([key('name')]).pipeline[0]).to.deep.equal({ $sort: { name: 1, _id: 1 } });
  });

  it('a to-one relation key: $lookup + $addFields of a helper field, sorted on', () => {
    const { pipeline } = compile([key('name', 'desc', ['category']), ID]);
    expect(pipeline).to.deep.equal([
      {
        $lookup: {
          from: 'categories',
          let: { k: '$category_id' },
          pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$k'] } } }, { $limit: 1 }, { $project: { _id: 0, v: '$name' } }],
          as: '__s0',
        },
      },
      { $addFields: { __s0: { $ifNull: [{ $arrayElemAt: ['$__s0.v', 0] }, null] } } },
      { $sort: { __s0: -1, _id: 1 } },
      PROJECT,
    ]);
  });

  it('a chain of to-one relations (review -> product -> category)', () => {
    const { pipeline } = compileList(listQuery({ model: 'review', select: ['rating'], order: [key('name', 'asc', ['product', 'category']), ID] }), catalog, collections);
    expect(pipeline[0]).to.deep.equal({
      $lookup: {
        from: 'products',
        let: { k: '$product_id' },
        pipeline: [
          { $match: { $expr: { $eq: ['$_id', '$$k'] } } },
          { $limit: 1 },
          {
            $lookup: {
              from: 'categories',
              let: { k: '$category_id' },
              pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$k'] } } }, { $limit: 1 }, { $project: { _id: 0, v: '$name' } }],
              as: 'n',
            },
          },
          { $project: { _id: 0, v: { $arrayElemAt: ['$n.v', 0] } } },
        ],
        as: '__s0',
      },
    });
    expect(pipeline[2]).to.deep.equal({ $sort: { __s0: 1, _id: 1 } });
  });

  it("a sort key's relation scope filters inside its $lookup: a record outside it joins as absent (null)", () => {
    const scoped: OrderKey = { ...key('name', 'asc', ['category']), scopes: [{ kind: 'condition', field: 'name', operator: '=', value: 'Mine' }] };
    const { pipeline } = compile([scoped, ID]);
    expect((pipeline[0].$lookup as Document).pipeline).to.deep.equal([
      { $match: { $expr: { $eq: ['$_id', '$$k'] } } },
      { $match: { name: { $eq: 'Mine' } } },
      { $limit: 1 },
      { $project: { _id: 0, v: '$name' } },
    ]);
  });

  it('a to-many relation cannot be a sort key', () => {
    expect(() => compile([key('rating', 'asc', ['reviews']), ID])).to.throw(/not a to-one/);
  });

  it('offset page: $facet with the window, eager loads and projection in data, and a count', () => {
    const { pipeline } = compile([ID], { kind: 'offset', page: 3, size: 10 });
    expect(pipeline).to.deep.equal([
      { $sort: { _id: 1 } },
      { $facet: { data: [{ $skip: 20 }, { $limit: 10 }, PROJECT], total: [{ $count: 'total' }] } },
    ]);
  });

  it('unpaginated with a limit (/first)', () => {
    expect(compile([ID], null, 1).pipeline).to.deep.equal([{ $sort: { _id: 1 } }, { $limit: 1 }, PROJECT]);
  });

  it('first cursor page: size + 1, order keys kept for nextAfter', () => {
    const { pipeline, keys } = compile([key('price', 'desc'), ID], { kind: 'cursor', size: 5, after: null });
    expect(pipeline).to.deep.equal([{ $sort: { price: -1, _id: 1 } }, { $limit: 6 }, { $project: { _id: 1, name: 1, price: 1 } }]);
    expect(keys.map((k) => k.path)).to.deep.equal(['price', '_id']);
  });

  interface KeysetCase {
    title: string;
    order: OrderKey[];
    after: Scalar[];
    match: Document;
  }
  const keysets: KeysetCase[] = [
    { title: 'id only', order: [ID], after: [OID], match: { $or: [{ _id: { $gt: oid() } }] } },
    {
      title: 'asc + id',
      order: [key('price'), ID],
      after: [10, OID],
      match: { $or: [{ price: { $gt: 10 } }, { $and: [{ price: { $eq: 10 } }, { _id: { $gt: oid() } }] }] },
    },
    {
      title: 'desc: smaller values, then nulls (last)',
      order: [key('price', 'desc'), ID],
      after: [10, OID],
      match: {
        $or: [
          { $or: [{ price: { $lt: 10 } }, { price: { $eq: null } }] },
          { $and: [{ price: { $eq: 10 } }, { _id: { $gt: oid() } }] },
        ],
      },
    },
    {
      title: 'asc after null: every non-null, then ties',
      order: [key('description'), ID],
      after: [null, OID],
      match: { $or: [{ description: { $ne: null } }, { $and: [{ description: { $eq: null } }, { _id: { $gt: oid() } }] }] },
    },
    {
      title: 'desc after null: only ties remain',
      order: [key('description', 'desc'), ID],
      after: [null, OID],
      match: { $or: [{ $and: [{ description: { $eq: null } }, { _id: { $gt: oid() } }] }] },
    },
    {
      title: 'mixed directions, three keys, dates revived',
      order: [key('status'), key('created_at', 'desc'), ID],
      after: ['active', '2026-01-02T00:00:00.000Z', OID],
      match: {
        $or: [
          { status: { $gt: 'active' } },
          { $and: [{ status: { $eq: 'active' } }, { $or: [{ created_at: { $lt: new Date('2026-01-02T00:00:00.000Z') } }, { created_at: { $eq: null } }] }] },
          { $and: [{ status: { $eq: 'active' } }, { created_at: { $eq: new Date('2026-01-02T00:00:00.000Z') } }, { _id: { $gt: oid() } }] },
        ],
      },
    },
  ];
  for (const t of keysets) {
    it(`cursor keyset: ${t.title}`, () => {
      const { pipeline } = compile(t.order, { kind: 'cursor', size: 2, after: t.after });
      expect(pipeline[0]).to.deep.equal({ $match: t.match });
      expect(pipeline[2]).to.deep.equal({ $limit: 3 });
    });
  }

  it('cursor keyset on a relation key runs after its $addFields', () => {
    const { pipeline } = compile([key('name', 'asc', ['category']), ID], { kind: 'cursor', size: 2, after: ['Phones', OID] });
    expect(Object.keys(pipeline[0])).to.deep.equal(['$lookup']);
    expect(Object.keys(pipeline[1])).to.deep.equal(['$addFields']);
    expect(pipeline[2]).to.deep.equal({
      $match: { $or: [{ __s0: { $gt: 'Phones' } }, { $and: [{ __s0: { $eq: 'Phones' } }, { _id: { $gt: oid() } }] }] },
    });
    expect(pipeline[pipeline.length - 1]).to.deep.equal({ $project: { _id: 1, name: 1, __s0: 1 } });
  });

  it('filter, then sort keys, keyset, sort, window', () => {
    const q = listQuery({
      filter: { kind: 'condition', field: 'price', operator: '>', value: 1 },
      order: [ID],
      select: ['name'],
      page: { kind: 'cursor', size: 1, after: [OID] },
    });
    const ops = compileList(q, catalog, collections).pipeline.map((s) => Object.keys(s)[0]);
    expect(ops).to.deep.equal(['$match', '$match', '$sort', '$limit', '$project']);
  });
});
