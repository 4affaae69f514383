import { expect } from 'chai';
import { compileList } from '../../../drivers/sql';
import type { Filter, OrderKey, Page, Scalar } from '../../../lib/query/ast';
import { catalog, listQuery, tables } from './fixture';
import type { ModelMap } from '../../../drivers/sql';

const key = (field: string, direction: 'asc' | 'desc' = 'asc', relations: string[] = []): OrderKey => ({ relations, field, direction });
const ID = key('id');

function rows(order: OrderKey[], page: Page | null = null, limit: number | null = null) {
  return compileList(listQuery({ select: ['name'], order, page, limit }), catalog, tables);
}

describe('sql compiler: ordering', () => {
  const cases: { title: string; order: OrderKey[]; orderBy: string; joins?: string }[] = [
    { title: 'asc puts NULLs first, like MongoDB', order: [key('price'), ID], orderBy: '"t0"."price" ASC NULLS FIRST, "t0"."id" ASC' },
    { title: 'desc puts NULLs last', order: [key('price', 'desc'), ID], orderBy: '"t0"."price" DESC NULLS LAST, "t0"."id" ASC' },
    { title: 'strings sort bytewise', order: [key('name'), ID], orderBy: '"t0"."name" COLLATE "C" ASC NULLS FIRST, "t0"."id" ASC' },
    {
      title: 'a to-one relation field joins the belongsTo chain',
      order: [key('name', 'desc', ['category']), ID],
      joins: 'LEFT JOIN "categories" AS "o1" ON "o1"."id" = "t0"."category_id"',
      orderBy: '"o1"."name" COLLATE "C" DESC NULLS LAST, "t0"."id" ASC',
    },
    {
      title: 'two keys on one chain share the joins; nested chains join step by step',
      order: [key('name', 'asc', ['category', 'parent']), key('id', 'desc', ['category']), ID],
      joins: 'LEFT JOIN "categories" AS "o1" ON "o1"."id" = "t0"."category_id" LEFT JOIN "categories" AS "o2" ON "o2"."id" = "o1"."parent_id"',
      orderBy: '"o2"."name" COLLATE "C" ASC NULLS FIRST, "o1"."id" DESC NULLS LAST, "t0"."id" ASC',
    },
  ];
  for (const t of cases) {
    it(t.title, () => {
      const { sql } = rows(t.order).rows;
      expect(sql).to.include(` ORDER BY ${t.orderBy}`);
      if (t.joins) expect(sql).to.include(`FROM "products" AS "t0" ${t.joins} ORDER BY`);
      else expect(sql).not.to.include('JOIN');
    });
  }

  it("a sort key's relation scope joins into its ON clause: a record outside it joins as absent (sorts as null)", () => {
    const scoped: OrderKey = { ...key('name', 'asc', ['category', 'parent']), scopes: [null, { kind: 'condition', field: 'name', operator: '=', value: 'Mine' }] };
    const { rows: s } = rows([scoped, ID]);
    expect(s.sql).to.include('LEFT JOIN "categories" AS "o1" ON "o1"."id" = "t0"."category_id" LEFT JOIN "categories" AS "o2" ON "o2"."id" = "o1"."parent_id" AND "o2"."name" = $1');
    expect(s.bind).to.deep.equal(['Mine']);
  });

  it('selects every order key under a helper alias (for the next cursor)', () => {
    const { rows: s, keys } = rows([key('name', 'asc', ['category']), ID]);
    expect(s.sql).to.match(/^SELECT "t0"."id" AS "id", "t0"."name" AS "name", "o1"."name" AS "__k0", "t0"."id" AS "__k1" FROM/);
    expect(keys.map((k) => [k.alias, k.field.name])).to.deep.equal([['__k0', 'name'], ['__k1', 'id']]);
  });

  it('rejects a to-many relation as a sort key', () => {
    expect(() => rows([key('rating', 'asc', ['reviews']), ID])).to.throw(/to-one/);
  });
});

