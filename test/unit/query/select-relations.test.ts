import { expect } from 'chai';
import type { RelationLoad } from '../../../lib/query/ast';
import type { RestConfig } from '../../../lib/config';
import { cond, and, expectBadRequest, list, load, read, related } from './helpers';

interface Case {
  name: string;
  params: Record<string, unknown>;
  model?: string;
  config?: Partial<RestConfig>;
  select?: string[] | null;
  relations?: RelationLoad[];
  error?: string[];
}

const cases: Case[] = [
  // select
  { name: 'no select is all fields', params: {}, select: null },
  { name: 'select array keeps id first', params: { select: ['name', 'price'] }, select: ['id', 'name', 'price'] },
  { name: 'select comma-separated string', params: { select: 'name, price' }, select: ['id', 'name', 'price'] },
  { name: 'select JSON array string', params: { select: '["name","price"]' }, select: ['id', 'name', 'price'] },
  { name: 'select de-duplicates and keeps id', params: { select: 'name,id,name' }, select: ['id', 'name'] },
  { name: 'select * is all fields', params: { select: '*' }, select: null },
  { name: 'select unknown column is a 400', params: { select: 'name,colour' }, error: ['Unknown field "colour" in select. Allowed fields:'] },
  { name: 'select unknown column dropped when not strict', params: { select: 'name,colour' }, config: { strictColumns: false }, select: ['id', 'name'] },
  { name: 'select unknown column dropped when not validating', params: { select: 'name,colour' }, config: { validateColumns: false }, select: ['id', 'name'] },
  { name: 'select write-only is a 400', params: { select: 'name,api_token' }, model: 'user', error: ['Unknown field "api_token" in select'] },
  { name: 'select write-only is a 400 even when not strict', params: { select: 'api_token' }, model: 'user', config: { strictColumns: false }, error: ['api_token'] },
  { name: 'select malformed JSON names select', params: { select: '["name"' }, error: ['Invalid JSON in parameter "select".'] },
  { name: 'select of numbers is a 400', params: { select: [1, 2] }, error: ['Parameter "select"'] },
  { name: 'select prototype name is unknown', params: { select: '__proto__' }, error: ['Unknown field "__proto__"'] },
  // relations forms
  { name: 'relation by name', params: { relations: ['category'] }, relations: [load('category')] },
  { name: 'relations comma string', params: { relations: 'category,reviews' }, relations: [load('category'), load('reviews')] },
  { name: 'relations JSON array string', params: { relations: '["category","tags"]' }, relations: [load('category'), load('tags')] },
  { name: 'relation with columns adds id', params: { relations: ['category:name'] }, relations: [load('category', ['id', 'name'])] },
  { name: 'string form: columns follow their relation', params: { relations: 'category:name,id,reviews' }, relations: [load('category', ['id', 'name']), load('reviews')] },
  { name: 'string form: a known field after a plain relation is its column', params: { relations: 'category,name' }, relations: [load('category', ['id', 'name'])] },
  { name: 'nested path', params: { relations: ['category.parent'] }, relations: [load('category', null, [load('parent')])] },
  { name: 'nested path with columns', params: { relations: ['category.parent:name'] }, relations: [load('category', null, [load('parent', ['id', 'name'])])] },
  { name: 'duplicate paths merge into one tree', params: { relations: ['reviews', 'reviews.user'] }, relations: [load('reviews', null, [load('user')])] },
  { name: 'column lists of the same relation are merged', params: { relations: ['category:name', 'category:parent_id'] }, relations: [load('category', ['id', 'name', 'parent_id'])] },
  { name: 'all columns wins over a column list', params: { relations: ['category', 'category:name'] }, relations: [load('category')] },
  { name: 'all expands to every relation', params: { relations: 'all' }, relations: [load('category'), load('reviews'), load('tags')] },
  { name: 'all plus a nested path merges', params: { relations: ['all', 'reviews.user'] }, relations: [load('category'), load('reviews', null, [load('user')]), load('tags')] },
  { name: 'self relations of categories', params: { relations: 'parent,children' }, model: 'category', relations: [load('parent'), load('children')] },
  // key columns (decision 12)
  { name: 'root select gets the foreign key of a belongsTo', params: { select: 'name', relations: 'category' }, select: ['id', 'name', 'category_id'], relations: [load('category')] },
  { name: 'root select with hasMany needs only id', params: { select: 'name', relations: 'reviews' }, select: ['id', 'name'], relations: [load('reviews')] },
  { name: 'hasMany columns get the foreign key on the target', params: { relations: 'reviews:rating' }, relations: [load('reviews', ['id', 'rating', 'product_id'])] },
  { name: 'belongsToMany columns get id only (pivot keys are not fields)', params: { relations: 'tags:name' }, relations: [load('tags', ['id', 'name'])] },
  { name: 'relation columns get the foreign keys of belongsTo children', params: { relations: ['reviews:rating', 'reviews.user:name'] }, relations: [load('reviews', ['id', 'rating', 'product_id', 'user_id'], [load('user', ['id', 'name'])])] },
  { name: 'belongsTo child of a belongsTo', params: { select: 'name', relations: 'category:name,category.parent:name' }, select: ['id', 'name', 'category_id'], relations: [load('category', ['id', 'name', 'parent_id'], [load('parent', ['id', 'name'])])] },
  { name: 'key columns already requested are not repeated', params: { select: 'category_id,name', relations: 'category' }, select: ['id', 'category_id', 'name'], relations: [load('category')] },
  // relation errors
  { name: 'unknown relation', params: { relations: 'bar' }, error: ['Relation "bar" is not allowed on product. Allowed relations: category, reviews, tags.'] },
  { name: 'unknown relation in an array', params: { relations: ['category', 'bar'] }, error: ['Relation "bar" is not allowed on product'] },
  { name: 'unknown nested segment names its model', params: { relations: 'category.foo' }, error: ['Relation "foo" is not allowed on category'] },
  { name: 'a relation of another model only', params: { relations: 'reviews.tags' }, error: ['Relation "tags" is not allowed on review'] },
  { name: 'a token neither relation nor field of the previous item', params: { relations: 'category,revews' }, error: ['Relation "revews" is not allowed on product'] },
  { name: 'unknown column in a relation column list', params: { relations: 'category:colour' }, error: ['Unknown field "colour" in relations (category)'] },
  { name: 'unknown column after a colon item', params: { relations: 'category:name,colour' }, error: ['Unknown field "colour" in relations (category)'] },
  { name: 'unknown relation column dropped when not strict', params: { relations: 'category:name,colour' }, config: { strictColumns: false }, relations: [load('category', ['id', 'name'])] },
  { name: 'write-only column in a relation column list', params: { relations: 'reviews.user:api_token' }, error: ['Unknown field "api_token" in relations (reviews.user)'] },
  { name: 'write-only relation column even when not strict', params: { relations: 'reviews.user:name,api_token' }, config: { strictColumns: false }, error: ['api_token'] },
  { name: 'malformed JSON names relations', params: { relations: '["category"' }, error: ['Invalid JSON in parameter "relations".'] },
  { name: 'a relations object is a 400', params: { relations: { category: true } }, error: ['Parameter "relations"'] },
  { name: 'a column list on all is a 400', params: { relations: 'all:name' }, error: ['"all"'] },
  { name: 'a prototype relation name is unknown', params: { relations: 'constructor' }, error: ['Relation "constructor" is not allowed'] },
  { name: 'an empty path segment', params: { relations: 'category.' }, error: ['Invalid relation path'] },
  { name: 'a path deeper than REST_MAX_RELATION_DEPTH (3) is a 400 naming the limit', params: { relations: 'tags.products.tags.products' }, error: ['"tags.products.tags.products" is 4 levels deep', 'REST_MAX_RELATION_DEPTH'] },
  { name: 'a path of REST_MAX_RELATION_DEPTH levels loads', params: { relations: 'tags.products.tags:name' }, relations: [load('tags', null, [load('products', null, [load('tags', ['id', 'name'])])])] },
  { name: 'maxRelationDepth is configurable', params: { relations: 'tags.products.tags.products:name' }, config: { maxRelationDepth: 4 }, relations: [load('tags', null, [load('products', null, [load('tags', null, [load('products', ['id', 'name'])])])])] },
  { name: 'a deep path in a JSON array is checked too', params: { relations: '["category","tags.products.tags.products.tags"]' }, error: ['5 levels deep'] },
];

