import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiRequestError, createClient } from '../../lib/client';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { resources, type Api } from '../../example-app/client-types';
import { sharedMongo, sharedPostgres } from '../support/databases';

/** The typed client's history() and revert() (decision 83) against the example app's orders on both drivers. */
for (const driver of ['mongo', 'sql'] as const) {
  describe(`typed client: history and revert (${driver})`, function () {
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
      api = createClient<Api>({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, headers: { Authorization: `Bearer ${shop.info.adminToken}` }, resources });
    });
    after(async () => {
      server?.close();
      await shop?.close();
    });

    it('history() pages the entries newest first; revert() writes a version back under If-Match', async () => {
      const user = (await api.users.create({ name: 'Client history', email: `client-history-${driver}-${Date.now()}@example.test` })).model;
      const order = (await api.orders.create({ user_id: user.id, number: `CH-${driver}-${Date.now()}`, total: 3, placed_at: '2026-11-01T10:00:00.000Z', notes: 'one' })).model;
      await api.orders.update(order.id, { notes: 'two' });
      const page = await api.orders.history(order.id, { pagination: { page: 1, pageSize: 1 } });
      expect(page.total).to.equal(2);
      expect(page.data[0].op).to.equal('updated');
      expect(page.data[0].changes.notes).to.deep.equal(['one', 'two']);
      const stale = await api.orders.revert(order.id, 1, { ifMatch: '"1"' }).catch((error: unknown) => error);
      expect(stale).to.be.instanceOf(ApiRequestError);
      expect((stale as ApiRequestError).status).to.equal(412);
      const reverted = await api.orders.revert(order.id, 1, { ifMatch: '"2"' });
      expect(reverted.model.notes).to.equal('one');
      expect((await api.orders.history(order.id)).data[0].op).to.equal('reverted');
    });
  });
}
