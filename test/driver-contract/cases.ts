import { expect } from 'chai';
import { isDriverFailure, type Id, type Row, type Transaction } from '../../lib/driver';
import type { Filter, ListQuery, OrderKey, RelationLoad } from '../../lib/query/ast';
import type { Capability, DriverHarness, HarnessFactory, ModelName } from './harness';

/**
 * The driver conformance suite, in the style of Feathers' adapter-tests: NAMED cases, each a
 * function of a driver harness that builds its own data (the harness empties the database before
 * each) and asserts on behaviour: the rows answered and the database state afterwards. A driver
 * file declares, explicitly, the cases it passes and the ones it skips with a reason.
 */

export interface ContractCase {
  /** Optional driver capabilities the case needs; a driver without one must list it as skipped. */
  requires?: Capability[];
  run(h: DriverHarness): Promise<void>;
}

// ---------------------------------------------------------------- query building

const cond = (field: string, operator: string, value?: unknown): Filter => ({ kind: 'condition', field, operator, value } as Filter);
const and = (...filters: Filter[]): Filter => ({ kind: 'and', filters });
const or = (...filters: Filter[]): Filter => ({ kind: 'or', filters });
const related = (relation: string, filter: Filter | null): Filter => ({ kind: 'related', relation, filter });
const load = (name: string, columns: string[] | null = null, children: RelationLoad[] = []): RelationLoad => ({ name, columns, children, filter: null });
const key = (field: string, direction: 'asc' | 'desc' = 'asc', relations: string[] = []): OrderKey => ({ relations, field, direction });
const ID = key('id');
const query = (model: ModelName, over: Partial<ListQuery> = {}): ListQuery => ({
  model, filter: null, select: null, relations: [], order: [ID], page: null, limit: null, ...over,
});

const names = (rows: Row[]): unknown[] => rows.map((r) => r.name);
const text = (ids: Id[]): string[] => ids.map(String).sort();

// ---------------------------------------------------------------- data building

async function insert(h: DriverHarness, model: ModelName, records: Record<string, unknown>[]): Promise<Id[]> {
  return h.driver.transaction((tx) => h.driver.insert(model, records, tx));
}

async function list(h: DriverHarness, model: ModelName, over: Partial<ListQuery> = {}): Promise<Row[]> {
  return (await h.driver.list(query(model, over))).rows;
}

async function byId(h: DriverHarness, model: ModelName, id: Id, select: string[] | null = null): Promise<Row | undefined> {
  return (await list(h, model, { filter: cond('id', '=', id), select }))[0];
}

/** Five products, two categories, two users, reviews on two products: the common list fixture. */
async function catalogue(h: DriverHarness) {
  const [phones, books] = await insert(h, 'category', [{ name: 'Phones' }, { name: 'Books' }]);
  const [ann, bob] = await insert(h, 'user', [{ name: 'Ann', email: 'ann@x.test', roles: ['admin'] }, { name: 'Bob', email: 'bob@x.test', roles: [] }]);
  const [alpha, beta, gamma, delta, epsilon] = await insert(h, 'product', [
    { name: 'Alpha', sku: 'A', price: 100, stock: 5, description: 'first', category_id: phones },
    { name: 'Beta', sku: 'B', price: 200, stock: 0, description: null, category_id: phones },
    { name: 'Gamma', sku: 'G', price: 50, stock: 3, description: 'third', category_id: books },
    { name: 'Delta', sku: 'D', price: 20, stock: 7, description: null, category_id: books },
    { name: 'Epsilon', sku: 'E', price: 500, stock: 1, description: 'fifth', category_id: null },
  ]);
  await insert(h, 'review', [
    { product_id: alpha, user_id: ann, rating: 5 },
    { product_id: alpha, user_id: bob, rating: 2 },
    { product_id: gamma, user_id: bob, rating: 4 },
  ]);
  return { phones, books, ann, bob, alpha, beta, gamma, delta, epsilon };
}

async function failure(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  return expect.fail('expected the work to fail');
}

const pivots = (h: DriverHarness) => {
  if (!h.driver.pivots) throw new Error(`${h.name} has no pivots capability`);
  return h.driver.pivots;
};
const inTx = <T>(h: DriverHarness, work: (tx: Transaction) => Promise<T>): Promise<T> => h.driver.transaction(work);

// ---------------------------------------------------------------- the cases

