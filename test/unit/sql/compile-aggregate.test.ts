import { expect } from 'chai';
import { compileAggregate, SUM_SCALE } from '../../../drivers/sql/compile-aggregate';
import type { AggregateQuery } from '../../../lib/query/aggregate-ast';
import { catalog, tables } from './fixture';

const query = (over: Partial<AggregateQuery> = {}): AggregateQuery => ({
  model: 'product',
  filter: null,
  groups: [],
  measures: [{ fn: 'count', field: null }],
  order: [],
  page: { kind: 'offset', page: 1, size: 10 },
  ...over,
});

/** 2^-64 exactly: sums and averages of non-integer fields are added scaled (decision 74: an overflow is seen, not a 22003). */
const K = '0.0000000000000000000542101086242752217003726400434970855712890625';

const TAIL = (orderBy: string, limit = '$1', offset = '$2') =>
  `"p" AS (SELECT "g".*, row_number() OVER (${orderBy ? `ORDER BY ${orderBy}` : ''}) AS "__n" FROM "g"${orderBy ? ` ORDER BY ${orderBy}` : ''} LIMIT ${limit} OFFSET ${offset}) ` +
  'SELECT "p".*, "c"."__total" FROM (SELECT count(*) AS "__total" FROM "g") AS "c" LEFT JOIN "p" ON TRUE ORDER BY "p"."__n"';

