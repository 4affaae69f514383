import { expect } from 'chai';
import supertest from 'supertest';
import { API, forEachDriver, type Member, type Rec } from '../support/contract-app';

type Entry = { version: number; op: string; changes: Record<string, [unknown, unknown]> };

/** A small seeded generator (mulberry32): the same sequence for a seed, printed on failure. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIELDS = ['name', 'price', 'cost', 'stock', 'status', 'description'] as const;

/**
 * Decision 83, property: random sequences of writes (single updates, batch updates, writes that
 * fail and roll back) by random roles on a product that keeps history. Afterwards the entries,
 * read by the superuser, equal the writes that committed (each entry's changes are exactly the
 * fields whose stored value moved, before and after), and no reader's entries ever show a field
 * that reader may not read (`cost` for viewers and customers).
 */
forEachDriver('history property: entries equal committed writes, never show unreadable fields', (ctx) => {
  let app: { app: import('express').Express; close(): Promise<void> };
  let members: Record<'editor' | 'viewer' | 'customer', Member>;
  const call = (token: string, method: 'get' | 'patch', path: string) => supertest(app.app)[method](`${API}${path}`).set('Authorization', `Bearer ${token}`);

  before(async () => {
    await ctx.reset();
    app = await ctx.exampleAppWith({}, { history: { orders: true, products: true } });
    members = { editor: await ctx.member(['editor']), viewer: await ctx.member(['viewer']), customer: await ctx.member(['customer']) };
  });
  after(async () => {
    await app?.close();
  });

  for (const seed of [11, 29, 83]) {
    it(`seed ${seed}: 25 random writes`, async () => {
      const next = random(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
      const admin = ctx.app.info.adminToken;
      const tokens = [admin, members.editor.token, members.viewer.token, members.customer.token];
      const product = (await ctx.request().post(`${API}/products`).send({ name: `Prop ${seed}`, sku: ctx.unique(`P${seed}`), price: 10, cost: 5, stock: 1 })).body.model as Rec;
      const other = (await ctx.request().post(`${API}/products`).send({ name: `Other ${seed}`, sku: ctx.unique(`O${seed}`), price: 1 })).body.model as Rec;
      // products created through the main app keep no history; their first entries start with the next write
      const state = async () => (await call(admin, 'get', `/products/${product.id}`)).body as Rec;
      let current = await state();
      const expected: Array<Record<string, [unknown, unknown]>> = [];
      let failed = 0;
      for (let step = 0; step < 25; step += 1) {
        const token = pick(tokens);
        const field = pick(FIELDS);
        const value = field === 'name' || field === 'description' ? `${field}-${Math.floor(next() * 4)}` : field === 'status' ? pick(['active', 'draft', 'archived']) : Math.floor(next() * 4) + 1;
        const kind = next();
        let res;
        if (kind < 0.5) res = await call(token, 'patch', `/products/${product.id}`).send({ [field]: value });
        else if (kind < 0.8) res = await call(token, 'patch', '/products/batch').send({ product: [{ id: product.id, [field]: value }, { id: other.id, name: `Other ${step}` }] });
        // a batch naming a record that does not exist: a 404 that rolls back the write of the first
        else res = await call(token, 'patch', '/products/batch').send({ product: [{ id: product.id, [field]: value }, { id: await ctx.absentId('products'), name: 'x' }] });
        const after = await state();
        if (res.status !== 200) {
          expect(after, `seed ${seed} step ${step}: a failed write (${res.status}) changed nothing`).to.deep.equal(current);
          failed += 1;
          continue;
        }
        const changes: Record<string, [unknown, unknown]> = {};
        for (const f of FIELDS) if (JSON.stringify(current[f] ?? null) !== JSON.stringify(after[f] ?? null)) changes[f] = [current[f] ?? null, after[f] ?? null];
        if (Object.keys(changes).length > 0) expected.push(changes);
        current = after;
      }
      // the sequence did both: writes that committed and writes refused or rolled back
      expect(expected.length, `seed ${seed}`).to.be.greaterThan(2);
      expect(failed, `seed ${seed}`).to.be.greaterThan(2);
      const read = async (token: string) => (await call(token, 'get', `/products/${product.id}/history`).query({ pagination: JSON.stringify({ page: 1, pageSize: 100 }) })).body.data as Entry[];
      const entries = (await read(admin)).reverse();
      expect(entries.map((e) => e.op), `seed ${seed}`).to.deep.equal(expected.map(() => 'updated'));
      expect(entries.map((e) => e.changes), `seed ${seed}`).to.deep.equal(expected);
      for (const token of [members.viewer.token, members.customer.token]) {
        for (const entry of await read(token)) expect(entry.changes, `seed ${seed}`).to.not.have.property('cost');
      }
      const byEditor = await read(members.editor.token);
      expect(byEditor.length).to.equal(entries.length);
    });
  }
});
