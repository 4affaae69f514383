import { expect } from 'chai';
import { compileList, type RelationPlan, type ModelMap } from '../../../drivers/sql';
import { RelationPlanCache } from '../../../drivers/sql/compile-list';
import type { Filter, RelationLoad } from '../../../lib/query/ast';
import { catalog, listQuery, tables } from './fixture';

const load = (name: string, columns: string[] | null = null, children: RelationLoad[] = [], filter: Filter | null = null): RelationLoad => ({ name, columns, children, filter });

function plans(relations: RelationLoad[], model = 'product', select: string[] | null = ['name']) {
  return compileList(listQuery({ model, relations, select }), catalog, tables);
}

const shape = (p: RelationPlan): unknown => ({ name: p.name, parentField: p.parentField, matchKey: p.matchKey, sql: p.statement.sql, bind: p.statement.bind, children: p.children.map(shape) });

describe('sql compiler: eager loading', () => {
  it('belongsTo: joined into the page statement (LEFT JOIN on the key, columns under helper aliases); the root selects the foreign key', () => {
    const q = plans([load('category', ['name'])]);
    expect(q.fields).to.deep.equal(['id', 'name', 'category_id']);
    expect(q.relations).to.deep.equal([]);
    expect(q.rows.sql).to.equal(
      'SELECT "t0"."id" AS "id", "t0"."name" AS "name", "t0"."category_id" AS "category_id", "t0"."id" AS "__k0", "j1"."id" AS "__j1_0", "j1"."name" AS "__j1_1" ' +
        'FROM "products" AS "t0" LEFT JOIN "categories" AS "j1" ON "j1"."id" = "t0"."category_id" ORDER BY "t0"."id" ASC',
    );
    expect(q.joins.map((j) => ({ name: j.name, target: j.target, keyAlias: j.keyAlias, columns: j.columns }))).to.deep.equal([
      { name: 'category', target: 'category', keyAlias: '__j1_0', columns: [{ field: 'id', alias: '__j1_0' }, { field: 'name', alias: '__j1_1' }] },
    ]);
  });

  it('belongsTo with a filter: the filter goes into the ON clause with its own bound values (a refused record reads as null)', () => {
    const q = plans([load('category', ['name'], [], { kind: 'condition', field: 'name', operator: 'like', value: 'G%' })]);
    expect(q.rows.sql).to.include(`LEFT JOIN "categories" AS "j1" ON "j1"."id" = "t0"."category_id" AND "j1"."name" LIKE $1 ESCAPE ''`);
    expect(q.rows.bind).to.deep.equal(['G%']);
  });

  it('hasMany: embedded as a JSON subquery run over the page rows (an OFFSET never runs it), keyed by the foreign key, which stays in the columns', () => {
    const q = plans([load('reviews', ['rating'])]);
    expect(q.relations).to.deep.equal([]);
    expect(q.rest).to.deep.equal([{ name: 'reviews', embed: { name: 'reviews', kind: 'hasMany', target: 'review', alias: '__e2', fields: ['id', 'rating', 'product_id'] } }]);
    expect(q.rows.sql).to.equal(
      'SELECT "w1".*, (SELECT json_agg(json_build_array("e2"."id", "e2"."rating", "e2"."product_id") ORDER BY "e2"."id") FROM "reviews" AS "e2" WHERE "e2"."product_id" = "w1"."id") AS "__e2" ' +
        'FROM (SELECT "t0"."id" AS "id", "t0"."name" AS "name", "t0"."id" AS "__k0" FROM "products" AS "t0" ORDER BY "t0"."id" ASC) AS "w1" ORDER BY "w1"."__k0" ASC',
    );
  });

  it('hasMany embedded under a loadLimit: the rows are picked in key order, at most loadLimit + 1 per parent, before they are aggregated', () => {
    const q = compileList(listQuery({ relations: [load('reviews', ['rating'])], select: ['name'], loadLimit: 50 }), catalog, tables);
    expect(q.rows.sql).to.include(
      '(SELECT json_agg(json_build_array("e2"."id", "e2"."rating", "e2"."product_id") ORDER BY "e2"."id") FROM ' +
        '(SELECT * FROM "reviews" AS "e2" WHERE "e2"."product_id" = "w1"."id" ORDER BY "e2"."id" LIMIT 51) AS "e2") AS "__e2"',
    );
    // the cached statement head is per loadLimit
    const cache = new RelationPlanCache();
    const a = compileList(listQuery({ relations: [load('reviews')], loadLimit: 50 }), catalog, tables, cache).rows.sql;
    const b = compileList(listQuery({ relations: [load('reviews')] }), catalog, tables, cache).rows.sql;
    expect(a).to.include('LIMIT 51');
    expect(b).not.to.include('LIMIT 51');
  });

  it('a to-many with loads below it, and many-to-many, keep a statement of their own keyed by the parent ids', () => {
    const q = plans([load('reviews', ['rating'], [load('user', ['name'])])]);
    expect(q.rest).to.deep.equal([{ name: 'reviews', embed: null }]);
    expect(shape(q.relations[0])).to.deep.include({
      name: 'reviews', parentField: 'id', matchKey: 'product_id',
      sql: 'SELECT "l0"."id" AS "id", "l0"."rating" AS "rating", "l0"."product_id" AS "product_id", "l0"."user_id" AS "user_id" FROM "reviews" AS "l0" WHERE "l0"."product_id" = ANY($1) ORDER BY "l0"."id" ASC',
      bind: [null],
    });
    expect(q.rows.sql).not.to.include('json_agg');
  });

  it('belongsToMany: through the pivot, pivot keys and columns selected for `pivot`', () => {
    const p = plans([load('tags', ['name'])]).relations[0];
    expect(p.statement.sql).to.equal(
      'SELECT "l0"."id" AS "id", "l0"."name" AS "name", "p1"."product_id" AS "__pivot0", "p1"."tag_id" AS "__pivot1", "p1"."position" AS "__pivot2", "p1"."note" AS "__pivot3" ' +
        'FROM "product_tag" AS "p1" JOIN "tags" AS "l0" ON "l0"."id" = "p1"."tag_id" WHERE "p1"."product_id" = ANY($1) ORDER BY "l0"."id" ASC',
    );
    expect(p.matchKey).to.equal('__pivot0');
    expect(p.pivot?.map((c) => [c.name, c.type])).to.deep.equal([['product_id', 'id'], ['tag_id', 'id'], ['position', 'integer'], ['note', 'string']]);
  });

  it('columns null = every readable field (write-only ones never)', () => {
    const q = plans([load('user')], 'review', ['rating']);
    expect(q.joins[0].columns.map((c) => c.field)).to.deep.equal(['id', 'name', 'email', 'roles', 'is_superuser', 'created_at', 'updated_at']);
    expect(q.rows.sql).not.to.include('api_token');
    expect(plans([], 'user', null).rows.sql).not.to.include('api_token');
    expect(plans([], 'user', ['name', 'api_token']).fields).to.deep.equal(['id', 'name']);
  });

  it('nesting: to-one chains join (category -> parent), a to-many below them is a statement keyed by the joined records', () => {
    const q = plans([load('reviews', ['rating'], [load('user', ['name'])]), load('category', ['name'], [load('parent', ['name'], [load('children', ['name'])])])]);
    // the page (category and parent joined), reviews, reviews.user, category.parent.children
    expect(q.statements).to.have.length(1 + 3);
    const reviews = q.relations[0];
    expect(reviews.fields).to.deep.equal(['id', 'rating', 'product_id', 'user_id']);
    expect(shape(reviews.children[0])).to.deep.equal({
      name: 'user', parentField: 'user_id', matchKey: 'id',
      sql: 'SELECT "l0"."id" AS "id", "l0"."name" AS "name" FROM "users" AS "l0" WHERE "l0"."id" = ANY($1) ORDER BY "l0"."id" ASC',
      bind: [null], children: [],
    });
    const category = q.joins[0];
    expect(category.columns.map((c) => c.field)).to.deep.equal(['id', 'name', 'parent_id']);
    expect(q.rows.sql).to.include('LEFT JOIN "categories" AS "j1" ON "j1"."id" = "t0"."category_id" LEFT JOIN "categories" AS "j2" ON "j2"."id" = "j1"."parent_id"');
    const parent = category.joins[0];
    expect(parent.name).to.equal('parent');
    expect(parent.relations[0].statement.sql).to.equal(
      'SELECT "l0"."id" AS "id", "l0"."name" AS "name", "l0"."parent_id" AS "parent_id" FROM "categories" AS "l0" WHERE "l0"."parent_id" = ANY($1) ORDER BY "l0"."id" ASC',
    );
  });

  it('_nested: the relation filter narrows the embedded records, its values bound before the root filter\'s (not prepared)', () => {
    const filter: Filter = { kind: 'and', filters: [{ kind: 'condition', field: 'rating', operator: '>=', value: 4 }, { kind: 'related', relation: 'user', filter: { kind: 'condition', field: 'name', operator: 'like', value: 'A%' } }] };
    const q = compileList(listQuery({ relations: [load('reviews', ['rating'], [], filter)], select: ['name'], filter: { kind: 'condition', field: 'id', operator: '=', value: 5 } }), catalog, tables);
    expect(q.rows.sql).to.include(
      `WHERE "e2"."product_id" = "w1"."id" AND ("e2"."rating" >= $1 AND EXISTS (SELECT 1 FROM "users" AS "r3" WHERE "r3"."id" = "e2"."user_id" AND "r3"."name" LIKE $2 ESCAPE ''))) AS "__e2"`,
    );
    expect(q.rows.sql).to.include('WHERE "t0"."id" = $3 ORDER BY');
    expect(q.rows.bind).to.deep.equal([4, 'A%', 5]);
    expect(q.rows.prepare).to.equal(false);
  });

  it('identifiers come from the table map, double-quoted with quotes doubled', () => {
    const odd: ModelMap = { ...tables, product: { table: 'pro"ducts', schema: 'sh op', columns: { name: 'na"me' }, createdAt: 'created_at', updatedAt: 'updated_at' } };
    const q = compileList(listQuery({ select: ['name'], filter: { kind: 'condition', field: 'name', operator: '=', value: 'x' } }), catalog, odd);
    expect(q.rows.sql).to.equal('SELECT "t0"."id" AS "id", "t0"."na""me" AS "name", "t0"."id" AS "__k0" FROM "sh op"."pro""ducts" AS "t0" WHERE "t0"."na""me" = $1 ORDER BY "t0"."id" ASC');
  });
});

