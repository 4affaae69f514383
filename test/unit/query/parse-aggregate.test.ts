import { expect } from 'chai';
import type { RestConfig } from '../../../lib/config';
import { parseAggregate } from '../../../lib/query/parse-aggregate';
import { fixtureCatalog, testConfig } from '../../support/example-catalog';
import { expectBadRequest } from './helpers';

function parse(params: Record<string, unknown>, model = 'product', config: Partial<RestConfig> = {}) {
  const catalog = fixtureCatalog();
  return parseAggregate(params, catalog.model(model), catalog, testConfig(config));
}

describe('parseAggregate', () => {
  it('defaults: count of every record, no groups, every group up to the unpaginated cap', () => {
    const { query, trashed } = parse({});
    expect(query).to.deep.include({ model: 'product', filter: null, groups: [], measures: [{ fn: 'count', field: null }], order: [] });
    expect(query.page).to.deep.equal({ kind: 'offset', page: 1, size: testConfig().maxUnpaginated });
    expect(trashed).to.equal(undefined);
  });

  const cases: { title: string; params: Record<string, unknown>; expect: Record<string, unknown> }[] = [
    {
      title: 'group_by as JSON or a comma list; paths through to-one relations; duplicates once',
      params: { group_by: 'status, category.name,status' },
      expect: { groups: [{ name: 'status', relations: [], field: 'status' }, { name: 'category.name', relations: ['category'], field: 'name' }] },
    },
    {
      title: 'functions with field lists, count "*", pairs deduplicated, in request order',
      params: { aggregate: '{"sum":["price","stock","price"],"count":"*","min":"name,created_at"}' },
      expect: { measures: [{ fn: 'sum', field: 'price' }, { fn: 'sum', field: 'stock' }, { fn: 'count', field: null }, { fn: 'min', field: 'name' }, { fn: 'min', field: 'created_at' }] },
    },
    {
      title: 'orderby over groups and measures, then the group fields ascending',
      params: { group_by: ['status', 'featured'], aggregate: { count: '*', sum: ['price'] }, orderby: [{ 'sum.price': 'DESC' }, { featured: 'desc' }, { count: 'asc' }] },
      expect: {
        order: [
          { kind: 'measure', index: 1, direction: 'desc' },
          { kind: 'group', index: 1, direction: 'desc' },
          { kind: 'measure', index: 0, direction: 'asc' },
          { kind: 'group', index: 0, direction: 'asc' },
        ],
      },
    },
    {
      title: 'oper and attr combine into the filter, as on a list',
      params: { oper: { and: ['price|>|5'] }, attr: { status: 'active' } },
      expect: {
        filter: {
          kind: 'and',
          filters: [
            { kind: 'condition', field: 'price', operator: '>', value: 5 },
            { kind: 'condition', field: 'status', operator: '=', value: 'active' },
          ],
        },
      },
    },
    { title: 'pagination of groups', params: { pagination: { page: 2, pageSize: 3 } }, expect: { page: { kind: 'offset', page: 2, size: 3 } } },
  ];
  for (const t of cases) {
    it(t.title, () => {
      expect(parse(t.params).query).to.deep.include(t.expect);
    });
  }

  it('soft_delete: read on a soft-deletable resource, ignored elsewhere (as on lists)', () => {
    const catalog = fixtureCatalog();
    const review = { ...catalog.model('review'), softDelete: 'deleted_at' };
    expect(parseAggregate({ soft_delete: 'only' }, review, catalog, testConfig()).trashed).to.equal('only');
    expect(parse({ soft_delete: 'only' }).trashed).to.equal(undefined);
  });

  const bad: { title: string; params: Record<string, unknown>; words: string[] }[] = [
    { title: 'unknown group field', params: { group_by: ['colour'] }, words: ['colour', 'group_by'] },
    { title: 'a to-many group path', params: { group_by: ['reviews.rating'] }, words: ['reviews', 'to-one'] },
    { title: 'six group fields', params: { group_by: ['name', 'sku', 'price', 'stock', 'status', 'featured'] }, words: ['at most 5'] },
    { title: 'sum of a string', params: { aggregate: { sum: ['name'] } }, words: ['"sum"', '"name"'] },
    { title: 'max of a boolean', params: { aggregate: { max: ['featured'] } }, words: ['"max"', '"featured"'] },
    { title: 'an unknown function', params: { aggregate: { total: ['price'] } }, words: ['"total"'] },
    { title: '"*" beside fields in count', params: { aggregate: { count: ['*', 'name'] } }, words: ['count'] },
    { title: 'a function without fields', params: { aggregate: { avg: [] } }, words: ['"avg"', 'no field'] },
    { title: 'a non-string field list', params: { aggregate: { avg: [1] } }, words: ['"avg"'] },
    { title: 'an orderby key not in the request', params: { group_by: ['status'], orderby: { 'sum.price': 'asc' } }, words: ['"sum.price"'] },
    { title: 'a cursor', params: { pagination: { infinity: true, pageSize: 5 } }, words: ['pagination'] },
    { title: 'an object group field', params: { group_by: ['roles'] }, words: ['"roles"'] },
  ];
  for (const t of bad) {
    it(`400: ${t.title}`, () => {
      const model = t.title === 'an object group field' ? 'user' : 'product';
      expectBadRequest(() => parse(t.params, model), ...t.words);
    });
  }

  it('more than 20 function-field pairs', () => {
    const fields = ['name', 'sku', 'price', 'stock', 'status', 'featured', 'description'];
    expectBadRequest(() => parse({ aggregate: { count: fields, count_distinct: fields, max: ['name', 'sku', 'price', 'stock', 'status', 'created_at', 'updated_at'] } }), 'at most 20');
  });
});
