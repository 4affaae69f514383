import { expect } from 'chai';
import type { RestConfig } from '../../../lib/config';
import { encodeCursor } from '../../../lib/query';
import { CURSOR_OF_ANOTHER_QUERY } from '../../../lib/query/cursor';
import type { OrderKey, Page } from '../../../lib/query/ast';
import { expectBadRequest, list } from './helpers';

const key = (field: string, direction: 'asc' | 'desc' = 'asc', relations: string[] = []): OrderKey => ({ relations, field, direction });
const byId = key('id');

describe('query: orderby', () => {
  const cases: Array<{ name: string; orderby: unknown; model?: string; config?: Partial<RestConfig>; expected?: OrderKey[]; error?: string[] }> = [
    { name: 'default order is the primary key', orderby: undefined, expected: [byId] },
    { name: 'an array with one key, id appended', orderby: [{ price: 'asc' }], expected: [key('price'), byId] },
    { name: 'descending', orderby: [{ price: 'desc' }], expected: [key('price', 'desc'), byId] },
    { name: 'a single object', orderby: { price: 'desc' }, expected: [key('price', 'desc'), byId] },
    { name: 'an object with several keys keeps their order', orderby: { status: 'asc', price: 'desc' }, expected: [key('status'), key('price', 'desc'), byId] },
    { name: 'several objects', orderby: [{ price: 'desc' }, { name: 'asc' }], expected: [key('price', 'desc'), key('name'), byId] },
    { name: 'JSON-encoded', orderby: '[{"price":"desc"},{"name":"asc"}]', expected: [key('price', 'desc'), key('name'), byId] },
    { name: 'direction in any case', orderby: [{ price: 'DESC' }, { name: 'Asc' }], expected: [key('price', 'desc'), key('name'), byId] },
    { name: 'id already present is not appended', orderby: [{ id: 'desc' }], expected: [key('id', 'desc')] },
    { name: 'duplicate keys keep the first', orderby: [{ price: 'desc' }, { price: 'asc' }], expected: [key('price', 'desc'), byId] },
    { name: 'a belongsTo relation field', orderby: [{ 'category.name': 'asc' }], expected: [key('name', 'asc', ['category']), byId] },
    { name: 'a two-level to-one path', orderby: [{ 'category.parent.name': 'desc' }], expected: [key('name', 'desc', ['category', 'parent']), byId] },
    { name: 'a to-one chain of REST_MAX_RELATION_DEPTH relations', orderby: [{ 'category.parent.parent.name': 'asc' }], expected: [key('name', 'asc', ['category', 'parent', 'parent']), byId] },
    { name: 'a longer to-one chain is a 400 naming the limit', orderby: [{ 'category.parent.parent.parent.name': 'asc' }], error: ['goes through 4 relations', 'REST_MAX_RELATION_DEPTH'] },
    { name: 'a 10,000-relation chain is refused before it is resolved', orderby: [{ [`category.${'parent.'.repeat(10_000)}name`]: 'asc' }], error: ['goes through 10001 relations'] },
    { name: 'unknown field dropped when not strict', orderby: [{ colour: 'asc' }, { price: 'asc' }], config: { strictColumns: false }, expected: [key('price'), byId] },
    { name: 'bad direction', orderby: [{ price: 'up' }], error: ['Invalid direction "up" for orderby field "price"; use asc or desc.'] },
    { name: 'numeric direction', orderby: [{ price: 1 }], error: ['Invalid direction "1"'] },
    { name: 'unknown field', orderby: [{ colour: 'asc' }], error: ['Unknown field "colour" in orderby'] },
    { name: 'write-only field', orderby: [{ api_token: 'asc' }], model: 'user', error: ['Unknown field "api_token"'] },
    { name: 'write-only field even when not strict', orderby: [{ api_token: 'asc' }], model: 'user', config: { strictColumns: false }, error: ['api_token'] },
    { name: 'unknown relation in a sort path', orderby: [{ 'maker.name': 'asc' }], error: ['Relation "maker" is not allowed on product'] },
    { name: 'a to-many relation is not a sort key', orderby: [{ 'reviews.rating': 'asc' }], error: ['Relation "reviews" cannot be used in orderby'] },
    { name: 'a many-to-many relation is not a sort key', orderby: [{ 'tags.name': 'asc' }], error: ['Relation "tags" cannot be used in orderby'] },
    { name: 'unknown field on the related model', orderby: [{ 'category.colour': 'asc' }], error: ['Unknown field "colour" in orderby (relation "category")'] },
    { name: 'malformed JSON', orderby: '[{"price":"asc"}', error: ['Invalid JSON in parameter "orderby".'] },
    { name: 'a plain string', orderby: 'price', error: ['Parameter "orderby" must be'] },
    { name: '__proto__ key', orderby: '[{"__proto__":"asc"}]', error: ['Key "__proto__" is not allowed in orderby.'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const run = () => list({ orderby: c.orderby }, { model: c.model, config: c.config }).order;
      if (c.error) expectBadRequest(run, ...c.error);
      else expect(run()).to.deep.equal(c.expected);
    });
  }
});