describe('sql compiler: statement heads cached by query shape', () => {
  const cond = (field: string, operator: string, value: unknown): Filter => ({ kind: 'condition', field, operator, value }) as Filter;
  const queries = [
    listQuery({ relations: [load('category', null, [load('parent')]), load('reviews')], filter: cond('id', '=', 7) }),
    listQuery({ relations: [load('category', null, [load('parent')]), load('reviews')], filter: cond('id', '=', 9) }),
    listQuery({ relations: [load('category', null, [load('parent')]), load('reviews')], filter: cond('price', '>=', 3), page: { kind: 'offset', page: 2, size: 5 } }),
    listQuery({ relations: [load('category', ['name'], [], cond('name', 'like', 'G%'))], filter: cond('stock', 'in', [1, null]) }),
    listQuery({ relations: [load('category', ['name'], [], cond('name', 'like', 'H%'))], filter: cond('stock', 'in', [2]) }),
    listQuery({ select: ['name'], order: [{ relations: ['category'], field: 'name', direction: 'desc' }, { relations: [], field: 'id', direction: 'asc' }], filter: cond('name', '!=', 'x') }),
  ];

  it('a cached head gives exactly the statements an uncached compile gives, values bound per query', () => {
    const cache = new RelationPlanCache();
    for (const round of [1, 2]) {
      for (const query of queries) {
        const cached = compileList(query, catalog, tables, cache);
        const fresh = compileList(query, catalog, tables);
        expect(cached.statements, `round ${round}`).to.deep.equal(fresh.statements);
        expect(cached.fields).to.deep.equal(fresh.fields);
      }
    }
    expect(compileList(queries[1], catalog, tables, cache).rows.bind).to.deep.equal([9]);
  });

  it('reuses the head for another id or filter value; a head whose joined load bound values is not cached', () => {
    const cache = new RelationPlanCache();
    compileList(queries[0], catalog, tables, cache);
    compileList(queries[1], catalog, tables, cache);
    expect(cache.heads.size).to.equal(1);
    compileList(queries[3], catalog, tables, cache);
    compileList(queries[4], catalog, tables, cache);
    expect(cache.heads.size).to.equal(1);
    expect(compileList(queries[4], catalog, tables, cache).rows.bind).to.deep.equal(['H%', 2]);
  });
});
