import { expect } from 'chai';
import { CompileContext } from '../../../drivers/sql/compile-context';
import { equalityOnly, pagePrepared, scanOnlyRanges } from '../../../drivers/sql/prepare-policy';
import type { Filter, ListQuery } from '../../../lib/query/ast';
import { catalog, listQuery, tables } from './fixture';

/** Products and categories with the indexes the example app declares (keys, the foreign keys). */
const ctx = new CompileContext(catalog, {
  ...tables,
  product: { ...tables.product, indexed: ['id', 'sku', 'category_id'] },
  category: { ...tables.category, indexed: ['id', 'parent_id'] },
}, 'pg_c_utf8');

const price: Filter = { kind: 'condition', field: 'price', operator: '>=', value: 10 };
const categoryName: Filter = { kind: 'related', relation: 'category', filter: { kind: 'condition', field: 'name', operator: 'like', value: 'G%' } };
const equal: Filter = { kind: 'condition', field: 'status', operator: '=', value: 'active' };
const skuRange: Filter = { kind: 'condition', field: 'sku', operator: '>', value: 'S' };
const parentRange: Filter = { kind: 'related', relation: 'category', filter: { kind: 'condition', field: 'parent_id', operator: '<', value: 4 } };

describe('sql prepare policy: which statements run named', () => {
  it('equalityOnly: equality tests anywhere, nothing else', () => {
    expect(equalityOnly(null, ctx, 'product')).to.equal(true);
    expect(equalityOnly({ kind: 'and', filters: [equal, { kind: 'related', relation: 'category', filter: null }] }, ctx, 'product')).to.equal(true);
    expect(equalityOnly(price, ctx, 'product')).to.equal(false);
    expect(equalityOnly(categoryName, ctx, 'product')).to.equal(false);
  });

  it('a long in list is never prepared: a generic plan cannot hash it and tests every row against each value', () => {
    const skus = (n: number): Filter => ({ kind: 'condition', field: 'sku', operator: 'in', value: Array.from({ length: n }, (_, i) => `S-${i}`) });
    const stocks = (n: number): Filter => ({ kind: 'condition', field: 'stock', operator: 'in', value: Array.from({ length: n }, (_, i) => i) });
    expect(equalityOnly(skus(64), ctx, 'product')).to.equal(true);
    expect(equalityOnly(skus(65), ctx, 'product')).to.equal(false);
    // nor on an unindexed column, where the generic plan's sequential scan is what takes the time
    expect(scanOnlyRanges(stocks(1000), ctx, 'product')).to.equal(false);
    expect(pagePrepared(listQuery({ filter: skus(1000), page: null, limit: null }), ctx, 'product', false)).to.equal(false);
    expect(pagePrepared(listQuery({ filter: stocks(1000), page: { kind: 'offset', page: 1, size: 25 } }), ctx, 'product', false)).to.equal(false);
  });

  it('scanOnlyRanges: ranges and patterns only on unindexed columns, of the root or a related model', () => {
    expect(scanOnlyRanges({ kind: 'and', filters: [price, categoryName, equal] }, ctx, 'product')).to.equal(true);
    expect(scanOnlyRanges({ kind: 'or', filters: [price, skuRange] }, ctx, 'product')).to.equal(false);
    expect(scanOnlyRanges(parentRange, ctx, 'product')).to.equal(false);
  });

  it('pagePrepared: equality always; ranges on unindexed columns only on a shallow offset page', () => {
    const page = (n: number, size = 25): ListQuery['page'] => ({ kind: 'offset', page: n, size });
    const list = (over: Partial<ListQuery>) => listQuery({ page: page(1), ...over });
    const ranged = { kind: 'and', filters: [price, categoryName] } as const satisfies Filter;
    expect(pagePrepared(list({ filter: equal, page: page(400) }), ctx, 'product', false)).to.equal(true);
    expect(pagePrepared(list({ filter: ranged, page: page(3) }), ctx, 'product', false)).to.equal(true);
    expect(pagePrepared(list({ filter: ranged, page: page(20) }), ctx, 'product', false)).to.equal(true); // rows 476-500
    // a generic plan does not see the offset: deep or large pages plan per run
    expect(pagePrepared(list({ filter: ranged, page: page(21) }), ctx, 'product', false)).to.equal(false);
    expect(pagePrepared(list({ filter: ranged, page: page(1, 200) }), ctx, 'product', false)).to.equal(false);
    expect(pagePrepared(list({ filter: skuRange }), ctx, 'product', false)).to.equal(false);
    expect(pagePrepared(list({ filter: ranged, page: null, limit: 10 }), ctx, 'product', false)).to.equal(false);
    expect(pagePrepared(list({ filter: equal, page: { kind: 'cursor', size: 25, after: null } }), ctx, 'product', false)).to.equal(false);
    expect(pagePrepared(list({ filter: equal }), ctx, 'product', true)).to.equal(false);
  });
});
