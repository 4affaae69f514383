import { expect } from 'chai';
import { compileList } from '../../../drivers/sql';
import type { Filter, Operator, Scalar } from '../../../lib/query/ast';
import { catalog, listQuery, tables } from './fixture';

const c = (field: string, operator: Operator, value?: Scalar | Scalar[]): Filter => ({ kind: 'condition', field, operator, value });
const rel = (relation: string, filter: Filter | null): Filter => ({ kind: 'related', relation, filter });

/** The WHERE clause and bind values of a product (or other model) list with that filter. */
function where(filter: Filter, model = 'product'): { sql: string; bind: unknown[] } {
  const { rows } = compileList(listQuery({ model, filter, select: ['id'] }), catalog, tables);
  const match = / WHERE (.*) ORDER BY /.exec(rows.sql);
  if (!match) throw new Error(`no WHERE in ${rows.sql}`);
  return { sql: match[1], bind: rows.bind };
}

interface Case {
  title: string;
  filter: Filter;
  model?: string;
  sql: string;
  bind: unknown[];
}

const cases: Case[] = [
  { title: '=', filter: c('name', '=', 'A'), sql: '"t0"."name" = $1', bind: ['A'] },
  { title: '!= matches NULL too (IS DISTINCT FROM)', filter: c('status', '!=', 'active'), sql: '"t0"."status" IS DISTINCT FROM $1', bind: ['active'] },
  { title: '> on a number', filter: c('price', '>', 100), sql: '"t0"."price" > $1', bind: [100] },
  { title: '>= on a number', filter: c('price', '>=', 100), sql: '"t0"."price" >= $1', bind: [100] },
  { title: '< on a string compares bytewise', filter: c('sku', '<', 'B'), sql: '"t0"."sku" COLLATE "C" < $1', bind: ['B'] },
  { title: '<=', filter: c('stock', '<=', 3), sql: '"t0"."stock" <= $1', bind: [3] },
  { title: '= on a boolean', filter: c('featured', '=', true), sql: '"t0"."featured" = $1', bind: [true] },
  { title: 'like: no escape character, backslash literal', filter: c('name', 'like', '%a\\b_'), sql: `"t0"."name" LIKE $1 ESCAPE ''`, bind: ['%a\\b_'] },
  { title: 'ilike: lower() under pg_c_utf8 against the pattern lowered by the same rule (decision 73)', filter: c('name', 'ilike', '%PHONÉ%'), sql: `lower(("t0"."name") COLLATE "pg_c_utf8") LIKE $1 ESCAPE ''`, bind: ['%phoné%'] },
  { title: 'ilike without a cased character is a LIKE (an index serves it as before)', filter: c('name', 'ilike', '00_12%'), sql: `"t0"."name" LIKE $1 ESCAPE ''`, bind: ['00_12%'] },
  { title: 'ilike after a caseless start: that start bounds an index as a LIKE prefix', filter: c('name', 'ilike', '12-Ab%'), sql: `("t0"."name" LIKE $1 ESCAPE '' AND lower(("t0"."name") COLLATE "pg_c_utf8") LIKE $2 ESCAPE '')`, bind: ['12-%', '12-ab%'] },
  { title: 'not like matches NULL', filter: c('name', 'not like', '%x'), sql: `("t0"."name" IS NULL OR NOT ("t0"."name" LIKE $1 ESCAPE ''))`, bind: ['%x'] },
  { title: 'not ilike matches NULL', filter: c('name', 'not ilike', '%X'), sql: `("t0"."name" IS NULL OR NOT (lower(("t0"."name") COLLATE "pg_c_utf8") LIKE $1 ESCAPE ''))`, bind: ['%x'] },
  { title: 'not ilike takes no prefix (the negation could not use it)', filter: c('name', 'not ilike', '1x'), sql: `("t0"."name" IS NULL OR NOT (lower(("t0"."name") COLLATE "pg_c_utf8") LIKE $1 ESCAPE ''))`, bind: ['1x'] },
  { title: 'like on a non-string field matches nothing', filter: c('price', 'like', '1%'), sql: 'FALSE', bind: [] },
  { title: 'not like on a non-string field matches everything', filter: c('price', 'not like', '1%'), sql: 'TRUE', bind: [] },
  { title: 'in binds one array', filter: c('status', 'in', ['draft', 'inactive']), sql: '"t0"."status" = ANY($1)', bind: [['draft', 'inactive']] },
  { title: 'in with null', filter: c('category_id', 'in', [1, 2, null]), sql: '("t0"."category_id" = ANY($1) OR "t0"."category_id" IS NULL)', bind: [[1, 2]] },
  // one value is `=`: a prepared `= ANY($1)` never got a generic plan (a show planned on every execution)
  { title: 'in with one value (and null)', filter: c('category_id', 'in', [1, null]), sql: '("t0"."category_id" = $1 OR "t0"."category_id" IS NULL)', bind: [1] },
  { title: 'not in matches NULL', filter: c('status', 'not in', ['a', 'b']), sql: '("t0"."status" IS NULL OR NOT ("t0"."status" = ANY($1)))', bind: [['a', 'b']] },
  { title: 'not in with null excludes NULL', filter: c('category_id', 'not in', [1, null]), sql: '("t0"."category_id" IS NOT NULL AND NOT ("t0"."category_id" = ANY($1)))', bind: [[1]] },
  { title: 'between is inclusive', filter: c('price', 'between', [20, 200]), sql: '"t0"."price" BETWEEN $1 AND $2', bind: [20, 200] },
  { title: 'between on strings bytewise', filter: c('name', 'between', ['a', 'm']), sql: '"t0"."name" COLLATE "C" BETWEEN $1 AND $2', bind: ['a', 'm'] },
  { title: 'not between matches NULL', filter: c('price', 'not between', [20, 200]), sql: '("t0"."price" IS NULL OR NOT ("t0"."price" BETWEEN $1 AND $2))', bind: [20, 200] },
  { title: 'null', filter: c('description', 'null'), sql: '"t0"."description" IS NULL', bind: [] },
  { title: 'not null', filter: c('description', 'not null'), sql: '"t0"."description" IS NOT NULL', bind: [] },
  { title: 'dates are bound as Date', filter: c('created_at', '>=', new Date('2026-01-01T00:00:00Z')), sql: '"t0"."created_at" >= $1', bind: [new Date('2026-01-01T00:00:00Z')] },
  // array fields (users.roles TEXT[])
  { title: 'array =: contains', model: 'user', filter: c('roles', '=', 'admin'), sql: '$1 = ANY("t0"."roles")', bind: ['admin'] },
  { title: 'array !=: does not contain, or NULL', model: 'user', filter: c('roles', '!=', 'admin'), sql: '("t0"."roles" IS NULL OR NOT ($1 = ANY("t0"."roles")))', bind: ['admin'] },
  { title: 'array in: overlaps', model: 'user', filter: c('roles', 'in', ['a', 'b']), sql: '"t0"."roles" && $1', bind: [['a', 'b']] },
  { title: 'array not in: no overlap, or NULL', model: 'user', filter: c('roles', 'not in', ['a']), sql: '("t0"."roles" IS NULL OR NOT ("t0"."roles" && $1))', bind: [['a']] },
  { title: 'array >: some element', model: 'user', filter: c('roles', '>', 'b'), sql: '$1 < ANY("t0"."roles")', bind: ['b'] },
  { title: 'array like: some element', model: 'user', filter: c('roles', 'like', 'ad%'), sql: `EXISTS (SELECT 1 FROM unnest("t0"."roles") AS "e"("v") WHERE "e"."v" LIKE $1 ESCAPE '')`, bind: ['ad%'] },
  { title: 'array ilike: some element, under the one case rule', model: 'user', filter: c('roles', 'ilike', 'AD%'), sql: `EXISTS (SELECT 1 FROM unnest("t0"."roles") AS "e"("v") WHERE lower(("e"."v") COLLATE "pg_c_utf8") LIKE $1 ESCAPE '')`, bind: ['ad%'] },
  // logic
  { title: 'and', filter: { kind: 'and', filters: [c('status', '=', 'active'), c('price', '>=', 100)] }, sql: '("t0"."status" = $1 AND "t0"."price" >= $2)', bind: ['active', 100] },
  { title: 'or', filter: { kind: 'or', filters: [c('price', '=', 0), c('stock', '=', 0)] }, sql: '("t0"."price" = $1 OR "t0"."stock" = $2)', bind: [0, 0] },
  {
    title: 'or inside and inside or',
    filter: { kind: 'or', filters: [c('price', '=', 0), { kind: 'and', filters: [c('status', '=', 'x'), { kind: 'or', filters: [c('stock', '<', 5), c('featured', '=', true)] }] }] },
    sql: '("t0"."price" = $1 OR ("t0"."status" = $2 AND ("t0"."stock" < $3 OR "t0"."featured" = $4)))',
    bind: [0, 'x', 5, true],
  },
  { title: 'empty and is TRUE', filter: { kind: 'and', filters: [] }, sql: 'TRUE', bind: [] },
  { title: 'empty or is FALSE', filter: { kind: 'or', filters: [] }, sql: 'FALSE', bind: [] },
  { title: 'single-item group has no parentheses', filter: { kind: 'and', filters: [c('stock', '=', 1)] }, sql: '"t0"."stock" = $1', bind: [1] },
  // relation existence
  {
    title: 'belongsTo EXISTS',
    filter: rel('category', c('name', '=', 'Phones')),
    sql: 'EXISTS (SELECT 1 FROM "categories" AS "r1" WHERE "r1"."id" = "t0"."category_id" AND "r1"."name" = $1)',
    bind: ['Phones'],
  },
  {
    title: 'hasMany EXISTS with no filter (any related record)',
    filter: rel('reviews', null),
    sql: 'EXISTS (SELECT 1 FROM "reviews" AS "r1" WHERE "r1"."product_id" = "t0"."id")',
    bind: [],
  },
  {
    title: 'belongsToMany EXISTS through the pivot',
    filter: rel('tags', c('name', 'in', ['red'])),
    sql: 'EXISTS (SELECT 1 FROM "product_tag" AS "p2" JOIN "tags" AS "r1" ON "r1"."id" = "p2"."tag_id" WHERE "p2"."product_id" = "t0"."id" AND "r1"."name" = $1)',
    bind: ['red'],
  },
  {
    title: 'dot path: nested EXISTS (reviews.user)',
    filter: rel('reviews', rel('user', c('name', '=', 'Ann'))),
    sql: 'EXISTS (SELECT 1 FROM "reviews" AS "r1" WHERE "r1"."product_id" = "t0"."id" AND EXISTS (SELECT 1 FROM "users" AS "r2" WHERE "r2"."id" = "r1"."user_id" AND "r2"."name" = $1))',
    bind: ['Ann'],
  },
  {
    title: 'self relation dot path on categories (parent.parent)',
    model: 'category',
    filter: rel('parent', rel('parent', null)),
    sql: 'EXISTS (SELECT 1 FROM "categories" AS "r1" WHERE "r1"."id" = "t0"."parent_id" AND EXISTS (SELECT 1 FROM "categories" AS "r2" WHERE "r2"."id" = "r1"."parent_id"))',
    bind: [],
  },
  {
    title: 'relation filters inside an or',
    filter: { kind: 'or', filters: [c('price', '=', 0), rel('reviews', c('rating', '>=', 4))] },
    sql: '("t0"."price" = $1 OR EXISTS (SELECT 1 FROM "reviews" AS "r1" WHERE "r1"."product_id" = "t0"."id" AND "r1"."rating" >= $2))',
    bind: [0, 4],
  },
];

describe('sql compiler: filters', () => {
  for (const t of cases) {
    it(t.title, () => {
      expect(where(t.filter, t.model)).to.deep.equal({ sql: t.sql, bind: t.bind });
    });
  }

  it('hostile values only ever appear in the bind array', () => {
    const hostile = `'; drop table x; --`;
    const filters: Filter[] = [
      c('name', '=', hostile), c('name', '!=', hostile), c('name', 'like', hostile), c('name', 'not ilike', hostile),
      c('name', 'in', [hostile, 'a']), c('name', 'not in', [hostile]), c('name', 'between', [hostile, hostile]),
      rel('tags', c('name', '=', hostile)), rel('reviews', rel('user', c('email', '>', hostile))),
    ];
    for (const filter of filters) {
      const q = compileList(listQuery({ filter, page: { kind: 'offset', page: 1, size: 5 }, relations: [{ name: 'reviews', columns: null, children: [], filter: rel('user', c('name', '=', hostile)) }] }), catalog, tables);
      for (const s of q.statements) {
        expect(s.sql).not.to.include('drop table');
        expect(s.sql).not.to.include("'; ");
      }
      expect(JSON.stringify(q.statements.map((s) => s.bind))).to.include('drop table x');
    }
  });
});
