import { expect } from 'chai';
import { matchesFilter } from '../../../lib/changes/match-filter';
import type { Filter } from '../../../lib/query/ast';
import type { ModelInfo } from '../../../lib/resource/model-info';

/** The change feed's in-memory filter: the drivers' semantics on one record as the feed carries it. */
const info = {
  name: 'product',
  key: 'id',
  fields: { id: { type: 'id' }, name: { type: 'string' }, price: { type: 'number' }, roles: { type: 'array' }, created_at: { type: 'date' }, note: { type: 'string' } },
} as unknown as ModelInfo;

const row = { id: 'AbC', name: 'Alpha Phone', price: 100, roles: ['admin', 'viewer'], created_at: '2026-11-22T06:10:00.123000Z', note: null };
const c = (field: string, operator: string, value?: unknown): Filter => ({ kind: 'condition', field, operator, value } as Filter);

describe('change feed filter matching', () => {
  const cases: Array<[string, Filter | null, boolean]> = [
    ['no filter', null, true],
    ['= on a string', c('name', '=', 'Alpha Phone'), true],
    ['!= matches null', c('note', '!=', 'x'), true],
    ['> on numbers', c('price', '>', 99), true],
    ['<= on numbers', c('price', '<=', 99), false],
    ['between inclusive', c('price', 'between', [100, 200]), true],
    ['not between', c('price', 'not between', [100, 200]), false],
    ['in', c('price', 'in', [1, 100]), true],
    ['not in matches null', c('note', 'not in', ['a']), true],
    ['like is anchored and case-sensitive', c('name', 'like', 'Alpha%'), true],
    ['like case', c('name', 'like', 'alpha%'), false],
    ['ilike', c('name', 'ilike', 'alpha_phone'), true],
    ['like escapes regex characters', c('name', 'like', 'Alpha.Phone'), false],
    ['null', c('note', 'null'), true],
    ['not null', c('note', 'not null'), false],
    ['= on an array means contains', c('roles', '=', 'viewer'), true],
    ['in on an array means contains any', c('roles', 'in', ['x', 'admin']), true],
    ['dates compare as instants', c('created_at', '>', new Date('2026-11-22T06:10:00.000Z')), true],
    ['ids compare case-insensitively', c('id', '=', 'abc'), true],
    ['and', { kind: 'and', filters: [c('price', '>', 1), c('name', '=', 'x')] }, false],
    ['or', { kind: 'or', filters: [c('price', '>', 1000), c('name', '=', 'Alpha Phone')] }, true],
    ['a relation filter never matches', { kind: 'related', relation: 'category', filter: null }, false],
  ];
  for (const [title, filter, expected] of cases) {
    it(`${title}: ${expected}`, () => {
      expect(matchesFilter(filter, row, info)).to.equal(expected);
    });
  }
});