describe('sql compileAggregate: one statement', () => {
  const cases: { title: string; query: AggregateQuery; sql: string; bind: unknown[] }[] = [
    {
      title: 'no groups: one aggregate row over the filter, the page and the group count beside it',
      query: query(),
      sql: `WITH "g" AS (SELECT count(*) AS "m0" FROM "products" AS "t0"), ${TAIL('')}`,
      bind: [10, 0],
    },
    {
      title: 'an own field: GROUP BY the column, default order ascending with nulls first, strings bytewise',
      query: query({ groups: [{ name: 'status', relations: [], field: 'status' }], order: [{ kind: 'group', index: 0, direction: 'asc' }], page: { kind: 'offset', page: 3, size: 5 } }),
      sql: `WITH "g" AS (SELECT "t0"."status" AS "g0", count(*) AS "m0" FROM "products" AS "t0" GROUP BY "t0"."status"), ${TAIL('"g"."g0" COLLATE "C" ASC NULLS FIRST')}`,
      bind: [5, 10],
    },
    {
      title: 'every function: count of a field, DISTINCT, sum, avg as float8 (scaled, its sum beside it), min/max of strings bytewise',
      query: query({
        measures: [
          { fn: 'count', field: 'description' },
          { fn: 'count_distinct', field: 'category_id' },
          { fn: 'sum', field: 'stock' },
          { fn: 'avg', field: 'stock' },
          { fn: 'avg', field: 'price' },
          { fn: 'min', field: 'name' },
          { fn: 'max', field: 'created_at' },
        ],
        order: [{ kind: 'measure', index: 5, direction: 'desc' }],
      }),
      sql:
        'WITH "g" AS (SELECT count("t0"."description") AS "m0", count(DISTINCT "t0"."category_id") AS "m1", sum("t0"."stock") AS "m2", (avg("t0"."stock"))::float8 AS "m3", ' +
        `sum(("t0"."price" * ${K})::float8) / NULLIF(count("t0"."price"), 0) AS "m4", min("t0"."name" COLLATE "C") AS "m5", max("t0"."created_at") AS "m6", ` +
        `sum(("t0"."price" * ${K})::float8) AS "s4" FROM "products" AS "t0"), ` +
        TAIL('"g"."m5" COLLATE "C" DESC NULLS LAST'),
      bind: [10, 0],
    },
    {
      title: 'a to-one path: the sort key LEFT JOIN (scope in its ON clause), the filter bound before the page',
      query: query({
        filter: { kind: 'condition', field: 'price', operator: '>=', value: 10 },
        groups: [{ name: 'category.name', relations: ['category'], field: 'name', scopes: [{ kind: 'condition', field: 'name', operator: '!=', value: 'Hidden' }] }],
        measures: [{ fn: 'sum', field: 'price' }],
        order: [{ kind: 'measure', index: 0, direction: 'desc' }, { kind: 'group', index: 0, direction: 'asc' }],
      }),
      sql:
        `WITH "g" AS (SELECT "o1"."name" AS "g0", sum("t0"."price" * ${K}) AS "m0" FROM "products" AS "t0" LEFT JOIN "categories" AS "o1" ON "o1"."id" = "t0"."category_id" AND "o1"."name" IS DISTINCT FROM $1 ` +
        'WHERE "t0"."price" >= $2 GROUP BY "o1"."name"), ' +
        TAIL('"g"."m0" DESC NULLS LAST, "g"."g0" COLLATE "C" ASC NULLS FIRST', '$3', '$4'),
      bind: ['Hidden', 10, 10, 0],
    },
  ];
  for (const t of cases) {
    it(t.title, () => {
      const { statement } = compileAggregate(t.query, catalog, tables);
      expect(statement.sql).to.equal(t.sql);
      expect(statement.bind).to.deep.equal(t.bind);
    });
  }

  it('types each group and measure by its field, for the answer', () => {
    const plan = compileAggregate(query({ groups: [{ name: 'category.created_at', relations: ['category'], field: 'created_at' }], measures: [{ fn: 'count', field: null }, { fn: 'max', field: 'price' }] }), catalog, tables);
    expect(plan.groupFields.map((f) => f.type)).to.deep.equal(['date']);
    expect(plan.measures.map((m) => [m.fn, m.field?.type ?? null])).to.deep.equal([['count', null], ['max', 'number']]);
  });

  it('scales exactly: the literal is 2^-64, SUM_SCALE its inverse; integer sums and every other function are not scaled', () => {
    expect(Number(K)).to.equal(2 ** -64);
    expect(SUM_SCALE * Number(K)).to.equal(1);
    const plan = compileAggregate(query({ measures: [{ fn: 'sum', field: 'price' }, { fn: 'avg', field: 'price' }, { fn: 'sum', field: 'stock' }, { fn: 'avg', field: 'stock' }, { fn: 'max', field: 'price' }] }), catalog, tables);
    expect(plan.measures.map((m) => m.scaled)).to.deep.equal([true, true, false, false, false]);
  });

  it('prepares the statement only when no value can change how the rows are found', () => {
    const indexed: typeof tables = { ...tables, product: { ...tables.product, indexed: ['id', 'category_id'] } };
    const prepared = (filter: AggregateQuery['filter']) => compileAggregate(query({ filter }), catalog, indexed).statement.prepare;
    // a range on the root's unindexed column: the table is scanned whole whatever the value
    expect(prepared({ kind: 'condition', field: 'price', operator: '>=', value: 10 })).to.equal(true);
    expect(prepared({ kind: 'and', filters: [{ kind: 'condition', field: 'name', operator: 'like', value: 'A%' }, { kind: 'condition', field: 'category_id', operator: '=', value: 3 }] })).to.equal(true);
    expect(prepared(null)).to.equal(true);
    expect(prepared({ kind: 'related', relation: 'category', filter: { kind: 'condition', field: 'name', operator: 'like', value: 'G%' } })).to.equal(true);
    // a range on an indexed column: the value picks between an index scan and a scan
    expect(prepared({ kind: 'condition', field: 'category_id', operator: '>', value: 3 })).to.equal(false);
  });

  it('never puts a client value in the SQL text', () => {
    const evil = `x'); DROP TABLE products; --`;
    const { statement } = compileAggregate(query({ filter: { kind: 'condition', field: 'name', operator: '=', value: evil } }), catalog, tables);
    expect(statement.sql).to.not.include('DROP');
    expect(statement.bind).to.include(evil);
  });
});