describe('sql compiler: pagination', () => {
  it('offset: LIMIT/OFFSET bound, plus a count on the root table with the filter only', () => {
    const q = compileList(listQuery({
      select: ['name'],
      filter: { kind: 'related', relation: 'tags', filter: { kind: 'condition', field: 'name', operator: '=', value: 'red' } },
      order: [key('name', 'asc', ['category']), ID],
      page: { kind: 'offset', page: 3, size: 25 },
    }), catalog, tables);
    expect(q.rows.sql).to.match(/ LIMIT \$2 OFFSET \$3$/);
    expect(q.rows.bind).to.deep.equal(['red', 25, 50]);
    expect(q.count).to.deep.equal({
      sql: 'SELECT count(*) AS "total" FROM "products" AS "t0" WHERE EXISTS (SELECT 1 FROM "product_tag" AS "p2" JOIN "tags" AS "r1" ON "r1"."id" = "p2"."tag_id" WHERE "p2"."product_id" = "t0"."id" AND "r1"."name" = $1)',
      bind: ['red'],
      prepare: true,
    });
  });

  it("offset: a belongs-to filter on an indexed foreign key counts through the related keys (ANY of an array), the page keeps EXISTS", () => {
    const related: Filter = { kind: 'related', relation: 'category', filter: { kind: 'condition', field: 'name', operator: 'like', value: 'G%' } };
    const filter: Filter = { kind: 'and', filters: [{ kind: 'condition', field: 'price', operator: '>=', value: 10 }, related] };
    const page = { kind: 'offset', page: 1, size: 10 } as const;
    const indexed: ModelMap = { ...tables, product: { ...tables.product, indexed: ['id', 'category_id'] } };
    const q = compileList(listQuery({ filter, page }), catalog, indexed);
    expect(q.count?.sql).to.equal('SELECT count(*) AS "total" FROM "products" AS "t0" WHERE ("t0"."price" >= $1 AND "t0"."category_id" = ANY(ARRAY(SELECT "r1"."id" FROM "categories" AS "r1" WHERE "r1"."name" LIKE $2 ESCAPE \'\')))');
    expect(q.count?.bind).to.deep.equal([10, 'G%']);
    expect(q.rows.sql).to.include('EXISTS (SELECT 1 FROM "categories"');
    // without an index on the foreign key, under OR, or without conditions on the related record: EXISTS
    const plain = compileList(listQuery({ filter, page }), catalog, tables);
    expect(plain.count?.sql).to.include('EXISTS (SELECT 1 FROM "categories"');
    const either = compileList(listQuery({ filter: { kind: 'or', filters: filter.filters }, page }), catalog, indexed);
    expect(either.count?.sql).to.include('EXISTS (SELECT 1 FROM "categories"');
    const bare = compileList(listQuery({ filter: { kind: 'related', relation: 'category', filter: null }, page }), catalog, indexed);
    expect(bare.count?.sql).to.include('EXISTS (SELECT 1 FROM "categories"');
  });

  it('offset without a filter counts the whole table', () => {
    expect(rows([ID], { kind: 'offset', page: 1, size: 15 }).count).to.deep.equal({ sql: 'SELECT count(*) AS "total" FROM "products" AS "t0"', bind: [], prepare: true });
  });

  it('prepared (named) where a generic plan is safe: equality; ranges and patterns on unindexed columns on a shallow page; never cursors', () => {
    const cond = (field: string, operator: string, value: unknown) => ({ kind: 'condition', field, operator, value }) as Filter;
    const page = { kind: 'offset', page: 1, size: 10 } as const;
    const map = { ...tables, product: { ...tables.product, indexed: ['id', 'category_id'] } };
    const q = (filter: Filter | null, p: Page | null = page) => compileList(listQuery({ filter, page: p }), catalog, map);
    expect(q(cond('id', '=', 3)).rows.prepare).to.equal(true);
    expect(q({ kind: 'and', filters: [cond('status', 'in', ['a', null]), cond('category_id', 'null', null)] }).count?.prepare).to.equal(true);
    for (const filter of [cond('price', '>=', 3), cond('name', 'like', 'G%')]) {
      expect(q(filter).rows.prepare, JSON.stringify(filter)).to.equal(true);
      expect(q(filter).count?.prepare, JSON.stringify(filter)).to.equal(true);
      // a generic plan does not see the offset: a deep page plans per run
      expect(q(filter, { kind: 'offset', page: 60, size: 10 }).rows.prepare, JSON.stringify(filter)).to.equal(false);
    }
    for (const filter of [cond('category_id', '>', 3), { kind: 'or', filters: [cond('price', '=', 1), cond('id', '<', 2)] } as Filter]) {
      expect(q(filter).rows.prepare, JSON.stringify(filter)).to.equal(false);
      expect(q(filter).count?.prepare, JSON.stringify(filter)).to.equal(false);
    }
    expect(q(null, { kind: 'cursor', size: 10, after: null }).rows.prepare).to.equal(false);
  });

  it('unpaginated: no count, LIMIT only when the query has a limit', () => {
    expect(rows([ID]).count).to.equal(null);
    expect(rows([ID]).rows.sql).not.to.include('LIMIT');
    const first = rows([ID], null, 1).rows;
    expect(first.sql).to.match(/ LIMIT \$1$/);
    expect(first.bind).to.deep.equal([1]);
  });

  it('cursor, first page: size + 1 rows, no keyset condition, no count', () => {
    const q = rows([ID], { kind: 'cursor', size: 10, after: null });
    expect(q.rows.sql).not.to.include('WHERE');
    expect(q.rows.bind).to.deep.equal([11]);
    expect(q.count).to.equal(null);
  });

  const keyset: { title: string; order: OrderKey[]; after: Scalar[]; where: string; bind: unknown[] }[] = [
    { title: 'single key asc', order: [ID], after: [7], where: '"t0"."id" > $1', bind: [7] },
    { title: 'single key desc', order: [key('id', 'desc')], after: [7], where: '"t0"."id" < $1', bind: [7] },
    {
      title: 'mixed directions',
      order: [key('price', 'desc'), key('name'), ID],
      after: [100, 'b', 7],
      where: '(("t0"."price" < $1 OR "t0"."price" IS NULL) OR ("t0"."price" = $1 AND "t0"."name" COLLATE "C" > $2) OR ("t0"."price" = $1 AND "t0"."name" COLLATE "C" = $2 AND "t0"."id" > $3))',
      bind: [100, 'b', 7],
    },
    {
      title: 'a null cursor value ascending: everything non-null follows',
      order: [key('description'), ID],
      after: [null, 7],
      where: '("t0"."description" COLLATE "C" IS NOT NULL OR ("t0"."description" COLLATE "C" IS NULL AND "t0"."id" > $1))',
      bind: [7],
    },
    {
      title: 'a null cursor value descending: only other nulls follow',
      order: [key('description', 'desc'), ID],
      after: [null, 7],
      where: '("t0"."description" COLLATE "C" IS NULL AND "t0"."id" > $1)',
      bind: [7],
    },
    {
      title: 'relation sort key in the keyset',
      order: [key('name', 'asc', ['category']), ID],
      after: ['Phones', 3],
      where: '("o1"."name" COLLATE "C" > $1 OR ("o1"."name" COLLATE "C" = $1 AND "t0"."id" > $2))',
      bind: ['Phones', 3],
    },
  ];
  for (const t of keyset) {
    it(`keyset: ${t.title}`, () => {
      const q = rows(t.order, { kind: 'cursor', size: 5, after: t.after }).rows;
      expect(/ WHERE (.*) ORDER BY /.exec(q.sql)?.[1]).to.equal(t.where);
      expect(q.bind).to.deep.equal([...t.bind, 6]);
    });
  }

  it('a cursor of the wrong length is refused', () => {
    expect(() => rows([key('name'), ID], { kind: 'cursor', size: 5, after: [1] })).to.throw(/Cursor/);
  });
});