describe('query: pagination', () => {
  const cases: Array<{ name: string; pagination: unknown; config?: Partial<RestConfig>; expected?: Page | null; error?: string[] }> = [
    { name: 'absent: unpaginated', pagination: undefined, expected: null },
    { name: 'empty object: page 1, default size', pagination: {}, expected: { kind: 'offset', page: 1, size: 15 } },
    { name: 'page and pageSize', pagination: { page: 2, pageSize: 5 }, expected: { kind: 'offset', page: 2, size: 5 } },
    { name: 'pagesize spelling', pagination: { page: 3, pagesize: 4 }, expected: { kind: 'offset', page: 3, size: 4 } },
    { name: 'numeric strings', pagination: { page: '2', pageSize: '10' }, expected: { kind: 'offset', page: 2, size: 10 } },
    { name: 'JSON-encoded', pagination: '{"page":2,"pageSize":3}', expected: { kind: 'offset', page: 2, size: 3 } },
    { name: 'size clamped to the maximum', pagination: { pageSize: 5000 }, expected: { kind: 'offset', page: 1, size: 1000 } },
    { name: 'configured default and maximum', pagination: { pageSize: 50 }, config: { maxPageSize: 20 }, expected: { kind: 'offset', page: 1, size: 20 } },
    { name: 'configured default size', pagination: { page: 1 }, config: { defaultPageSize: 7 }, expected: { kind: 'offset', page: 1, size: 7 } },
    { name: 'infinity true: cursor mode', pagination: { infinity: true, pageSize: 2 }, expected: { kind: 'cursor', size: 2, after: null } },
    { name: 'infinity "true" string', pagination: '{"infinity":"true","pageSize":3}', expected: { kind: 'cursor', size: 3, after: null } },
    { name: 'infinity false: offset', pagination: { infinity: false, page: 2 }, expected: { kind: 'offset', page: 2, size: 15 } },
    { name: 'page 0', pagination: { page: 0 }, error: ['page', 'at least 1'] },
    { name: 'pageSize 0', pagination: { pageSize: 0 }, error: ['pageSize', 'at least 1'] },
    { name: 'negative page', pagination: { page: '-1' }, error: ['at least 1'] },
    { name: 'page not a number', pagination: { page: 'two' }, error: ['Invalid page "two"'] },
    { name: 'fractional page size', pagination: { pageSize: 2.5 }, error: ['Invalid pageSize'] },
    { name: 'bad infinity', pagination: { infinity: 'sure' }, error: ['infinity'] },
    { name: 'malformed JSON', pagination: '{page:1}', error: ['Invalid JSON in parameter "pagination".'] },
    { name: 'not an object', pagination: '[1]', error: ['Parameter "pagination" must be an object'] },
    { name: 'a cursor with infinity false', pagination: { infinity: false, cursor: 'abc' }, error: ['cursor'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const run = () => list({ pagination: c.pagination }, { config: c.config });
      if (c.error) expectBadRequest(run, ...c.error);
      else {
        const q = run();
        expect(q.page).to.deep.equal(c.expected);
        // paginated: no cap; unpaginated: the cap plus one row (to tell a cut list)
        expect(q.limit).to.equal(c.expected ? null : 1001);
      }
    });
  }

  it('forFirst: no page, limit 1, pagination not read', () => {
    const q = list({ pagination: { page: 3 }, oper: 'price|>|1' }, { forFirst: true });
    expect(q.page).to.equal(null);
    expect(q.limit).to.equal(1);
    expect(q.model).to.equal('product');
  });
});

