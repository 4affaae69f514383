import { expect } from 'chai';
import { API, forEachDriver, type Member, type Rec } from '../support/contract-app';

type Id = string | number;
type Entry = { version: number; op: string; actor: { id: unknown; roles: string[] }; request_id: string | null; changes: Record<string, [unknown, unknown]> };

const csv = (rows: unknown[][]): string => rows.map((r) => r.join(',')).join('\r\n') + '\r\n';

/**
 * Decisions 82 + 83 on both drivers: a CSV import appends one entry per record it creates or
 * changes (none for an unchanged one), by the caller, under the request's id.
 */
forEachDriver('history of imports (decisions 82, 83)', (ctx) => {
  let owner: Rec;
  let editor: Member;
  const history = async (id: Id): Promise<Entry[]> => {
    const res = await ctx.request().get(`${API}/orders/${id}/history`);
    expect(res.status, res.text).to.equal(200);
    return res.body.data as Entry[];
  };
  const byNumber = async (number: string): Promise<Rec> => ((await ctx.get('/orders', { oper: { and: [`number|=|${number}`] } })).body.data as Rec[])[0];

  before(async () => {
    await ctx.reset();
    owner = await ctx.user();
    editor = await ctx.member(['admin']);
  });

  it('a CSV import appends one created entry per record, then one updated entry per record it changes (upsert mode)', async () => {
    const [a, b, c] = [ctx.unique('IA'), ctx.unique('IB'), ctx.unique('IC')];
    const first = await editor.agent().post(`${API}/orders/import`).set('Content-Type', 'text/csv').set('X-Request-Id', 'import-1')
      .send(csv([['number', 'user_id', 'total', 'placed_at', 'notes'], [a, owner.id, '10', '2026-11-01T10:00:00.000Z', 'one'], [b, owner.id, '20', '2026-11-01T10:00:00.000Z', 'two']]));
    expect(first.status, first.text).to.equal(200);
    expect(first.body).to.include({ created: 2, updated: 0 });
    const [orderA, orderB] = [await byNumber(a), await byNumber(b)];
    for (const [order, notes, total] of [[orderA, 'one', 10], [orderB, 'two', 20]] as const) {
      const entries = await history(order.id as Id);
      expect(entries.map((e) => [e.version, e.op])).to.deep.equal([[1, 'created']]);
      expect(entries[0].changes).to.deep.include({ number: [null, order.number], notes: [null, notes], total: [null, total] });
      expect(entries[0]).to.include({ request_id: 'import-1' });
      expect(entries[0].actor).to.deep.equal({ id: editor.user.id, roles: ['admin'] });
    }

    // upsert mode: a changes, b is given as stored (unchanged), c is new
    const second = await editor.agent().post(`${API}/orders/import`).query({ mode: 'upsert', match: 'number' }).set('Content-Type', 'text/csv').set('X-Request-Id', 'import-2')
      .send(csv([['number', 'user_id', 'total', 'placed_at', 'notes'], [a, owner.id, '15', '2026-11-01T10:00:00.000Z', 'one'], [b, owner.id, '20', '2026-11-01T10:00:00.000Z', 'two'], [c, owner.id, '30', '2026-11-01T10:00:00.000Z', '']]));
    expect(second.status, second.text).to.equal(200);
    expect(second.body).to.include({ created: 1, updated: 1, unchanged: 1 });
    const entriesA = await history(orderA.id as Id);
    expect(entriesA.map((e) => [e.version, e.op])).to.deep.equal([[2, 'updated'], [1, 'created']]);
    expect(entriesA[0].changes).to.deep.equal({ total: [10, 15] });
    expect(entriesA[0]).to.include({ request_id: 'import-2' });
    expect((await history(orderB.id as Id)).map((e) => e.op)).to.deep.equal(['created']);
    const entriesC = await history((await byNumber(c)).id as Id);
    expect(entriesC.map((e) => [e.version, e.op])).to.deep.equal([[1, 'created']]);
    expect(entriesC[0].changes).to.not.have.property('notes');
  });
});
