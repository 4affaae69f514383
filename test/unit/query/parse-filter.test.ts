import { expect } from 'chai';
import type { Filter } from '../../../lib/query/ast';
import { and, cond, expectBadRequest, list, operFilter, or, related } from './helpers';

/** Groups nested to `depth` (the oper object is depth 1), as in the contract suite. */
function nestedGroups(depth: number, leaf: string): Record<string, unknown> {
  let node: Record<string, unknown> = { and: [leaf] };
  for (let level = depth; level > 1; level -= 1) node = { [level % 2 === 0 ? 'or' : 'and']: [node] };
  return node;
}

interface Case {
  name: string;
  oper: unknown;
  model?: string;
  expected?: Filter | null;
  error?: string[];
}

const active = cond('status', '=', 'active');
const free = cond('price', '=', 0);

const cases: Case[] = [
  // forms of oper
  { name: 'absent oper is no filter', oper: undefined, expected: null },
  { name: 'empty string is no filter', oper: '', expected: null },
  { name: 'an and list', oper: { and: ['status|=|active', 'price|=|0'] }, expected: and(active, free) },
  { name: 'an or list', oper: { or: ['status|=|active', 'price|=|0'] }, expected: or(active, free) },
  { name: 'a single-element group collapses', oper: { and: ['status|=|active'] }, expected: active },
  { name: 'an empty and list is no filter', oper: { and: [] }, expected: null },
  { name: 'JSON-encoded oper', oper: JSON.stringify({ or: ['status|=|active', 'price|=|0'] }), expected: or(active, free) },
  { name: 'a plain condition string', oper: 'status|=|active', expected: active },
  { name: 'a space-form condition string', oper: 'price >= 10', expected: cond('price', '>=', 10) },
  { name: 'an array is an and list', oper: ['status|=|active', 'price|=|0'], expected: and(active, free) },
  { name: 'upper-case AND key', oper: { AND: ['status|=|active', 'price|=|0'] }, expected: and(active, free) },
  { name: 'an object as the value of and', oper: { and: { or: ['status|=|active', 'price|=|0'] } }, expected: or(active, free) },
  { name: 'an object as the value of or joins its members with OR', oper: { or: { and: ['status|=|active', 'price|=|0'], or: ['stock|>|1', 'stock|<|0'] } }, expected: or(and(active, free), cond('stock', '>', 1), cond('stock', '<', 0)) },
  { name: 'an object as the value of and joins its members with AND', oper: { and: { and: ['status|=|active'], or: ['price|=|0', 'stock|>|1'] } }, expected: and(active, or(free, cond('stock', '>', 1))) },
  { name: 'a string as the value of or', oper: { or: 'price|=|0' }, expected: free },
  { name: 'nested or inside and', oper: { and: ['stock|>|1', { or: ['status|=|active', 'price|=|0'] }] }, expected: and(cond('stock', '>', 1), or(active, free)) },
  { name: 'nested and inside or', oper: { or: ['stock|>|1', { and: ['status|=|active', 'price|=|0'] }] }, expected: or(cond('stock', '>', 1), and(active, free)) },
  { name: 'sibling and/or keys combine with AND', oper: { and: ['status|=|active'], or: ['price|=|0', 'price|=|1'] }, expected: and(active, or(free, cond('price', '=', 1))) },
  // relation keys
  { name: 'belongsTo relation key', oper: { category: { and: ['name|=|Phones'] } }, expected: related('category', cond('name', '=', 'Phones')) },
  { name: 'hasMany relation key', oper: { reviews: { and: ['rating|>=|4'] } }, expected: related('reviews', cond('rating', '>=', 4)) },
  { name: 'many-to-many relation key', oper: { tags: { and: ['name|in|[red,green]'] } }, expected: related('tags', cond('name', 'in', ['red', 'green'])) },
  { name: 'relation with null is existence', oper: { reviews: null }, expected: related('reviews', null) },
  { name: 'relation with {} is existence', oper: { reviews: {} }, expected: related('reviews', null) },
  { name: 'relation with [] is existence', oper: { reviews: [] }, expected: related('reviews', null) },
  { name: 'relation with an array is an and list', oper: { reviews: ['rating|=|5', 'comment|null'] }, expected: related('reviews', and(cond('rating', '=', 5), cond('comment', 'null'))) },
  { name: 'relation with a condition string', oper: { reviews: 'rating|=|5' }, expected: related('reviews', cond('rating', '=', 5)) },
  { name: 'dot path becomes nested related filters', oper: { 'category.parent': { and: ['name|=|Electronics'] } }, expected: related('category', related('parent', cond('name', '=', 'Electronics'))) },
  { name: 'dot path over hasMany', oper: { 'reviews.user': { and: ['name|=|Bob'] } }, expected: related('reviews', related('user', cond('name', '=', 'Bob'))) },
  { name: 'root conditions and a relation combine with AND', oper: { and: ['price|>|100'], tags: { and: ['name|=|red'] } }, expected: and(cond('price', '>', 100), related('tags', cond('name', '=', 'red'))) },
  { name: 'relation key inside a nested or group', oper: { or: ['price|=|0', { category: { and: ['name|=|Books'] } }] }, expected: or(free, related('category', cond('name', '=', 'Books'))) },
  { name: 'relation key inside a relation tree', oper: { category: { and: ['name|!=|Laptops'], parent: { and: ['name|=|Electronics'] } } }, expected: related('category', and(cond('name', '!=', 'Laptops'), related('parent', cond('name', '=', 'Electronics')))) },
  { name: 'fields inside a relation tree are the target model fields', oper: { reviews: { and: ['rating|=|5'] } }, model: 'user', expected: related('reviews', cond('rating', '=', 5)) },
  { name: 'self relation', oper: { children: { and: ['name|=|Laptops'] } }, model: 'category', expected: related('children', cond('name', '=', 'Laptops')) },
  // errors
  { name: 'malformed JSON names oper', oper: '{"and": ["price|=|0"', error: ['Invalid JSON in parameter "oper".'] },
  { name: 'a JSON number is not an oper', oper: '42', error: ['oper'] },
  { name: 'a boolean is not an oper', oper: true, error: ['oper'] },
  { name: 'a number element in a list', oper: { and: [42] }, error: ['Invalid element 42'] },
  { name: 'a null element in a list', oper: { and: [null] }, error: ['Invalid element null'] },
  { name: 'an array element in a list', oper: { and: [['price|=|0']] }, error: ['Invalid element'] },
  { name: 'unknown relation key lists the allowed ones', oper: { bar: { and: ['x|=|1'] } }, error: ['Relation "bar" is not allowed on product. Allowed relations: category, reviews, tags.'] },
  { name: 'unknown segment in a dot path names it and its model', oper: { 'category.foo': null }, error: ['Relation "foo" is not allowed on category. Allowed relations: parent, children, products.'] },
  { name: 'relation of another model only (reviews.tags)', oper: { 'reviews.tags': null }, error: ['Relation "tags" is not allowed on review'] },
  { name: 'empty segment in a dot path', oper: { 'category..parent': null }, error: ['Invalid relation path'] },
  { name: 'unknown field inside a relation tree', oper: { category: { and: ['colour|=|x'] } }, error: ['Unknown field "colour" in oper (relation "category")'] },
  { name: 'write-only field inside a relation tree', oper: { user: { and: ['api_token|=|x'] } }, model: 'review', error: ['Unknown field "api_token"'] },
  { name: 'disallowed operator inside a relation tree', oper: { reviews: { and: ['rating|~|5'] } }, error: ['Operator "~" is not allowed'] },
  { name: '__proto__ key is rejected', oper: '{"__proto__": {"and": ["price|=|0"]}}', error: ['__proto__'] },
  { name: 'constructor key is rejected', oper: { constructor: { and: ['price|=|0'] } }, error: ['Key "constructor" is not allowed in oper.'] },
  { name: 'prototype key inside a relation tree is rejected', oper: JSON.parse('{"category": {"prototype": null}}') as unknown, error: ['prototype'] },
  { name: 'a relation value that is a number', oper: { reviews: 5 }, error: ['Invalid value for relation "reviews"'] },
  // limits
  { name: 'depth 5 is accepted', oper: nestedGroups(5, 'price|=|0'), expected: free },
  { name: 'depth 6 is rejected', oper: nestedGroups(6, 'price|=|0'), error: ['Maximum nesting depth (5) exceeded.'] },
  { name: 'a dot path of two relations counts two levels (5 accepted)', oper: { 'category.parent': { and: [{ or: [{ and: ['name|=|E'] }] }] } }, expected: related('category', related('parent', cond('name', '=', 'E'))) },
  { name: 'a dot path of two relations counts two levels (6 rejected)', oper: { 'category.parent': { and: [{ or: [{ and: [{ or: ['name|=|E'] }] }] }] } }, error: ['Maximum nesting depth (5) exceeded.'] },
  { name: 'relation trees add a level each (depth 6 rejected)', oper: { category: { parent: { parent: { parent: { parent: null } } } } }, error: ['Maximum nesting depth (5) exceeded.'] },
  { name: 'a dot path alone can exceed the depth', oper: { 'category.parent.parent.parent.parent': null }, error: ['Maximum nesting depth (5) exceeded.'] },
  { name: 'exactly 100 conditions are accepted', oper: { and: Array.from({ length: 100 }, (_, i) => `stock|!=|${i}`) } },
  { name: '101 conditions are rejected', oper: { and: Array.from({ length: 101 }, (_, i) => `stock|!=|${i}`) }, error: ['Maximum conditions (100) exceeded.'] },
  { name: 'conditions count across groups and relation trees', oper: { and: Array.from({ length: 60 }, () => 'stock|=|1'), reviews: { or: Array.from({ length: 41 }, () => 'rating|=|1') } }, error: ['Maximum conditions (100) exceeded.'] },
];

