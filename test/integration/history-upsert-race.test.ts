import { expect } from 'chai';
import type { Driver, Id, Row, Transaction, UpsertChunk } from '../../lib/driver';
import { asAdmin } from '../support/as-admin';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { sharedMongo, sharedPostgres } from '../support/databases';

type Entry = { version: number; op: string; changes: Record<string, [unknown, unknown]> };

/**
 * Decision 83, an upsert whose matched record moved between the service's read (before its
 * transaction) and the write: the entry shows the values the write replaced, not those read.
 * MongoDB writes a matched record only while it holds the values read (no read added); a record
 * that moved fails the write as a write conflict, and the transaction runs again reading it first.
 * PostgreSQL's statement answers the row as it was. Driven through the app's driver (what the
 * service's upsert calls) with the row as read before a concurrent PATCH.
 */
for (const kind of ['mongo', 'sql'] as const) {
  describe(`history: an upsert racing a concurrent write [${kind}]`, function () {
    this.timeout(120_000);
    let example: ExampleApp;
    let user: unknown;
    const driver = () => example.api.registry.entry('order').driver as Driver;
    const read = async (id: Id): Promise<Row> => (await driver().list({ model: 'order', filter: { kind: 'condition', field: 'id', operator: 'in', value: [id] }, select: null, relations: [], order: [], page: null, limit: null })).rows[0];
    const upsertTotal = (order: Row, stale: Row, total: number) => {
      const chunk: UpsertChunk = { keys: ['number'], matched: [{ number: order.number, total }], matchedIds: [order.id as Id], matchedRows: [stale], created: [] };
      return driver().transaction((tx: Transaction) => driver().upsert!('order', chunk, tx));
    };
    const newOrder = async (): Promise<Row> => (await asAdmin(example).post('/api/v1/orders').send({ user_id: user, number: `UR-${Math.random()}`, total: 10, placed_at: '2026-11-01T10:00:00.000Z' }).expect(200)).body.model as Row;
    const history = async (id: unknown): Promise<Entry[]> => (await asAdmin(example).get(`/api/v1/orders/${id}/history`).expect(200)).body.data as Entry[];
    const show = async (id: unknown): Promise<Row> => (await asAdmin(example).get(`/api/v1/orders/${id}`).expect(200)).body as Row;

    before(async () => {
      if (kind === 'mongo') {
        const uri = new URL((await sharedMongo()).uri);
        uri.pathname = '/history_upsert_race';
        example = await createExampleApp({ driver: 'mongo', mongoUri: uri.toString() });
      } else {
        example = await createExampleApp({ driver: 'sql', postgresUri: (await sharedPostgres()).uri });
      }
      await example.reset();
      user = (await asAdmin(example).post('/api/v1/users').send({ name: 'Race', email: `race-${Date.now()}@example.test` }).expect(200)).body.model.id;
    });
    after(async () => {
      await example?.reset();
      await example?.close();
    });

    it('records the values it replaced, not those read', async () => {
      const order = await newOrder();
      const stale = await read(order.id as Id);
      await asAdmin(example).patch(`/api/v1/orders/${order.id}`).send({ total: 20 }).expect(200);
      expect((await upsertTotal(order, stale, 99)).matched).to.deep.equal(['updated']);
      expect(await show(order.id)).to.include({ total: 99, version: 3 });
      const entries = await history(order.id);
      expect(entries.map((e) => [e.version, e.op])).to.deep.equal([[3, 'updated'], [2, 'updated'], [1, 'created']]);
      expect(entries[0].changes).to.deep.equal({ total: [20, 99] });
    });

    it('appends nothing when a concurrent write already stored its values', async () => {
      const order = await newOrder();
      const stale = await read(order.id as Id);
      await asAdmin(example).patch(`/api/v1/orders/${order.id}`).send({ total: 99 }).expect(200);
      await upsertTotal(order, stale, 99);
      expect(await show(order.id)).to.include({ total: 99, version: 2 });
      expect((await history(order.id)).map((e) => [e.version, e.op])).to.deep.equal([[2, 'updated'], [1, 'created']]);
    });

    it('with no concurrent write, the values read are the values before', async () => {
      const order = await newOrder();
      await upsertTotal(order, await read(order.id as Id), 42);
      const [top] = await history(order.id);
      expect(top).to.include({ version: 2, op: 'updated' });
      expect(top.changes).to.deep.equal({ total: [10, 42] });
    });
  });
}
