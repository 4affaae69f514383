import { expect } from 'chai';
import { ApiRequestError } from '../../lib/client';
import { servedShop } from '../support/served-shop';

/** The typed client's history() and revert() (decision 83) against the example app's orders on both drivers. */
for (const driver of ['mongo', 'sql'] as const) {
  describe(`typed client: history and revert (${driver})`, function () {
    this.timeout(60_000);
    const served = servedShop(driver, true);

    it('history() pages the entries newest first; revert() writes a version back under If-Match', async () => {
      const user = (await served.api.users.create({ name: 'Client history', email: `client-history-${driver}-${Date.now()}@example.test` })).model;
      const order = (await served.api.orders.create({ user_id: user.id, number: `CH-${driver}-${Date.now()}`, total: 3, placed_at: '2026-11-01T10:00:00.000Z', notes: 'one' })).model;
      await served.api.orders.update(order.id, { notes: 'two' });
      const page = await served.api.orders.history(order.id, { pagination: { page: 1, pageSize: 1 } });
      expect(page.total).to.equal(2);
      expect(page.data[0].op).to.equal('updated');
      expect(page.data[0].changes.notes).to.deep.equal(['one', 'two']);
      const stale = await served.api.orders.revert(order.id, 1, { ifMatch: '"1"' }).catch((error: unknown) => error);
      expect(stale).to.be.instanceOf(ApiRequestError);
      expect((stale as ApiRequestError).status).to.equal(412);
      const reverted = await served.api.orders.revert(order.id, 1, { ifMatch: '"2"' });
      expect(reverted.model.notes).to.equal('one');
      expect((await served.api.orders.history(order.id)).data[0].op).to.equal('reverted');
    });
  });
}
