import { expect } from 'chai';
import { expectBadRequest, forEachDriver, names } from '../support/contract-app';

/**
 * The sixteen operators and the syntax of condition strings (decisions 4-7), on the fixture:
 * Alpha Phone 100 active | beta phone 200 inactive desc=null | Gamma Laptop 1500.5 active |
 * Delta Book 20 draft | Epsilon Thing 0 active sku=00123 no category | Zeta Book 20 inactive.
 */
const ALL = ['Alpha Phone', 'Delta Book', 'Epsilon Thing', 'Gamma Laptop', 'Zeta Book', 'beta phone'];
const without = (...drop: string[]) => ALL.filter((n) => !drop.includes(n));

interface Case {
  title: string;
  oper: unknown;
  expected: string[];
}

const cases: Case[] = [
  // an object as the value of a group joins its members with that group's kind
  { title: 'or over an object: (A AND B) OR (C OR D)', oper: { or: { and: ['status|=|active', 'price|>|1000'], or: ['name|=|Delta Book', 'name|=|Zeta Book'] } }, expected: ['Delta Book', 'Gamma Laptop', 'Zeta Book'] },
  // comparison
  { title: '= on a string field', oper: { and: ['name|=|Gamma Laptop'] }, expected: ['Gamma Laptop'] },
  { title: '!= on a string field', oper: { and: ['status|!=|active'] }, expected: ['Delta Book', 'Zeta Book', 'beta phone'] },
  { title: '> on a number field', oper: { and: ['price|>|100'] }, expected: ['Gamma Laptop', 'beta phone'] },
  { title: '>= on a number field', oper: { and: ['price|>=|100'] }, expected: ['Alpha Phone', 'Gamma Laptop', 'beta phone'] },
  { title: '< on a number field', oper: { and: ['price|<|20'] }, expected: ['Epsilon Thing'] },
  { title: '<= on a number field', oper: { and: ['price|<=|20'] }, expected: ['Delta Book', 'Epsilon Thing', 'Zeta Book'] },
  { title: '= on a decimal number', oper: { and: ['price|=|1500.5'] }, expected: ['Gamma Laptop'] },
  { title: '= on a boolean field with true', oper: { and: ['featured|=|true'] }, expected: ['Alpha Phone', 'Gamma Laptop'] },
  { title: '= on an integer field with 0', oper: { and: ['stock|=|0'] }, expected: ['beta phone'] },
  // pattern matching
  { title: 'like is case-sensitive', oper: { and: ['name|like|%Phone%'] }, expected: ['Alpha Phone'] },
  { title: 'ilike is case-insensitive', oper: { and: ['name|ilike|%PHONE%'] }, expected: ['Alpha Phone', 'beta phone'] },
  { title: 'not like is case-sensitive', oper: { and: ['name|not like|%Phone%'] }, expected: without('Alpha Phone') },
  { title: 'not ilike is case-insensitive', oper: { and: ['name|not ilike|%phone%'] }, expected: without('Alpha Phone', 'beta phone') },
  { title: 'like with a prefix pattern', oper: { and: ['name|like|Ga%'] }, expected: ['Gamma Laptop'] },
  { title: 'like is anchored (no % means the whole value)', oper: { and: ['name|like|Phone'] }, expected: [] },
  { title: 'like with _ matching one character', oper: { and: ['name|like|_eta phone'] }, expected: ['beta phone'] },
  { title: 'like treats "." literally', oper: { and: ['description|like|a.b'] }, expected: ['Zeta Book'] },
  { title: 'like treats "(" and ")" literally', oper: { and: ['description|like|%(new)%'] }, expected: ['Alpha Phone'] },
  { title: 'like treats "*" literally', oper: { and: ['description|like|%*%'] }, expected: ['Delta Book'] },
  { title: 'like keeps commas inside the value', oper: { and: ['description|like|%Fast, light%'] }, expected: ['Gamma Laptop'] },
  { title: 'ilike treats "." literally', oper: { and: ['description|ilike|A.B'] }, expected: ['Zeta Book'] },
  // lists
  { title: 'in with [a,b]', oper: { and: ['status|in|[draft,inactive]'] }, expected: ['Delta Book', 'Zeta Book', 'beta phone'] },
  { title: 'in with a,b (no brackets)', oper: { and: ['status|in|draft,inactive'] }, expected: ['Delta Book', 'Zeta Book', 'beta phone'] },
  { title: 'in with one value', oper: { and: ['status|in|[draft]'] }, expected: ['Delta Book'] },
  { title: 'in on a number field', oper: { and: ['price|in|[0,200]'] }, expected: ['Epsilon Thing', 'beta phone'] },
  { title: 'not in', oper: { and: ['status|not in|[active,draft]'] }, expected: ['Zeta Book', 'beta phone'] },
  { title: 'between is inclusive on both ends', oper: { and: ['price|between|[20,200]'] }, expected: ['Alpha Phone', 'Delta Book', 'Zeta Book', 'beta phone'] },
  { title: 'between without brackets', oper: { and: ['price|between|20,100'] }, expected: ['Alpha Phone', 'Delta Book', 'Zeta Book'] },
  { title: 'not between excludes both ends', oper: { and: ['price|not between|[20,200]'] }, expected: ['Epsilon Thing', 'Gamma Laptop'] },
  // null
  { title: 'null with no trailing pipe', oper: { and: ['description|null'] }, expected: ['beta phone'] },
  { title: 'null with a trailing pipe', oper: { and: ['description|null|'] }, expected: ['beta phone'] },
  { title: 'not null', oper: { and: ['description|not null'] }, expected: without('beta phone') },
  { title: 'not null with a trailing pipe', oper: { and: ['description|not null|'] }, expected: without('beta phone') },
  { title: '=|null means IS NULL', oper: { and: ['description|=|null'] }, expected: ['beta phone'] },
  { title: '!=|null means IS NOT NULL', oper: { and: ['description|!=|null'] }, expected: without('beta phone') },
  { title: 'null on a foreign key', oper: { and: ['category_id|null'] }, expected: ['Epsilon Thing'] },
  // typing and syntax
  { title: 'a string field keeps 00123 as a string', oper: { and: ['sku|=|00123'] }, expected: ['Epsilon Thing'] },
  { title: 'the space form "price >= 100"', oper: { and: ['price >= 100'] }, expected: ['Alpha Phone', 'Gamma Laptop', 'beta phone'] },
  { title: 'the space form with a two-word operator', oper: { and: ['status not in [active,draft]'] }, expected: ['Zeta Book', 'beta phone'] },
  { title: 'operators in upper case', oper: { and: ['name|LIKE|%Phone%', 'status|IN|[active]'] }, expected: ['Alpha Phone'] },
  { title: 'operators in mixed case (Not Between)', oper: { and: ['price|Not Between|[20,200]'] }, expected: ['Epsilon Thing', 'Gamma Laptop'] },
  { title: 'whitespace around parts is trimmed', oper: { and: [' price | > | 100 '] }, expected: ['Gamma Laptop', 'beta phone'] },
  // logic
  { title: 'and of two conditions', oper: { and: ['status|=|active', 'price|>=|100'] }, expected: ['Alpha Phone', 'Gamma Laptop'] },
  { title: 'or of two conditions', oper: { or: ['price|=|0', 'stock|=|0'] }, expected: ['Epsilon Thing', 'beta phone'] },
  { title: 'or containing an and group', oper: { or: ['price|=|0', { and: ['status|=|active', 'featured|=|true'] }] }, expected: ['Alpha Phone', 'Epsilon Thing', 'Gamma Laptop'] },
  { title: 'and containing an or group', oper: { and: ['price|<=|200', { or: ['status|=|draft', 'stock|=|0'] }] }, expected: ['Delta Book', 'beta phone'] },
  { title: 'three nested levels', oper: { and: ['price|>=|0', { or: ['name|=|Zeta Book', { and: ['status|=|active', 'stock|<|5'] }] }] }, expected: ['Epsilon Thing', 'Zeta Book'] },
  { title: 'an object as the value of and (object form)', oper: { and: { or: ['price|=|0', 'price|=|200'] } }, expected: ['Epsilon Thing', 'beta phone'] },
  { title: 'sibling and and or keys are combined with AND', oper: { and: ['status|=|active'], or: ['price|=|0', 'price|=|1500.5'] }, expected: ['Epsilon Thing', 'Gamma Laptop'] },
];

