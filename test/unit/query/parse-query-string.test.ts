import { expect } from 'chai';
import querystring from 'node:querystring';
import { BadRequestError } from '../../../lib/errors';
import { checkParams } from '../../../lib/query/check-params';
import { decodeParam } from '../../../lib/query/json-param';
import { parseQueryString, rawQueryOf } from '../../../lib/query/parse-query-string';

function refused(fn: () => unknown, words: string[]): void {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error, 'a 400').to.be.instanceOf(BadRequestError);
  for (const word of words) expect((error as Error).message).to.include(word);
}

describe('query: parseQueryString (bracket notation, decision 64)', () => {
  const cases: Array<{ name: string; raw: string; expected: Record<string, unknown> }> = [
    { name: 'empty', raw: '', expected: {} },
    { name: 'plain values stay text, + is a space', raw: 'select=name&cache=false&filename=a+b%20c', expected: { select: 'name', cache: 'false', filename: 'a b c' } },
    { name: 'a repeated plain key is a list', raw: 'select=a&select=b', expected: { select: ['a', 'b'] } },
    { name: 'a key without = is empty text', raw: 'cache', expected: { cache: '' } },
    { name: 'oper[and][i] is a list in index order', raw: 'oper[and][1]=price|>|5&oper[and][0]=name|like|A%25', expected: { oper: { and: ['name|like|A%', 'price|>|5'] } } },
    { name: 'percent-encoded brackets (as qs sends them)', raw: 'oper%5Band%5D%5B0%5D=name%7Clike%7CA%25&attr%5Bstatus%5D=active', expected: { oper: { and: ['name|like|A%'] }, attr: { status: 'active' } } },
    { name: 'select[] appends', raw: 'select[]=name&select[]=price', expected: { select: ['name', 'price'] } },
    { name: 'orderby[i][field]', raw: 'orderby[0][price]=desc&orderby[1][name]=asc', expected: { orderby: [{ price: 'desc' }, { name: 'asc' }] } },
    { name: 'orderby[][field] appends one object each', raw: 'orderby[][price]=desc&orderby[][name]=asc', expected: { orderby: [{ price: 'desc' }, { name: 'asc' }] } },
    { name: 'nested groups and relation keys', raw: 'oper[and][0]=a|=|1&oper[and][1][or][0]=b|=|2&oper[category.parent][and][0]=name|=|X', expected: { oper: { and: ['a|=|1', { or: ['b|=|2'] }], 'category.parent': { and: ['name|=|X'] } } } },
    { name: 'gaps close (qs)', raw: 'select[3]=b&select[1]=a', expected: { select: ['a', 'b'] } },
    { name: 'a repeated bracket key is a list (attr IN)', raw: 'attr[status]=a&attr[status]=b', expected: { attr: { status: ['a', 'b'] } } },
    { name: 'a bracketed null is null', raw: 'attr[description]=null&pagination[page]=2', expected: { attr: { description: null }, pagination: { page: '2' } } },
    { name: 'indices and names mixed: an object', raw: 'a[0]=x&a[k]=y', expected: { a: { 0: 'x', k: 'y' } } },
    { name: 'a prototype name as a parameter is kept for the route\'s check, never as a prototype', raw: '__proto__[x]=1&attr[ok]=4&prototype=5', expected: JSON.parse('{"__proto__": "1", "attr": {"ok": "4"}, "prototype": "5"}') as Record<string, unknown> },
    { name: 'a key that is not name+brackets is a plain name', raw: 'a[b=1&c]d=2&e[f]g=3', expected: { 'a[b': '1', 'c]d': '2', 'e[f]g': '3' } },
    { name: 'invalid escapes stay as they are', raw: 'filename=%zz%41', expected: { filename: '%zzA' } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const parsed = parseQueryString(c.raw);
      expect(parsed).to.deep.equal(c.expected);
      expect(({} as Record<string, unknown>).x).to.equal(undefined);
    });
  }

  it('an index past 999 is a 400 naming the parameter (no huge list is made)', () => {
    refused(() => parseQueryString('oper[and][99999999]=a|=|1'), ['"oper"', '99999999']);
    refused(() => parseQueryString('select[1000]=a'), ['"select"']);
    expect(parseQueryString('select[999]=a')).to.deep.equal({ select: ['a'] });
  });

  it('a value and brackets at the same place is a 400', () => {
    refused(() => parseQueryString('attr={"a":1}&attr[status]=x'), ['"attr"']);
    refused(() => parseQueryString('oper[and][0][or][0]=a|=|1&oper[and][0]=b|=|2'), ['"oper"']);
  });

  it('depth and pair count are bounded', () => {
    refused(() => parseQueryString(`oper${'[and]'.repeat(40)}=x`), ['"oper"', 'deeper']);
    refused(() => parseQueryString(Array.from({ length: 1001 }, (_, i) => `a${i}=1`).join('&')), ['1000']);
    expect(Object.keys(parseQueryString(Array.from({ length: 1000 }, (_, i) => `a${i}=1`).join('&')))).to.have.length(1000);
  });

  it('plain keys read as Express\'s simple parser reads them', () => {
    const raw = 'a=1&b=x+y&a=2&c=%E0%A4%A&d=&e';
    expect(parseQueryString(raw)).to.deep.equal({ ...querystring.parse(raw) });
  });

  it('rawQueryOf takes what follows the first ?', () => {
    expect(rawQueryOf('/products?a=1?b')).to.equal('a=1?b');
    expect(rawQueryOf('/products')).to.equal('');
  });
});

describe('query: checkParams', () => {
  const accepted = { own: ['oper', 'select'], app: new Set(['token']) };

  it('known and allowed names pass', () => {
    checkParams({ oper: 'x', token: 't' }, JSON.parse('{"select": "name"}'), accepted);
  });

  it('an unknown name in the query is a 400 naming it and listing the accepted ones', () => {
    refused(() => checkParams({ opr: 'x', sort: 'y' }, undefined, accepted), ['Unknown parameters "opr", "sort"', 'Accepted: oper, select, token.']);
  });

  it('an unknown name in a read body is a 400; a route without parameters says so', () => {
    refused(() => checkParams({}, { limit: 5 }, accepted), ['Unknown parameter "limit"']);
    refused(() => checkParams({ x: '1' }, undefined, { own: [], app: new Set() }), ['"x"', 'takes no query parameters']);
  });
});

describe('query: decodeParam literals', () => {
  it('JSON literals are decoded; numbers JSON cannot read (leading zeros) stay text, not a 500', () => {
    expect(decodeParam('cache_ttl', '60')).to.equal(60);
    expect(decodeParam('cache', 'false')).to.equal(false);
    expect(decodeParam('x', '-0.5e2')).to.equal(-50);
    for (const text of ['007', '-01', '00', '1.']) expect(decodeParam('select', text)).to.equal(text);
  });
});
