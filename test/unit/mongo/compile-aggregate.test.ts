import { expect } from 'chai';
import type { Document } from 'mongodb';
import { compileAggregate } from '../../../drivers/mongo/compile-aggregate';
import type { AggregateQuery } from '../../../lib/query/aggregate-ast';
import { catalog, collections } from './fixture';

const query = (over: Partial<AggregateQuery> = {}): AggregateQuery => ({
  model: 'product',
  filter: null,
  groups: [],
  measures: [{ fn: 'count', field: null }],
  order: [],
  page: { kind: 'offset', page: 1, size: 10 },
  ...over,
});

const facet = (data: Document[]): Document => ({ $facet: { data, total: [{ $count: 'total' }] } });
const orNull = (v: string) => ({ $ifNull: [v, null] });
const present = (v: string) => ({ $cond: [{ $eq: [orNull(v), null] }, 0, 1] });

describe('mongo compileAggregate: one aggregation', () => {
  const cases: { title: string; query: AggregateQuery; pipeline: Document[] }[] = [
    {
      title: 'no groups: $group on null, the page and the number of groups in one $facet',
      query: query(),
      pipeline: [{ $group: { _id: null, m0: { $sum: 1 } } }, facet([{ $skip: 0 }, { $limit: 10 }])],
    },
    {
      title: 'an own field (missing and null alike), sorted on the group key, paged',
      query: query({ groups: [{ name: 'status', relations: [], field: 'status' }], order: [{ kind: 'group', index: 0, direction: 'desc' }], page: { kind: 'offset', page: 2, size: 5 } }),
      pipeline: [{ $group: { _id: { g0: orNull('$status') }, m0: { $sum: 1 } } }, facet([{ $sort: { '_id.g0': -1 } }, { $skip: 5 }, { $limit: 5 }])],
    },
    {
      title: 'every function: non-null counts, distinct sets sized without null, sums of nothing null, the id as _id',
      query: query({
        filter: { kind: 'condition', field: 'price', operator: '>', value: 1 },
        groups: [{ name: 'id', relations: [], field: 'id' }],
        measures: [
          { fn: 'count', field: 'description' },
          { fn: 'count_distinct', field: 'category_id' },
          { fn: 'sum', field: 'stock' },
          { fn: 'avg', field: 'price' },
          { fn: 'min', field: 'name' },
          { fn: 'max', field: 'created_at' },
        ],
        order: [{ kind: 'measure', index: 2, direction: 'desc' }, { kind: 'group', index: 0, direction: 'asc' }],
      }),
      pipeline: [
        { $match: { price: { $gt: 1 } } },
        {
          $group: {
            _id: { g0: orNull('$_id') },
            m0: { $sum: present('$description') },
            m1: { $addToSet: orNull('$category_id') },
            m2: { $sum: '$stock' },
            n2: { $sum: present('$stock') },
            m3: { $avg: '$price' },
            m4: { $min: '$name' },
            m5: { $max: '$created_at' },
          },
        },
        { $addFields: { m1: { $size: { $setDifference: ['$m1', [null]] } }, m2: { $cond: [{ $gt: ['$n2', 0] }, '$m2', null] } } },
        facet([{ $sort: { m2: -1, '_id.g0': 1 } }, { $skip: 0 }, { $limit: 10 }]),
      ],
    },
    {
      title: 'a to-one path: the sort key $lookup (scope inside) before $group',
      query: query({
        groups: [{ name: 'category.name', relations: ['category'], field: 'name', scopes: [{ kind: 'condition', field: 'name', operator: '!=', value: 'Hidden' }] }],
        order: [{ kind: 'group', index: 0, direction: 'asc' }],
      }),
      pipeline: [
        {
          $lookup: {
            from: 'categories',
            let: { k: '$category_id' },
            pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$k'] } } }, { $match: { name: { $ne: 'Hidden' } } }, { $limit: 1 }, { $project: { _id: 0, v: '$name' } }],
            as: '__s0',
          },
        },
        { $addFields: { __s0: { $ifNull: [{ $arrayElemAt: ['$__s0.v', 0] }, null] } } },
        { $group: { _id: { g0: orNull('$__s0') }, m0: { $sum: 1 } } },
        facet([{ $sort: { '_id.g0': 1 } }, { $skip: 0 }, { $limit: 10 }]),
      ],
    },
  ];
  for (const t of cases) {
    it(t.title, () => {
      const plan = compileAggregate(t.query, catalog, collections);
      expect(plan.collection).to.equal('products');
      expect(plan.pipeline).to.deep.equal(t.pipeline);
      expect(plan.groups).to.equal(t.query.groups.length);
      expect(plan.measures).to.equal(t.query.measures.length);
    });
  }

  it('uses no operator newer than MongoDB 5.0', () => {
    const plan = compileAggregate(query({ groups: [{ name: 'category.name', relations: ['category'], field: 'name' }], measures: [{ fn: 'count_distinct', field: 'name' }, { fn: 'sum', field: 'price' }] }), catalog, collections);
    const text = JSON.stringify(plan.pipeline);
    for (const newer of ['$setWindowFields', '$densify', '$fill', '$top', '$bottom', '$firstN', '$lastN', '$maxN', '$minN', '$median', '$percentile', '$getField', '$sortArray']) expect(text).to.not.include(`"${newer}"`);
  });
});
