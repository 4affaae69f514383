import { expect } from 'chai';
import type { Filter } from '../../../lib/query/ast';
import type { IdType } from '../../../lib/resource/model-info';
import { cond, expectBadRequest, operFilter } from './helpers';

interface Case {
  name: string;
  condition: string;
  model?: string;
  idType?: IdType;
  expected?: Filter;
  error?: string[];
}

const OID = '65a1b2c3d4e5f6a7b8c9d0e1';

const cases: Case[] = [
  // every operator, pipe form
  { name: '= on a string', condition: 'name|=|Gamma Laptop', expected: cond('name', '=', 'Gamma Laptop') },
  { name: '!= on a string', condition: 'status|!=|active', expected: cond('status', '!=', 'active') },
  { name: '> on a number', condition: 'price|>|100', expected: cond('price', '>', 100) },
  { name: '>= on a number', condition: 'price|>=|100', expected: cond('price', '>=', 100) },
  { name: '< on a number', condition: 'price|<|20', expected: cond('price', '<', 20) },
  { name: '<= on a number', condition: 'price|<=|20.5', expected: cond('price', '<=', 20.5) },
  { name: 'like keeps the pattern string', condition: 'name|like|%Phone%', expected: cond('name', 'like', '%Phone%') },
  { name: 'not like', condition: 'name|not like|%Phone%', expected: cond('name', 'not like', '%Phone%') },
  { name: 'ilike', condition: 'name|ilike|%phone%', expected: cond('name', 'ilike', '%phone%') },
  { name: 'not ilike', condition: 'name|not ilike|%phone%', expected: cond('name', 'not ilike', '%phone%') },
  { name: 'in with brackets', condition: 'status|in|[draft,inactive]', expected: cond('status', 'in', ['draft', 'inactive']) },
  { name: 'in without brackets', condition: 'status|in|draft,inactive', expected: cond('status', 'in', ['draft', 'inactive']) },
  { name: 'in with a JSON array', condition: 'status|in|["draft","inactive"]', expected: cond('status', 'in', ['draft', 'inactive']) },
  { name: 'in with one value', condition: 'status|in|[draft]', expected: cond('status', 'in', ['draft']) },
  { name: 'in on a number field casts each value', condition: 'price|in|[0, 200]', expected: cond('price', 'in', [0, 200]) },
  { name: 'not in', condition: 'status|not in|[active,draft]', expected: cond('status', 'not in', ['active', 'draft']) },
  { name: 'between', condition: 'price|between|[20,200]', expected: cond('price', 'between', [20, 200]) },
  { name: 'between without brackets', condition: 'price|between|20,100', expected: cond('price', 'between', [20, 100]) },
  { name: 'not between', condition: 'price|not between|[20,200]', expected: cond('price', 'not between', [20, 200]) },
  { name: 'null without trailing pipe', condition: 'description|null', expected: cond('description', 'null') },
  { name: 'null with trailing pipe', condition: 'description|null|', expected: cond('description', 'null') },
  { name: 'not null', condition: 'description|not null', expected: cond('description', 'not null') },
  { name: 'not null with trailing pipe', condition: 'description|not null|', expected: cond('description', 'not null') },
  { name: '=|null means null', condition: 'description|=|null', expected: cond('description', 'null') },
  { name: '!=|null means not null', condition: 'description|!=|null', expected: cond('description', 'not null') },
  { name: '=|NULL in upper case means null', condition: 'category_id|=|NULL', expected: cond('category_id', 'null') },
  { name: 'null inside an in list means "or is null"', condition: 'category_id|in|[7,null]', expected: cond('category_id', 'in', [7, null]) },
  // syntax
  { name: 'operators are case-insensitive', condition: 'name|LIKE|%P%', expected: cond('name', 'like', '%P%') },
  { name: 'mixed-case two-word operator', condition: 'price|Not Between|[1,2]', expected: cond('price', 'not between', [1, 2]) },
  { name: 'extra spaces inside a two-word operator', condition: 'status|not   in|[a]', expected: cond('status', 'not in', ['a']) },
  { name: 'whitespace around parts is trimmed', condition: ' price | > | 100 ', expected: cond('price', '>', 100) },
  { name: 'a value may contain pipes', condition: 'name|=|a|b', expected: cond('name', '=', 'a|b') },
  { name: 'like keeps commas', condition: 'description|like|%Fast, light%', expected: cond('description', 'like', '%Fast, light%') },
  { name: '= keeps commas (no list)', condition: 'name|=|a,b', expected: cond('name', '=', 'a,b') },
  { name: 'space form >=', condition: 'price >= 100', expected: cond('price', '>=', 100) },
  { name: 'space form without spaces', condition: 'price>=100', expected: cond('price', '>=', 100) },
  { name: 'space form two-word operator', condition: 'status not in [active,draft]', expected: cond('status', 'not in', ['active', 'draft']) },
  { name: 'space form like with spaces in the value', condition: 'name like %Gamma L%', expected: cond('name', 'like', '%Gamma L%') },
  { name: 'space form not null', condition: 'description not null', expected: cond('description', 'not null') },
  { name: 'space form null', condition: 'description null', expected: cond('description', 'null') },
  { name: 'space form = with a multi-word value', condition: 'name = Gamma Laptop', expected: cond('name', '=', 'Gamma Laptop') },
  // typing
  { name: 'a string field keeps 00123', condition: 'sku|=|00123', expected: cond('sku', '=', '00123') },
  { name: 'integer field', condition: 'stock|=|0', expected: cond('stock', '=', 0) },
  { name: 'boolean true', condition: 'featured|=|true', expected: cond('featured', '=', true) },
  { name: 'boolean 0', condition: 'featured|=|0', expected: cond('featured', '=', false) },
  { name: 'boolean FALSE', condition: 'featured|!=|FALSE', expected: cond('featured', '!=', false) },
  { name: 'date field becomes a Date', condition: 'created_at|>=|2026-01-02T03:04:05Z', expected: cond('created_at', '>=', new Date('2026-01-02T03:04:05Z')) },
  { name: 'date between', condition: 'created_at|between|[2026-01-01,2026-02-01]', expected: cond('created_at', 'between', [new Date('2026-01-01'), new Date('2026-02-01')]) },
  { name: 'integer id', condition: 'category_id|=|7', expected: cond('category_id', '=', 7) },
  { name: 'integer id list', condition: 'id|in|[1,2,3]', expected: cond('id', 'in', [1, 2, 3]) },
  { name: 'objectId lowercased', condition: `category_id|=|${OID.toUpperCase()}`, idType: 'objectId', expected: cond('category_id', '=', OID) },
  { name: 'objectId list', condition: `id|in|[${OID},${OID}]`, idType: 'objectId', expected: cond('id', 'in', [OID, OID]) },
  { name: 'array field = means contains (item type)', condition: 'roles|=|admin', model: 'user', expected: cond('roles', '=', 'admin') },
  { name: 'array field in', condition: 'roles|in|[admin,editor]', model: 'user', expected: cond('roles', 'in', ['admin', 'editor']) },
  { name: 'negative and exponent numbers', condition: 'price|>|-1e2', expected: cond('price', '>', -100) },
  // errors
  { name: 'bad number names the field', condition: 'price|>|abc', error: ['price', 'abc'] },
  { name: 'empty number names the field', condition: 'price|=|', error: ['price'] },
  { name: 'decimal on an integer field', condition: 'stock|=|1.5', error: ['stock', 'integer'] },
  { name: 'bad boolean', condition: 'featured|=|yes', error: ['featured', 'boolean'] },
  { name: 'bad date', condition: 'created_at|>|yesterday', error: ['created_at', 'date'] },
  { name: 'bad integer id', condition: 'category_id|=|abc', error: ['category_id'] },
  { name: 'bad objectId', condition: 'category_id|=|123', idType: 'objectId', error: ['category_id'] },
  { name: 'bad number inside a list', condition: 'price|in|[1,x]', error: ['price', '"x"'] },
  { name: 'between with one value', condition: 'price|between|[20]', error: ['between', 'exactly two'] },
  { name: 'between with three values', condition: 'price|between|[1,2,3]', error: ['between'] },
  { name: 'not between with one value', condition: 'price|not between|5', error: ['not between'] },
  { name: 'in with an empty list', condition: 'status|in|[]', error: ['in', 'status'] },
  { name: 'unknown operator names it and lists the allowed', condition: 'price|regex|^1', error: ['Operator "regex" is not allowed. Allowed operators: =, !=, >', 'not between'] },
  { name: 'unknown operator in the space form', condition: 'price regex ^1', error: ['Operator "regex" is not allowed'] },
  { name: 'unknown field', condition: 'colour|=|red', error: ['Unknown field "colour" in oper. Allowed fields: id, name'] },
  { name: 'write-only field is unknown', condition: 'api_token|=|x', model: 'user', error: ['Unknown field "api_token"'] },
  { name: 'write-only not listed as allowed', condition: 'nope|=|x', model: 'user', error: ['Allowed fields: id, name, email, roles, is_superuser, created_at, updated_at.'] },
  { name: 'prototype field name is unknown', condition: 'constructor|=|x', error: ['Unknown field "constructor"'] },
  { name: 'no operator', condition: 'price', error: ['Invalid condition "price"'] },
  { name: 'empty operator', condition: 'price||1', error: ['Invalid condition'] },
  { name: 'empty field', condition: '|=|1', error: ['Invalid condition'] },
  { name: 'operator without a value', condition: 'price|=', error: ['needs a value'] },
  { name: 'null with a value', condition: 'description|null|x', error: ['takes no value'] },
  { name: 'like on a number field', condition: 'price|like|1%', error: ['like', 'price'] },
  { name: 'dot path field in a condition', condition: 'category.name|=|x', error: ['Unknown field "category.name"'] },
];

describe('query: condition strings', () => {
  for (const c of cases) {
    it(c.name, () => {
      const options = { model: c.model, idType: c.idType };
      if (c.error) expectBadRequest(() => operFilter({ and: [c.condition] }, options), ...c.error);
      else expect(operFilter({ and: [c.condition] }, options)).to.deep.equal(c.expected);
    });
  }

  it('an operator outside a configured allowlist is a 400', () => {
    expectBadRequest(() => operFilter({ and: ['name|like|x%'] }, { config: { operators: ['=', '!='] } }), 'Operator "like" is not allowed. Allowed operators: =, !=.');
  });

  it('=|null needs the null operator in the allowlist', () => {
    expectBadRequest(() => operFilter({ and: ['name|=|null'] }, { config: { operators: ['='] } }), 'Operator "null" is not allowed');
  });
});