export const CASES = {
  'list: equality filter': {
    async run(h) {
      const { phones } = await catalogue(h);
      expect(names(await list(h, 'product', { filter: cond('name', '=', 'Gamma') }))).to.deep.equal(['Gamma']);
      expect(names(await list(h, 'product', { filter: cond('category_id', '=', phones) }))).to.deep.equal(['Alpha', 'Beta']);
      expect(names(await list(h, 'product', { filter: cond('stock', '=', 42) }))).to.deep.equal([]);
    },
  },

  'list: comparison, in and null filters': {
    async run(h) {
      await catalogue(h);
      expect(names(await list(h, 'product', { filter: cond('price', '>=', 100) }))).to.deep.equal(['Alpha', 'Beta', 'Epsilon']);
      expect(names(await list(h, 'product', { filter: cond('sku', 'in', ['B', 'D', 'Z']) }))).to.deep.equal(['Beta', 'Delta']);
      expect(names(await list(h, 'product', { filter: cond('description', 'null') }))).to.deep.equal(['Beta', 'Delta']);
      expect(names(await list(h, 'product', { filter: cond('category_id', 'not null') }))).to.deep.equal(['Alpha', 'Beta', 'Gamma', 'Delta']);
    },
  },

  'list: and / or filters': {
    async run(h) {
      await catalogue(h);
      const filter = and(cond('price', '<', 300), or(cond('stock', '=', 0), cond('description', 'null'), cond('name', '=', 'Gamma')));
      expect(names(await list(h, 'product', { filter }))).to.deep.equal(['Beta', 'Gamma', 'Delta']);
    },
  },

  'list: order and select': {
    async run(h) {
      await catalogue(h);
      const rows = await list(h, 'product', { order: [key('price', 'desc'), ID], select: ['name', 'price'] });
      expect(rows.map((r) => [r.name, r.price])).to.deep.equal([['Epsilon', 500], ['Beta', 200], ['Alpha', 100], ['Gamma', 50], ['Delta', 20]]);
      expect(Object.keys(rows[0]).sort()).to.deep.equal(['id', 'name', 'price']);
    },
  },

  'list: offset page with total': {
    async run(h) {
      await catalogue(h);
      const page2 = await h.driver.list(query('product', { order: [key('price'), ID], page: { kind: 'offset', page: 2, size: 2 } }));
      expect(names(page2.rows)).to.deep.equal(['Alpha', 'Beta']);
      expect(page2.total).to.equal(5);
      const past = await h.driver.list(query('product', { page: { kind: 'offset', page: 4, size: 2 } }));
      expect(past.rows).to.deep.equal([]);
      expect(past.total).to.equal(5);
      const capped = await h.driver.list(query('product', { limit: 2 }));
      expect(capped.rows).to.have.length(2);
    },
  },

  'list: cursor page': {
    async run(h) {
      await catalogue(h);
      const order = [key('description', 'desc'), key('price'), ID];
      const full = names(await list(h, 'product', { order }));
      expect(full).to.have.length(5);
      const seen: unknown[] = [];
      let page: ListQuery['page'] = { kind: 'cursor', size: 2, after: null };
      let pages = 0;
      for (;;) {
        const res = await h.driver.list(query('product', { order, page }));
        pages += 1;
        seen.push(...names(res.rows));
        if (!res.hasMore) {
          expect(res.nextAfter).to.equal(null);
          break;
        }
        expect(res.nextAfter).to.have.length(order.length);
        expect(pages).to.be.lessThan(5);
        page = { kind: 'cursor', size: 2, after: res.nextAfter ?? null };
      }
      expect(pages).to.equal(3);
      expect(seen).to.deep.equal(full);
    },
  },

  'list: relation filter (exists)': {
    async run(h) {
      await catalogue(h);
      expect(names(await list(h, 'product', { filter: related('reviews', null) }))).to.deep.equal(['Alpha', 'Gamma']);
      expect(names(await list(h, 'product', { filter: related('reviews', cond('rating', '>=', 4)) }))).to.deep.equal(['Alpha', 'Gamma']);
      expect(names(await list(h, 'product', { filter: related('reviews', cond('rating', '<', 3)) }))).to.deep.equal(['Alpha']);
      expect(names(await list(h, 'product', { filter: related('category', cond('name', '=', 'Books')) }))).to.deep.equal(['Gamma', 'Delta']);
      // a dot path: products reviewed by Bob
      expect(names(await list(h, 'product', { filter: related('reviews', related('user', cond('name', '=', 'Bob'))) }))).to.deep.equal(['Alpha', 'Gamma']);
    },
  },

  'list: eager load to-one': {
    async run(h) {
      const { phones, alpha, epsilon } = await catalogue(h);
      const rows = await list(h, 'product', { filter: cond('id', 'in', [alpha, epsilon]), select: ['name'], relations: [load('category', ['name'])] });
      expect(rows).to.have.length(2);
      expect(rows[0]).to.deep.include({ id: alpha, name: 'Alpha', category_id: phones });
      expect(rows[0].category).to.deep.include({ id: phones, name: 'Phones' });
      expect(rows[1]).to.deep.include({ id: epsilon, category: null });
    },
  },

  'list: eager load to-many': {
    async run(h) {
      const { alpha, beta, gamma, ann, bob } = await catalogue(h);
      const rows = await list(h, 'product', {
        filter: cond('id', 'in', [alpha, beta, gamma]), select: ['name'], relations: [load('reviews', ['rating'], [load('user', ['name'])])],
      });
      const reviews = rows.map((r) => (r.reviews as Row[]).map((x) => [x.product_id, x.rating, (x.user as Row).name, (x.user as Row).id]).sort());
      expect(reviews).to.deep.equal([
        [[alpha, 2, 'Bob', bob], [alpha, 5, 'Ann', ann]].sort(),
        [],
        [[gamma, 4, 'Bob', bob]],
      ]);
    },
  },

  'list: eager load many-to-many with pivot values': {
    requires: ['pivots'],
    async run(h) {
      const { alpha, beta } = await catalogue(h);
      const [red, green] = await insert(h, 'tag', [{ name: 'red' }, { name: 'green' }]);
      await inTx(h, (tx) => pivots(h).attach('product', 'tags', [
        { parentId: alpha, relatedId: red, values: { position: 1, note: 'n1' } },
        { parentId: alpha, relatedId: green, values: { position: 2 } },
      ], tx));
      const rows = await list(h, 'product', { filter: cond('id', 'in', [alpha, beta]), select: ['name'], relations: [load('tags', ['name'])] });
      const tags = (rows[0].tags as Row[]).slice().sort((a, b) => String(a.name).localeCompare(String(b.name)));
      expect(tags).to.deep.equal([
        { id: green, name: 'green', pivot: { product_id: alpha, tag_id: green, position: 2, note: null } },
        { id: red, name: 'red', pivot: { product_id: alpha, tag_id: red, position: 1, note: 'n1' } },
      ]);
      expect(rows[1].tags).to.deep.equal([]);
      // and the other side of the same pivot
      const tagRows = await list(h, 'tag', { filter: cond('id', '=', red), relations: [load('products', ['name'])] });
      expect(names(tagRows[0].products as Row[])).to.deep.equal(['Alpha']);
    },
  },

  'insert: bulk returns ids in order': {
    async run(h) {
      const ids = await insert(h, 'tag', [{ name: 't1' }, { name: 't2' }, { name: 't3' }]);
      expect(ids).to.have.length(3);
      expect(new Set(ids.map(String)).size).to.equal(3);
      for (const [i, id] of ids.entries()) expect((await byId(h, 'tag', id))?.name).to.equal(`t${i + 1}`);
      expect(await h.count('tag')).to.equal(3);
      // model defaults apply to the fields a record leaves out
      const [p] = await insert(h, 'product', [{ name: 'P', sku: 'P', price: 1 }]);
      expect(await byId(h, 'product', p, ['stock', 'description', 'category_id'])).to.deep.equal({ id: p, stock: 0, description: null, category_id: null });
    },
  },

  'update: each record its own changes, updated_at moves': {
    async run(h) {
      const [a, b, c] = await insert(h, 'product', [{ name: 'A', sku: 'A', price: 1 }, { name: 'B', sku: 'B', price: 2, description: 'keep' }, { name: 'C', sku: 'C', price: 3 }]);
      const before = (await byId(h, 'product', a))!;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const count = await inTx(h, (tx) => h.driver.update('product', [{ id: a, changes: { price: 10.5, stock: 4 } }, { id: b, changes: { name: 'B2' } }], tx));
      expect(count).to.equal(2);
      const rows = await list(h, 'product', { select: ['name', 'price', 'stock', 'description', 'updated_at'] });
      expect(rows.map((r) => [r.name, r.price, r.stock, r.description])).to.deep.equal([['A', 10.5, 4, null], ['B2', 2, 0, 'keep'], ['C', 3, 0, null]]);
      expect((rows[0].updated_at as Date).getTime()).to.be.greaterThan((before.updated_at as Date).getTime());
      expect(rows[2].id).to.equal(c);
    },
  },

  'update: guard on null field': {
    async run(h) {
      const [open, closed] = await insert(h, 'product', [{ name: 'Open', sku: 'O', price: 1, description: null }, { name: 'Closed', sku: 'C', price: 1, description: 'gone' }]);
      const items = [{ id: open, changes: { description: 'trashed' } }, { id: closed, changes: { description: 'trashed' } }];
      expect(await inTx(h, (tx) => h.driver.update('product', items, tx, { field: 'description', isNull: true }))).to.equal(1);
      expect((await list(h, 'product', { select: ['description'] })).map((r) => r.description)).to.deep.equal(['trashed', 'gone']);
      // the same guard again: nothing passes it any more
      expect(await inTx(h, (tx) => h.driver.update('product', items, tx, { field: 'description', isNull: true }))).to.equal(0);
      const restore = [{ id: open, changes: { description: null } }, { id: closed, changes: { description: null } }];
      expect(await inTx(h, (tx) => h.driver.update('product', restore, tx, { field: 'description', isNull: false }))).to.equal(2);
      expect((await list(h, 'product', { select: ['description'] })).map((r) => r.description)).to.deep.equal([null, null]);
    },
  },

  'delete: returns the ids really removed': {
    async run(h) {
      const [a, b, c] = await insert(h, 'tag', [{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
      const removed = await inTx(h, (tx) => h.driver.delete('tag', [a, h.missingId, c], tx));
      expect(text(removed)).to.deep.equal(text([a, c]));
      expect(names(await list(h, 'tag'))).to.deep.equal(['b']);
      // a second delete of the same ids removes nothing and says so
      expect(await inTx(h, (tx) => h.driver.delete('tag', [a, c], tx))).to.deep.equal([]);
      expect(await h.count('tag')).to.equal(1);
      expect(await inTx(h, (tx) => h.driver.delete('tag', [], tx))).to.deep.equal([]);
      expect(await h.driver.existingIds('tag', [b])).to.deep.equal([b]);
    },
  },

  'delete: restrict is a foreign_key_violation DriverFailure': {
    async run(h) {
      const [used, unused] = await insert(h, 'category', [{ name: 'Used' }, { name: 'Unused' }]);
      await insert(h, 'product', [{ name: 'P', sku: 'P', price: 1, category_id: used }]);
      const error = await failure(() => inTx(h, (tx) => h.driver.delete('category', [unused, used], tx)));
      expect(isDriverFailure(error), String(error)).to.equal(true);
      expect((error as { info: { type: string } }).info.type).to.equal('foreign_key_violation');
      // nothing was deleted, not even the unreferenced one
      expect(await h.count('category')).to.equal(2);
      expect(await h.count('product')).to.equal(1);
    },
  },

  'delete: cascade and set null follow the relations': {
    requires: ['pivots'],
    async run(h) {
      const { alpha, gamma, bob } = await catalogue(h);
      const [red] = await insert(h, 'tag', [{ name: 'red' }]);
      await inTx(h, (tx) => pivots(h).attach('product', 'tags', [{ parentId: alpha, relatedId: red, values: {} }, { parentId: gamma, relatedId: red, values: {} }], tx));
      await inTx(h, (tx) => h.driver.delete('product', [alpha], tx));
      expect(await h.count('review')).to.equal(1);
      expect((await h.pivotLinks()).map((l) => l.parentId)).to.deep.equal([gamma]);
      await inTx(h, (tx) => h.driver.delete('user', [bob], tx));
      expect((await list(h, 'review', { select: ['user_id', 'product_id'] })).map((r) => [r.product_id, r.user_id])).to.deep.equal([[gamma, null]]);
      await inTx(h, (tx) => h.driver.delete('tag', [red], tx));
      expect(await h.pivotLinks()).to.deep.equal([]);
    },
  },

  existingIds: {
    async run(h) {
      const [a, b] = await insert(h, 'tag', [{ name: 'a' }, { name: 'b' }]);
      expect(text(await h.driver.existingIds('tag', [b, h.missingId, a]))).to.deep.equal(text([a, b]));
      expect(await h.driver.existingIds('tag', [h.missingId])).to.deep.equal([]);
      expect(await h.driver.existingIds('tag', [])).to.deep.equal([]);
      // ids of another model are not ids of this one
      expect(await h.driver.existingIds('category', [a])).to.deep.equal([]);
    },
  },

  'transaction: rollback leaves nothing': {
    async run(h) {
      await insert(h, 'tag', [{ name: 'taken' }]);
      const error = await failure(() => inTx(h, async (tx) => {
        await h.driver.insert('tag', [{ name: 'fresh' }], tx);
        await h.driver.insert('category', [{ name: 'fresh too' }], tx);
        await h.driver.insert('tag', [{ name: 'taken' }], tx);
      }));
      expect(h.driver.translateError(error)?.type).to.equal('unique_violation');
      expect(names(await list(h, 'tag'))).to.deep.equal(['taken']);
      expect(await h.count('tag')).to.equal(1);
      expect(await h.count('category')).to.equal(0);
      // the work's own error passes through, its writes undone too
      const own = await failure(() => inTx(h, async (tx) => {
        await h.driver.insert('tag', [{ name: 'undone' }], tx);
        throw new Error('changed my mind');
      }));
      expect((own as Error).message).to.equal('changed my mind');
      expect(await h.count('tag')).to.equal(1);
      // and a transaction that succeeds answers what its work answered
      expect(await inTx(h, async () => 'done')).to.equal('done');
    },
  },

  'transaction: reads inside see the uncommitted writes': {
    async run(h) {
      const seen = await inTx(h, async (tx) => {
        const [id] = await h.driver.insert('tag', [{ name: 'inside' }], tx);
        const rows = (await h.driver.list(query('tag', { filter: cond('id', '=', id) }), tx)).rows;
        return { rows, exists: await h.driver.existingIds('tag', [id], tx) };
      });
      expect(names(seen.rows)).to.deep.equal(['inside']);
      expect(seen.exists).to.have.length(1);
    },
  },

  'pivots: attach is idempotent and answers what it inserted': {
    requires: ['pivots'],
    async run(h) {
      const [p] = await insert(h, 'product', [{ name: 'P', sku: 'P', price: 1 }]);
      const [red, green, blue] = await insert(h, 'tag', [{ name: 'red' }, { name: 'green' }, { name: 'blue' }]);
      const first = await inTx(h, (tx) => pivots(h).attach('product', 'tags', [
        { parentId: p, relatedId: red, values: { position: 1 } },
        { parentId: p, relatedId: green, values: {} },
      ], tx));
      expect(text(first)).to.deep.equal(text([red, green]));
      // red again (with other values: left as it is) and blue new: only blue is answered
      const second = await inTx(h, (tx) => pivots(h).attach('product', 'tags', [
        { parentId: p, relatedId: red, values: { position: 9 } },
        { parentId: p, relatedId: blue, values: { note: 'b' } },
      ], tx));
      // the database holds each pair once, red with its first values
      const links = (await h.pivotLinks()).map((l) => [String(l.relatedId), l.position, l.note]).sort();
      expect(links).to.deep.equal([[String(red), 1, null], [String(green), null, null], [String(blue), null, 'b']].sort());
      expect(text(second)).to.deep.equal(text([blue]));
      expect(await inTx(h, (tx) => pivots(h).attach('product', 'tags', [], tx))).to.deep.equal([]);
    },
  },

  'pivots: read': {
    requires: ['pivots'],
    async run(h) {
      const [p, q] = await insert(h, 'product', [{ name: 'P', sku: 'P', price: 1 }, { name: 'Q', sku: 'Q', price: 1 }]);
      const [red, green] = await insert(h, 'tag', [{ name: 'red' }, { name: 'green' }]);
      await inTx(h, (tx) => pivots(h).attach('product', 'tags', [
        { parentId: p, relatedId: red, values: { position: 1, note: 'r' } },
        { parentId: p, relatedId: green, values: { position: 2 } },
        { parentId: q, relatedId: red, values: {} },
      ], tx));
      const all = (await pivots(h).read('product', 'tags', p, null)).sort((a, b) => String(a.values.position).localeCompare(String(b.values.position)));
      expect(all).to.deep.equal([
        { parentId: p, relatedId: red, values: { position: 1, note: 'r' } },
        { parentId: p, relatedId: green, values: { position: 2, note: null } },
      ]);
      expect((await pivots(h).read('product', 'tags', p, [green])).map((r) => r.relatedId)).to.deep.equal([green]);
      // from the other side of the relation
      expect(text((await pivots(h).read('tag', 'products', red, null)).map((r) => r.relatedId))).to.deep.equal(text([p, q]));
      expect(await pivots(h).read('product', 'tags', h.missingId, null)).to.deep.equal([]);
    },
  },

  'pivots: detach': {
    requires: ['pivots'],
    async run(h) {
      const [p, q] = await insert(h, 'product', [{ name: 'P', sku: 'P', price: 1 }, { name: 'Q', sku: 'Q', price: 1 }]);
      const [red, green, blue] = await insert(h, 'tag', [{ name: 'red' }, { name: 'green' }, { name: 'blue' }]);
      await inTx(h, (tx) => pivots(h).attach('product', 'tags', [
        { parentId: p, relatedId: red, values: {} }, { parentId: p, relatedId: green, values: {} }, { parentId: p, relatedId: blue, values: {} },
        { parentId: q, relatedId: red, values: {} },
      ], tx));
      // only the pairs really removed are answered (blue twice, a never-linked id)
      const some = await inTx(h, (tx) => pivots(h).detach('product', 'tags', p, [red, h.missingId], tx));
      expect(text(some)).to.deep.equal(text([red]));
      expect(await inTx(h, (tx) => pivots(h).detach('product', 'tags', p, [], tx))).to.deep.equal([]);
      const rest = await inTx(h, (tx) => pivots(h).detach('product', 'tags', p, null, tx));
      expect(text(rest)).to.deep.equal(text([green, blue]));
      // the other parent's link stays, the tags themselves stay
      expect((await h.pivotLinks()).map((l) => [l.parentId, l.relatedId])).to.deep.equal([[q, red]]);
      expect(await h.count('tag')).to.equal(3);
    },
  },

  'pivots: update': {
    requires: ['pivots'],
    async run(h) {
      const [p] = await insert(h, 'product', [{ name: 'P', sku: 'P', price: 1 }]);
      const [red, green] = await insert(h, 'tag', [{ name: 'red' }, { name: 'green' }]);
      await inTx(h, (tx) => pivots(h).attach('product', 'tags', [
        { parentId: p, relatedId: red, values: { position: 1, note: 'keep' } },
        { parentId: p, relatedId: green, values: { position: 2, note: 'old' } },
      ], tx));
      await inTx(h, (tx) => pivots(h).update('product', 'tags', [
        { parentId: p, relatedId: red, values: { position: 10 } },
        { parentId: p, relatedId: green, values: { note: null } },
      ], tx));
      const links = (await h.pivotLinks()).map((l) => [String(l.relatedId), l.position, l.note]).sort();
      expect(links).to.deep.equal([[String(red), 10, 'keep'], [String(green), 2, null]].sort());
      await inTx(h, (tx) => pivots(h).update('product', 'tags', [], tx));
    },
  },

  'parseId rejects malformed ids': {
    async run(h) {
      const [id] = await insert(h, 'tag', [{ name: 'x' }]);
      expect(h.driver.parseId('tag', String(id))).to.equal(id);
      expect(h.driver.parseId('tag', String(h.missingId))).to.equal(h.missingId);
      for (const bad of ['', 'abc', '-1', '1.5', ' 1', `${String(id)} `, '1e3', 'zzzzzzzzzzzzzzzzzzzzzzzz', '[object Object]']) {
        expect(h.driver.parseId('tag', bad), JSON.stringify(bad)).to.equal(null);
      }
    },
  },

  'translateError: unique violation names the field': {
    async run(h) {
      await insert(h, 'product', [{ name: 'P', sku: 'SKU-1', price: 1 }]);
      const error = await failure(() => insert(h, 'product', [{ name: 'Q', sku: 'SKU-2', price: 1 }, { name: 'R', sku: 'SKU-1', price: 1 }]));
      expect(h.driver.translateError(error)).to.deep.equal({ type: 'unique_violation', field: 'sku' });
      expect(await h.count('product')).to.equal(1);
      const [a] = await insert(h, 'tag', [{ name: 'one' }, { name: 'two' }]);
      const viaUpdate = await failure(() => inTx(h, (tx) => h.driver.update('tag', [{ id: a, changes: { name: 'two' } }], tx)));
      expect(h.driver.translateError(viaUpdate)).to.deep.equal({ type: 'unique_violation', field: 'name' });
      expect(h.driver.translateError(new Error('plain'))).to.equal(null);
    },
  },

  'streams: every row of a query': {
    requires: ['streams'],
    async run(h) {
      await catalogue(h);
      const extra = Array.from({ length: 30 }, (_, i) => ({ name: `S${String(i).padStart(2, '0')}`, sku: `S${i}`, price: 1000 + i }));
      await insert(h, 'product', extra);
      const wanted = query('product', { filter: cond('price', '>=', 100), order: [key('price', 'desc'), ID], select: ['name', 'price'] });
      const rows: Row[] = [];
      // the page of a query does not narrow a stream: every matching row comes
      for await (const row of h.driver.streams!.stream({ ...wanted, page: { kind: 'offset', page: 1, size: 2 } })) rows.push(row);
      expect(rows).to.have.length(33);
      expect(names(rows)).to.deep.equal(names(await list(h, 'product', wanted)));
      expect(names(rows).slice(-3)).to.deep.equal(['Epsilon', 'Beta', 'Alpha']);
    },
  },
} satisfies Record<string, ContractCase>;

export type CaseName = keyof typeof CASES;
export const CASE_NAMES = Object.keys(CASES) as CaseName[];

/**
 * What a driver file declares: the cases it passes, those it skips with the reason (a capability it
 * does not have), and the cases it is known to FAIL with what is wrong (run, and expected to fail:
 * when the driver is fixed the case reports it, to be moved to `passes`).
 */
export interface Conformance {
  passes: CaseName[];
  skipped: Partial<Record<CaseName, string>>;
  knownFailures?: Partial<Record<CaseName, string>>;
}

/**
 * Runs the named cases a driver declares against the harness, empties the database before each,
 * and checks the declaration itself: every case listed exactly once, no skip without a reason, and
 * no case declared passing while the driver lacks a capability it needs.
 */
export function runDriverContract(title: string, factory: HarnessFactory, conformance: Conformance): void {
  describe(`driver contract: ${title}`, function () {
    this.timeout(120_000);
    let harness: (DriverHarness & { close(): Promise<void> }) | undefined;

    before(async () => {
      harness = await factory();
    });
    after(async () => harness?.close());
    beforeEach(async () => harness?.reset());

    const knownFailures = conformance.knownFailures ?? {};

    it('declares every named case exactly once (passes, skipped or known failure, with a reason)', () => {
      const skipped = Object.keys(conformance.skipped) as CaseName[];
      const failing = Object.keys(knownFailures) as CaseName[];
      const listed = [...conformance.passes, ...skipped, ...failing];
      expect(new Set(listed).size, 'a case listed twice').to.equal(listed.length);
      expect([...listed].sort()).to.deep.equal([...CASE_NAMES].sort());
      for (const name of skipped) expect(conformance.skipped[name], name).to.be.a('string').and.not.equal('');
      for (const name of failing) expect(knownFailures[name], name).to.be.a('string').and.not.equal('');
      for (const name of conformance.passes) {
        const requires: Capability[] = (CASES[name] as ContractCase).requires ?? [];
        for (const capability of requires) expect(harness!.driver[capability], `${name} needs ${capability}`).to.not.equal(undefined);
      }
    });

    for (const name of CASE_NAMES) {
      const reason = conformance.skipped[name];
      if (reason !== undefined) {
        it.skip(`${name} (skipped: ${reason})`, () => undefined);
        continue;
      }
      const failure = knownFailures[name];
      if (failure !== undefined) {
        it(`${name} (known failure: ${failure})`, async () => {
          let passed = false;
          try {
            await (CASES[name] as ContractCase).run(harness!);
            passed = true;
          } catch {
            // the declared divergence: still there
          }
          if (passed) expect.fail(`"${name}" passes now: move it from knownFailures to passes`);
        });
        continue;
      }
      if (!conformance.passes.includes(name)) continue;
      it(name, async () => (CASES[name] as ContractCase).run(harness!));
    }
  });
}