describe('query: select and relations', () => {
  for (const c of cases) {
    it(c.name, () => {
      const run = () => list(c.params, { model: c.model, config: c.config });
      if (c.error) {
        expectBadRequest(run, ...c.error);
        return;
      }
      const q = run();
      if (c.select !== undefined) expect(q.select).to.deep.equal(c.select);
      if (c.relations !== undefined) expect(q.relations).to.deep.equal(c.relations);
    });
  }

  it('parseReadOptions returns select and relations only', () => {
    expect(read({ select: 'name', relations: 'category:name', oper: 'garbage', orderby: 'x' })).to.deep.equal({
      select: ['id', 'name', 'category_id'],
      relations: [load('category', ['id', 'name'])],
    });
  });

  it('parseReadOptions checks relations like a list', () => {
    expectBadRequest(() => read({ relations: 'bar' }), 'Relation "bar"');
  });
});

describe('query: _nested relation filters', () => {
  const oper = { reviews: { and: ['rating|=|5'] }, category: { and: ['name|=|Phones'], parent: { and: ['name|=|E'] } } };
  const cases: Array<{ name: string; params: Record<string, unknown>; relations: RelationLoad[]; nested?: boolean }> = [
    { name: 'absent: loads are not filtered', params: { oper, relations: 'reviews' }, relations: [load('reviews')] },
    { name: '"false" string: not filtered', params: { oper, relations: 'reviews', _nested: 'false' }, relations: [load('reviews')] },
    { name: 'true: the load gets the relation sub-filter', params: { oper, relations: 'reviews', _nested: true }, relations: [load('reviews', null, [], cond('rating', '=', 5))] },
    { name: '"1": filtered', params: { oper, relations: 'reviews', _nested: '1' }, relations: [load('reviews', null, [], cond('rating', '=', 5))] },
    { name: 'loads without a relation key stay unfiltered', params: { oper, relations: 'tags', _nested: true }, relations: [load('tags')] },
    {
      name: 'nested levels get their own sub-filter',
      params: { oper, relations: 'category.parent', _nested: true },
      relations: [load('category', null, [load('parent', null, [], cond('name', '=', 'E'))], and(cond('name', '=', 'Phones'), related('parent', cond('name', '=', 'E'))))],
    },
    {
      name: 'a dot-path key filters both levels',
      params: { oper: { 'reviews.user': { and: ['name|=|Bob'] } }, relations: 'reviews.user', _nested: true },
      relations: [load('reviews', null, [load('user', null, [], cond('name', '=', 'Bob'))], related('user', cond('name', '=', 'Bob')))],
    },
    { name: 'a relation key inside an and group counts', params: { oper: { and: ['price|>|1', { reviews: { and: ['rating|=|5'] } }] }, relations: 'reviews', _nested: true }, relations: [load('reviews', null, [], cond('rating', '=', 5))] },
    { name: 'a relation key inside an or group does not narrow loads', params: { oper: { or: ['price|>|1', { reviews: { and: ['rating|=|5'] } }] }, relations: 'reviews', _nested: true }, relations: [load('reviews')] },
    { name: 'existence-only key gives no load filter', params: { oper: { reviews: null }, relations: 'reviews', _nested: true }, relations: [load('reviews')] },
    { name: 'the same relation twice is ANDed', params: { oper: { reviews: { and: ['rating|=|5'] }, and: [{ reviews: { and: ['comment|null'] } }] }, relations: 'reviews', _nested: true }, relations: [load('reviews', null, [], and(cond('rating', '=', 5), cond('comment', 'null')))] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const q = list(c.params);
      expect(q.relations).to.deep.equal(c.relations);
    });
  }

  it('a bad _nested value is a 400 naming it', () => {
    expectBadRequest(() => list({ _nested: 'maybe' }), '_nested');
  });
});
