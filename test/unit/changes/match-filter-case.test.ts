import { expect } from 'chai';
import { matchesFilter } from '../../../lib/changes/match-filter';
import type { Filter } from '../../../lib/query/ast';
import type { ModelInfo } from '../../../lib/resource/model-info';

/**
 * Decision 73 in the change feed's matcher: `ilike`/`not ilike` under the drivers' one case rule
 * (Unicode simple lower case per code point), `like` case-sensitive. The same table runs against
 * both databases in test/contract/ilike-unicode.test.ts, so feed and lists agree.
 */
const info = { name: 'product', key: 'id', fields: { id: { type: 'id' }, name: { type: 'string' }, roles: { type: 'array', itemType: 'string' } } } as unknown as ModelInfo;
const c = (operator: string, value: string, field = 'name'): Filter => ({ kind: 'condition', field, operator, value } as Filter);

describe('change feed filter matching: ilike under the one case rule', () => {
  // stored, pattern, ilike matches
  const cases: Array<[string, string, boolean]> = [
    ['École', 'é%', true],
    ['école', 'ÉCOLE', true],
    ['CAFÉ', '%é', true],
    ['Straße', 'STRAẞE', true],
    ['STRAẞE', 'straße', true],
    ['Straße', 'strasse', false],
    ['ΣΟΦΙΑ', 'σοφια', true],
    ['ΟΔΟΣ', 'οδος', false],
    ['ΟΔΟΣ', 'οδοσ', true],
    ['Ärger', 'ä%', true],
    ['ПРИВЕТ', 'привет', true],
    ['Ёлка', 'ё_ка', true],
    ['İstanbul', 'istanbul', true],
    ['ISTANBUL', 'ıstanbul', false],
    ['ıi', 'II', false],
    ['Kelvin', '\u212aelvin', true],
    ['𐐀𐐁', '𐐨_', true],
    ['naïve', 'NA_VE', true],
  ];
  for (const [stored, pattern, expected] of cases) {
    it(`"${stored}" ilike "${pattern}" is ${expected}; not ilike the opposite; like only as written (no wildcards)`, () => {
      expect(matchesFilter(c('ilike', pattern), { name: stored }, info)).to.equal(expected);
      expect(matchesFilter(c('not ilike', pattern), { name: stored }, info)).to.equal(!expected);
      // without wildcards, like matches only the text as written
      if (!/[%_]/.test(pattern)) expect(matchesFilter(c('like', pattern), { name: stored }, info)).to.equal(stored === pattern);
    });
  }

  it('like stays case-sensitive on non-ASCII letters', () => {
    expect(matchesFilter(c('like', 'é%'), { name: 'École' }, info)).to.equal(false);
    expect(matchesFilter(c('like', 'É%'), { name: 'École' }, info)).to.equal(true);
    expect(matchesFilter(c('not like', 'é%'), { name: 'École' }, info)).to.equal(true);
  });

  it('_ is one code point, as the databases count', () => {
    expect(matchesFilter(c('like', 'a_b'), { name: 'a😀b' }, info)).to.equal(true);
    expect(matchesFilter(c('ilike', 'A_B'), { name: 'a😀b' }, info)).to.equal(true);
  });

  it('array elements, and null under not ilike', () => {
    expect(matchesFilter(c('ilike', 'ÉDITEUR', 'roles'), { roles: ['viewer', 'éditeur'] }, info)).to.equal(true);
    expect(matchesFilter(c('not ilike', 'x'), { name: null }, info)).to.equal(true);
  });
});
