import { expect } from 'chai';
import { servedShop } from '../support/served-shop';

/** Compile-time checks: `expectType<T>()(value)` fails to compile when value is not a T. */
const expectType = <T>() => <V extends T>(value: V): V => value;

/** The typed client's aggregate method (decisions 55-57) against the example app over real HTTP. */
for (const driver of ['mongo', 'sql'] as const) {
  describe(`typed client: aggregate (${driver})`, function () {
    this.timeout(60_000);
    const served = servedShop(driver);

    it('groups with typed functions, filters, orders and pages', async () => {
      const category = await served.api.categories.create({ name: 'Aggregated lamps' });
      for (const [i, price] of [5, 15, 25].entries()) {
        await served.api.products.create({ name: `Agg lamp ${i}`, sku: `AGG-LAMP-${driver}-${i}`, price, status: i === 2 ? 'draft' : 'active', category_id: category.model.id });
      }
      const page = await served.api.products.aggregate({
        filter: (f) => f.where('name', 'like', 'Agg lamp%'),
        group_by: ['status', 'category.name'],
        aggregate: { count: '*', sum: ['price'], max: ['name'] },
        orderby: { 'sum.price': 'desc' },
        pagination: { page: 1, pageSize: 10 },
      });
      expect(page.total).to.equal(2);
      expect(page.data).to.deep.equal([
        { group: { status: 'draft', 'category.name': 'Aggregated lamps' }, count: 1, sum: { price: 25 }, max: { name: 'Agg lamp 2' } },
        { group: { status: 'active', 'category.name': 'Aggregated lamps' }, count: 2, sum: { price: 20 }, max: { name: 'Agg lamp 1' } },
      ]);
      const first = page.data[0];
      expectType<number>()(first.count);
      expectType<number | null>()(first.sum.price);
      expectType<string | null>()(first.max.name);
      expectType<string | null | undefined>()(first.group.status);
      const plain = await served.api.products.aggregate({ attr: { status: 'draft' } });
      expectType<number>()(plain.data[0].count);
      expect(plain.data).to.deep.equal([{ group: {}, count: 1 }]);
      // @ts-expect-error sum takes numeric fields only
      await served.api.products.aggregate({ aggregate: { sum: ['name'] } }).catch(() => undefined);
    });
  });
}