describe('query: oper filter trees', () => {
  for (const c of cases) {
    it(c.name, () => {
      const run = () => operFilter(c.oper, { model: c.model });
      if (c.error) expectBadRequest(run, ...c.error);
      else if (c.expected !== undefined) expect(run()).to.deep.equal(c.expected);
      else expect(run()).to.not.equal(null);
    });
  }

  it('configured limits are used (maxDepth 2, maxConditions 3)', () => {
    const config = { maxDepth: 2, maxConditions: 3 };
    expect(operFilter({ and: [{ or: ['price|=|0'] }] }, { config })).to.deep.equal(free);
    expectBadRequest(() => operFilter({ and: [{ or: [{ and: ['price|=|0'] }] }] }, { config }), 'Maximum nesting depth (2) exceeded.');
    expectBadRequest(() => operFilter({ and: ['price|=|0', 'price|=|1', 'price|=|2', 'price|=|3'] }, { config }), 'Maximum conditions (3) exceeded.');
  });

  it('attr conditions do not count against the condition limit', () => {
    const q = list({ oper: { and: ['price|=|0', 'stock|=|1'] }, attr: { status: 'active', featured: true } }, { config: { maxConditions: 2 } });
    expect(q.filter).to.deep.equal(and(free, cond('stock', '=', 1), active, cond('featured', '=', true)));
  });

  it('the oper error carries the parameter name', () => {
    expect(expectBadRequest(() => operFilter('{bad')).parameter).to.equal('oper');
  });
});
