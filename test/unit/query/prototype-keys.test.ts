import { expect } from 'chai';
import { BadRequestError } from '../../../lib/errors';
import { decodeParam } from '../../../lib/query/json-param';
import { parseQueryString } from '../../../lib/query/parse-query-string';
import { readParams } from '../../../lib/query/read-params';
import { forbiddenKeyIn } from '../../../lib/query/safe-keys';

/**
 * Decision 72: a prototype key (`__proto__`, `constructor`, `prototype`) in bracket notation at
 * any depth is a 400 naming it, as the JSON form is; as a parameter's own name it is an unknown
 * parameter (decision 64). Never dropped: a dropped filter widens the answer.
 */
const NAMES = ['__proto__', 'constructor', 'prototype'];
const LIST = { own: ['oper', 'attr', 'eq', 'select', 'relations', 'orderby', 'pagination', 'group_by', 'aggregate', 'hierarchy'], app: new Set<string>() };

function refusal(fn: () => unknown): BadRequestError {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(BadRequestError);
    return error as BadRequestError;
  }
  throw new Error('expected a 400');
}

describe('query: prototype keys (decision 72)', () => {
  // parameter, bracket path before the key, bracket path after it
  const PLACES: Array<[string, string, string]> = [
    ['filter', '', '[x]'],
    ['attr', '', ''],
    ['attr', '', '[status]'],
    ['eq', '', ''],
    ['oper', '', '[and][0]'],
    ['oper', '[and][0]', '[x]'],
    ['oper', '[category]', '[and][0]'],
    ['oper', '[or][0][and][1]', ''],
    ['group_by', '', ''],
    ['group_by', '[0]', ''],
    ['aggregate', '', '[0]'],
    ['aggregate', '[sum]', ''],
    ['orderby', '', ''],
    ['orderby', '[0]', ''],
    ['select', '', ''],
    ['relations', '', ''],
    ['relations', '[0]', '[x]'],
    ['pagination', '', ''],
    ['hierarchy', '', ''],
  ];
  for (const key of NAMES) {
    for (const [name, before, after] of PLACES) {
      const raw = `${name}${before}[${key}]${after}=1`;
      for (const encoded of [false, true]) {
        it(`${encoded ? 'percent-encoded ' : ''}${raw} is a 400 naming the key and the parameter`, () => {
          const text = encoded ? `${encodeURIComponent(`${name}${before}[${key}]${after}`)}=1` : raw;
          const error = refusal(() => parseQueryString(`select=name&${text}&attr[status]=active`));
          expect(error.message).to.equal(`Key "${key}" is not allowed in ${name}.`);
          expect(error.status).to.equal(400);
          expect(({} as Record<string, unknown>).x).to.equal(undefined);
        });
      }
    }
  }

  for (const key of NAMES) {
    it(`?${key}=1 and ?${key}[x]=1 are unknown parameters, on a checked route and on one the table does not know`, () => {
      for (const query of [`${key}=1`, `${key}[x]=1&attr[status]=active`, `attr[status]=active&${key}`]) {
        const error = refusal(() => readParams({ url: `/products?${query}`, body: undefined }, LIST, true));
        expect(error.message).to.match(new RegExp(`^Unknown parameter "${key}"\\. Accepted: oper,`));
        const unchecked = refusal(() => readParams({ url: `/products?${query}`, body: undefined }, null, true));
        expect(unchecked.message).to.include(`"${key}"`);
      }
      // a write's query string is checked too (its body is data)
      expect(refusal(() => readParams({ url: `/products?${key}=1`, body: {} }, { own: [], app: new Set() }, false)).message).to.include(`"${key}"`);
    });

    it(`a read body: "${key}" at the top is unknown, below a parameter a 400 naming it`, () => {
      const top = refusal(() => readParams({ url: '/products', body: JSON.parse(`{"${key}": {"x": 1}, "select": "name"}`) }, LIST, true));
      expect(top.message).to.include(`Unknown parameter "${key}"`);
      for (const [name, json] of [['pagination', `{"${key}": {"page": 2}}`], ['hierarchy', `{"a": [{"${key}": 1}]}`], ['oper', `{"and": [{"or": [{"${key}": ["x|=|1"]}]}]}`]]) {
        const nested = refusal(() => readParams({ url: '/products', body: JSON.parse(`{"${name}": ${json}}`) }, LIST, true));
        expect(nested.message).to.equal(`Key "${key}" is not allowed in ${name}.`);
      }
    });

    it(`a JSON-encoded value holding "${key}" at any depth is a 400 naming it`, () => {
      for (const json of [`{"${key}": 1}`, `{"page": {"${key}": 2}}`, `[{"a": [{"${key}": null}]}]`]) {
        expect(refusal(() => decodeParam('pagination', json)).message).to.equal(`Key "${key}" is not allowed in pagination.`);
      }
    });
  }

  it('names as values are values: select[]=constructor, attr[name]=__proto__, a list index', () => {
    expect(parseQueryString('select[]=constructor&attr[name]=__proto__&oper[and][0]=name|=|prototype')).to.deep.equal({
      select: ['constructor'],
      attr: { name: '__proto__' },
      oper: { and: ['name|=|prototype'] },
    });
    expect(decodeParam('select', '["constructor", "prototype"]')).to.deep.equal(['constructor', 'prototype']);
  });

  it('forbiddenKeyIn finds a key at any depth, and not in array indices or values', () => {
    expect(forbiddenKeyIn(JSON.parse('{"a": [{"b": {"constructor": 1}}]}'))).to.equal('constructor');
    expect(forbiddenKeyIn(['__proto__', { a: 'prototype' }])).to.equal(null);
    expect(forbiddenKeyIn('constructor')).to.equal(null);
  });
});