forEachDriver('filters: operators and syntax', (ctx) => {
  before(async () => {
    await ctx.fixture();
  });

  for (const c of cases) {
    it(`${c.title}: ${JSON.stringify(c.oper)}`, async () => {
      const res = await ctx.get('/products', { oper: c.oper });
      expect(res.status, res.text).to.equal(200);
      expect(names(res.body.data)).to.deep.equal([...c.expected].sort());
    });
  }

  it('accepts oper as a JSON body on GET', async () => {
    const res = await ctx.getWithBody('/products', { oper: { and: ['price|>|100'] } });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Gamma Laptop', 'beta phone']);
  });

  it('a bad number on a number field is a 400 naming the field', async () => {
    expectBadRequest(await ctx.get('/products', { oper: { and: ['price|>|abc'] } }), 'price');
  });

  it('between with one value is a 400', async () => {
    expectBadRequest(await ctx.get('/products', { oper: { and: ['price|between|[20]'] } }), 'between');
  });

  it('between with three values is a 400', async () => {
    expectBadRequest(await ctx.get('/products', { oper: { and: ['price|between|[1,2,3]'] } }), 'between');
  });

  it('an unknown operator is a 400 naming it', async () => {
    expectBadRequest(await ctx.get('/products', { oper: { and: ['price|regex|^1'] } }), 'regex');
  });

  it('an unknown field in a condition is a 400 naming it', async () => {
    expectBadRequest(await ctx.get('/products', { oper: { and: ['colour|=|red'] } }), 'colour');
  });

  it('a condition with no operator is a 400', async () => {
    const res = await ctx.get('/products', { oper: { and: ['price'] } });
    expectBadRequest(res);
  });

  it('filters on the write-only api_token are a 400 naming it', async () => {
    expectBadRequest(await ctx.get('/users', { oper: { and: ['api_token|=|secret-ann'] } }), 'api_token');
  });

  it('a like pattern on users does not match across regex metacharacters', async () => {
    const res = await ctx.get('/users', { oper: { and: ['email|like|ann@example.test'] } });
    expect(res.status, res.text).to.equal(200);
    expect(names(res.body.data)).to.deep.equal(['Ann']);
    const res2 = await ctx.get('/users', { oper: { and: ['email|like|ann@example_test'] } });
    expect(names(res2.body.data)).to.deep.equal(['Ann']);
    const res3 = await ctx.get('/users', { oper: { and: ['email|like|.*'] } });
    expect(names(res3.body.data)).to.deep.equal([]);
  });
});
