import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '../../lib/client';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import type { Api } from '../../example-app/client-types';
import { sharedMongo, sharedPostgres } from '../support/databases';

/** Compile-time checks: `expectType<T>()(value)` fails to compile when value is not a T. */
const expectType = <T>() => <V extends T>(value: V): V => value;

/** The typed client's aggregate method (decisions 55-57) against the example app over real HTTP. */
for (const driver of ['mongo', 'sql'] as const) {
  describe(`typed client: aggregate (${driver})`, function () {
    this.timeout(60_000);
    let shop: ExampleApp;
    let server: Server;
    let api: ReturnType<typeof createClient<Api>>;

    before(async () => {
      const uri = driver === 'mongo' ? { mongoUri: (await sharedMongo()).uri } : { postgresUri: (await sharedPostgres()).uri };
      shop = await createExampleApp({ driver, ...uri });
      await shop.reset();
      server = shop.app.listen(0);
      await new Promise((r) => server.once('listening', r));
      api = createClient<Api>({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, headers: { Authorization: `Bearer ${shop.info.adminToken}` } });
    });
    after(async () => {
      server?.close();
      await shop?.close();
    });

    it('groups with typed functions, filters, orders and pages', async () => {
      const category = await api.categories.create({ name: 'Aggregated lamps' });
      for (const [i, price] of [5, 15, 25].entries()) {
        await api.products.create({ name: `Agg lamp ${i}`, sku: `AGG-LAMP-${driver}-${i}`, price, status: i === 2 ? 'draft' : 'active', category_id: category.model.id });
      }
      const page = await api.products.aggregate({
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
      const plain = await api.products.aggregate({ attr: { status: 'draft' } });
      expectType<number>()(plain.data[0].count);
      expect(plain.data).to.deep.equal([{ group: {}, count: 1 }]);
      // @ts-expect-error sum takes numeric fields only
      await api.products.aggregate({ aggregate: { sum: ['name'] } }).catch(() => undefined);
    });
  });
}
