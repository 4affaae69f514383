import { expect } from 'chai';
import { mergeParams, readBoolean } from '../../../lib/query';
import type { Filter } from '../../../lib/query/ast';
import { and, cond, expectBadRequest, list } from './helpers';

describe('query: mergeParams', () => {
  const cases: Array<{ name: string; query: Record<string, unknown>; body: unknown; expected: Record<string, unknown> }> = [
    { name: 'query string only', query: { select: 'name' }, body: undefined, expected: { select: 'name' } },
    { name: 'body only', query: {}, body: { oper: { and: ['price|=|0'] } }, expected: { oper: { and: ['price|=|0'] } } },
    { name: 'different parameters are merged', query: { select: 'name' }, body: { orderby: [{ name: 'asc' }] }, expected: { select: 'name', orderby: [{ name: 'asc' }] } },
    { name: 'the body wins on the same parameter', query: { oper: '{"and":["price|=|0"]}' }, body: { oper: { and: ['price|=|200'] } }, expected: { oper: { and: ['price|=|200'] } } },
    { name: 'an array body is not parameters', query: { select: 'name' }, body: [{ name: 'x' }], expected: { select: 'name' } },
    { name: 'a string body is ignored', query: { select: 'name' }, body: 'hello', expected: { select: 'name' } },
    { name: 'prototype keys are dropped from both', query: JSON.parse('{"__proto__": {"x": 1}, "constructor": 1, "a": 1}') as Record<string, unknown>, body: JSON.parse('{"prototype": 1, "__proto__": {"polluted": true}, "b": 2}'), expected: { a: 1, b: 2 } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const merged = mergeParams(c.query, c.body);
      expect({ ...merged }).to.deep.equal(c.expected);
      expect(Object.getPrototypeOf(merged)).to.equal(null);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    });
  }
});

describe('query: readBoolean', () => {
  const cases: Array<{ name: string; value: unknown; expected?: boolean; error?: boolean }> = [
    { name: 'absent', value: undefined, expected: undefined },
    { name: 'null', value: null, expected: undefined },
    { name: 'empty string', value: '', expected: undefined },
    { name: 'true', value: true, expected: true },
    { name: 'false', value: false, expected: false },
    { name: '"true"', value: 'true', expected: true },
    { name: '"false"', value: 'false', expected: false },
    { name: '"FALSE"', value: 'FALSE', expected: false },
    { name: '"1"', value: '1', expected: true },
    { name: '"0"', value: '0', expected: false },
    { name: '1', value: 1, expected: true },
    { name: '0', value: 0, expected: false },
    { name: 'JSON-quoted "true"', value: '"true"', expected: true },
    { name: '"yes" is a 400', value: 'yes', error: true },
    { name: '2 is a 400', value: 2, error: true },
    { name: 'an object is a 400', value: {}, error: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const params = mergeParams({}, c.value === undefined ? {} : { cache: c.value });
      if (c.error) expectBadRequest(() => readBoolean(params, 'cache'), 'Invalid boolean in parameter "cache"');
      else expect(readBoolean(params, 'cache')).to.equal(c.expected);
    });
  }
});

describe('query: attr and eq', () => {
  const cases: Array<{ name: string; params: Record<string, unknown>; model?: string; expected?: Filter | null; error?: string[] }> = [
    { name: 'attr scalar is =', params: { attr: { status: 'active' } }, expected: cond('status', '=', 'active') },
    { name: 'eq is an alias', params: { eq: { status: 'active' } }, expected: cond('status', '=', 'active') },
    { name: 'attr and eq on different keys are ANDed', params: { attr: { status: 'active' }, eq: { featured: true } }, expected: and(cond('featured', '=', true), cond('status', '=', 'active')) },
    { name: 'attr wins over eq on the same key', params: { attr: { status: 'active' }, eq: { status: 'draft' } }, expected: cond('status', '=', 'active') },
    { name: 'an array means in', params: { attr: { status: ['active', 'draft'] } }, expected: cond('status', 'in', ['active', 'draft']) },
    { name: 'null means null', params: { attr: { description: null } }, expected: cond('description', 'null') },
    { name: 'a string number on a number field is typed', params: { attr: { price: '100' } }, expected: cond('price', '=', 100) },
    { name: 'an integer id from a JSON number', params: { attr: { category_id: 3 } }, expected: cond('category_id', '=', 3) },
    { name: 'JSON-encoded attr from the query string', params: { attr: '{"status":"draft"}' }, expected: cond('status', '=', 'draft') },
    { name: 'a string field keeps a number as text', params: { attr: { sku: 123 } }, expected: cond('sku', '=', '123') },
    { name: 'attr ANDed after oper', params: { oper: { and: ['price|>|1'] }, attr: { status: 'active' } }, expected: and(cond('price', '>', 1), cond('status', '=', 'active')) },
    { name: 'malformed JSON names attr', params: { attr: '{"status":}' }, error: ['Invalid JSON in parameter "attr".'] },
    { name: 'malformed JSON names eq', params: { eq: '{x' }, error: ['Invalid JSON in parameter "eq".'] },
    { name: 'attr that is not an object', params: { attr: '[1]' }, error: ['Parameter "attr" must be an object'] },
    { name: 'unknown field in attr', params: { attr: { colour: 'red' } }, error: ['Unknown field "colour" in attr'] },
    { name: 'unknown field in eq', params: { eq: { colour: 'red' } }, error: ['Unknown field "colour" in eq'] },
    { name: 'write-only field in attr', params: { attr: { api_token: 'x' } }, model: 'user', error: ['Unknown field "api_token" in attr'] },
    { name: 'dot path key in attr', params: { attr: { 'category.name': 'x' } }, error: ['Dot paths are not supported in attr'] },
    { name: 'object value in attr', params: { attr: { status: { $ne: 1 } } }, error: ['Invalid value for field "status"'] },
    { name: 'empty array in attr', params: { attr: { status: [] } }, error: ['Empty list'] },
    { name: 'bad number in attr', params: { attr: { price: 'abc' } }, error: ['Invalid number "abc" for field "price" in attr.'] },
    { name: '__proto__ key in attr', params: { attr: '{"__proto__":{"x":1}}' }, error: ['Key "__proto__" is not allowed in attr.'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const run = () => list(c.params, { model: c.model }).filter;
      if (c.error) expectBadRequest(run, ...c.error);
      else expect(run()).to.deep.equal(c.expected);
    });
  }
});