describe('query: cursors', () => {
  const base = { oper: { and: ['price|>=|0'] }, orderby: [{ created_at: 'desc' }, { price: 'asc' }] };
  const first = () => list({ ...base, pagination: { infinity: true, pageSize: 2 } });
  const when = new Date('2026-03-04T05:06:07.123Z');
  const next = (cursor: unknown, params: Record<string, unknown> = base) => list({ ...params, pagination: { infinity: true, pageSize: 2, cursor } });

  it('round trip restores the values, Dates included', () => {
    const cursor = encodeCursor([when, 20, 7], first());
    expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
    expect(next(cursor).page).to.deep.equal({ kind: 'cursor', size: 2, after: [when, 20, 7] });
  });

  it('round trip keeps nulls', () => {
    const cursor = encodeCursor([null, null, 7], first());
    expect(next(cursor).page).to.deep.equal({ kind: 'cursor', size: 2, after: [null, null, 7] });
  });

  it('a cursor alone selects cursor mode', () => {
    const cursor = encodeCursor([when, 20, 7], first());
    const q = list({ ...base, pagination: { cursor } });
    expect(q.page).to.deep.equal({ kind: 'cursor', size: 15, after: [when, 20, 7] });
  });

  it('relation sort keys restore by the related field type', () => {
    const params = { orderby: [{ 'category.created_at': 'asc' }] };
    const q = list({ ...params, pagination: { infinity: true } });
    const cursor = encodeCursor([when, 3], q);
    expect(list({ ...params, pagination: { infinity: true, cursor } }).page).to.deep.equal({ kind: 'cursor', size: 15, after: [when, 3] });
  });

  it('objectId keys round trip as strings', () => {
    const id = '65a1b2c3d4e5f6a7b8c9d0e1';
    const q = list({ pagination: { infinity: true } }, { idType: 'objectId' });
    const cursor = encodeCursor([id], q);
    expect(list({ pagination: { infinity: true, cursor } }, { idType: 'objectId' }).page).to.deep.equal({ kind: 'cursor', size: 15, after: [id] });
  });

  const bad: Array<{ name: string; cursor: () => unknown; params?: Record<string, unknown> }> = [
    { name: 'not base64url', cursor: () => 'not*a*cursor' },
    { name: 'base64url of garbage', cursor: () => Buffer.from('garbage').toString('base64url') },
    { name: 'JSON without the fields', cursor: () => Buffer.from('{"hello":"world"}').toString('base64url') },
    { name: 'a JSON array', cursor: () => Buffer.from('[1,2]').toString('base64url') },
    { name: 'a number instead of a string', cursor: () => 12 },
    {
      name: 'tampered fingerprint',
      cursor: () => {
        const payload = JSON.parse(Buffer.from(encodeCursor([when, 20, 7], first()), 'base64url').toString()) as { f: string };
        payload.f = 'x'.repeat(22);
        return Buffer.from(JSON.stringify(payload)).toString('base64url');
      },
    },
    {
      name: 'tampered value type (string for a number key)',
      cursor: () => {
        const payload = JSON.parse(Buffer.from(encodeCursor([when, 20, 7], first()), 'base64url').toString()) as { v: unknown[] };
        payload.v[1] = 'twenty';
        return Buffer.from(JSON.stringify(payload)).toString('base64url');
      },
    },
    {
      name: 'tampered date value',
      cursor: () => {
        const payload = JSON.parse(Buffer.from(encodeCursor([when, 20, 7], first()), 'base64url').toString()) as { v: unknown[] };
        payload.v[0] = 'not a date';
        return Buffer.from(JSON.stringify(payload)).toString('base64url');
      },
    },
    {
      name: 'wrong number of values',
      cursor: () => {
        const payload = JSON.parse(Buffer.from(encodeCursor([when, 20, 7], first()), 'base64url').toString()) as { v: unknown[] };
        payload.v.pop();
        return Buffer.from(JSON.stringify(payload)).toString('base64url');
      },
    },
    { name: 'reused with another filter', cursor: () => encodeCursor([when, 20, 7], first()), params: { ...base, oper: { and: ['price|>=|1'] } } },
    { name: 'reused with another order', cursor: () => encodeCursor([when, 20, 7], first()), params: { ...base, orderby: [{ created_at: 'asc' }, { price: 'asc' }] } },
    { name: 'reused with an added attr filter', cursor: () => encodeCursor([when, 20, 7], first()), params: { ...base, attr: { status: 'active' } } },
    { name: 'reused on another model', cursor: () => encodeCursor([7], list({ pagination: { infinity: true } }, { model: 'tag' })), params: {} },
  ];
  // decision 78: a cursor of another query (its fingerprint differs) says so; a malformed one is invalid
  const another = (name: string) => name === 'tampered fingerprint' || name.startsWith('reused');
  for (const c of bad) {
    it(`400 ${another(c.name) ? 'cursor of another query' : 'Invalid cursor'}: ${c.name}`, () => {
      const error = expectBadRequest(() => next(c.cursor(), c.params), another(c.name) ? CURSOR_OF_ANOTHER_QUERY : 'Invalid cursor.');
      expect(error.parameter).to.equal('cursor');
    });
  }

  it('the page size does not change the fingerprint', () => {
    const cursor = encodeCursor([when, 20, 7], first());
    expect(list({ ...base, pagination: { infinity: true, pageSize: 9, cursor } }).page).to.deep.equal({ kind: 'cursor', size: 9, after: [when, 20, 7] });
  });

  it('select and relations do not change the fingerprint', () => {
    const cursor = encodeCursor([when, 20, 7], first());
    const q = list({ ...base, select: 'name', relations: 'category', pagination: { infinity: true, cursor } });
    expect(q.page).to.deep.equal({ kind: 'cursor', size: 15, after: [when, 20, 7] });
  });
});
