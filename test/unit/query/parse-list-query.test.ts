import { expect } from 'chai';
import { mergeParams } from '../../../lib/query';
import type { ListQuery } from '../../../lib/query/ast';
import { and, cond, expectBadRequest, list, load, related } from './helpers';

const byId = { relations: [], field: 'id', direction: 'asc' as const };

describe('query: parseListQuery as a whole', () => {
  it('no parameters: everything up to the unpaginated cap (one row over it, to tell a cut list), ordered by id', () => {
    const q = list({});
    const expected: ListQuery = {
      model: 'product', filter: null, select: null, relations: [], order: [byId], page: null, limit: 1001,
    };
    expect(q).to.deep.equal(expected);
  });

  it('a query string as express delivers it (JSON-encoded values) merged with a body', () => {
    const params = mergeParams(
      {
        oper: '{"and":["price|>=|10"],"category":{"and":["name|=|Phones"]}}',
        select: 'name,price',
        relations: 'category:name,reviews',
        orderby: '[{"price":"desc"}]',
        pagination: '{"page":"2","pagesize":"5"}',
        _nested: 'true',
        hierarchy: '{"filter_mode":"match_only"}',
        cache: 'false',
      },
      { attr: { status: 'active' } },
    );
    const q = list(params);
    expect(q).to.deep.equal({
      model: 'product',
      filter: and(cond('price', '>=', 10), related('category', cond('name', '=', 'Phones')), cond('status', '=', 'active')),
      select: ['id', 'name', 'price', 'category_id'],
      relations: [load('category', ['id', 'name'], [], cond('name', '=', 'Phones')), load('reviews')],
      order: [{ relations: [], field: 'price', direction: 'desc' }, byId],
      page: { kind: 'offset', page: 2, size: 5 },
      limit: null,
      loadLimit: 10000,
    });
  });

  const absent: Array<{ name: string; params: Record<string, unknown> }> = [
    { name: 'JSON null strings are absent', params: { oper: 'null', select: 'null', relations: 'null', orderby: 'null', pagination: 'null', attr: 'null', eq: 'null' } },
    { name: 'empty strings are absent', params: { oper: '', select: '', relations: '', orderby: '', pagination: '', attr: '', eq: '', _nested: '' } },
    { name: 'null values are absent', params: { oper: null, select: null, relations: null, orderby: null, pagination: null, attr: null, eq: null, _nested: null } },
    { name: 'unparsed parameters are not rejected (hierarchy, flat page, soft_delete)', params: { hierarchy: true, page: 'x', pageSize: 'y', soft_delete: 'only', cache_ttl: '30' } },
  ];
  for (const c of absent) {
    it(c.name, () => {
      expect(list(c.params)).to.deep.equal({ model: 'product', filter: null, select: null, relations: [], order: [byId], page: null, limit: 1001 });
    });
  }

  it('the first error met names its parameter (select before oper)', () => {
    expect(expectBadRequest(() => list({ select: 'colour', oper: '{bad' })).parameter).to.equal('select');
  });

  it('works for another model (users: array field, write-only excluded from allowed lists)', () => {
    const q = list({ oper: 'roles|=|admin', select: 'name,roles', relations: 'reviews:rating' }, { model: 'user' });
    expect(q.filter).to.deep.equal(cond('roles', '=', 'admin'));
    expect(q.select).to.deep.equal(['id', 'name', 'roles']);
    expect(q.relations).to.deep.equal([load('reviews', ['id', 'rating', 'user_id'])]);
  });
});
