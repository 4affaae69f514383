import { findByIds } from '../../support/find-by-ids';
import { expect } from 'chai';
import type { DatabaseErrorInfo, Driver, Id, Row, Transaction } from '../../../lib/driver';
import { createSqlDriver, isSequelizeModel } from '../../../drivers/sql';
import type { Filter, ListQuery, OrderKey, RelationLoad } from '../../../lib/query/ast';
import type { Catalog } from '../../../lib/resource/model-info';
import { DriverFailure } from '../../../lib/driver';
import { freshPostgresDatabase } from '../../support/databases';
import { defineModels, describeAll, type DbModels } from './db-models';

const cond = (field: string, operator: string, value?: unknown): Filter => ({ kind: 'condition', field, operator, value } as Filter);
const and = (...filters: Filter[]): Filter => ({ kind: 'and', filters });
const or = (...filters: Filter[]): Filter => ({ kind: 'or', filters });
const related = (relation: string, filter: Filter | null): Filter => ({ kind: 'related', relation, filter });
const load = (name: string, columns: string[] | null = null, children: RelationLoad[] = [], filter: Filter | null = null): RelationLoad => ({ name, columns, children, filter });
const byId: OrderKey = { relations: [], field: 'id', direction: 'asc' };
const q = (over: Partial<ListQuery> = {}): ListQuery => ({
  model: 'product', filter: null, select: null, relations: [], order: [byId], page: null, limit: null, ...over,
});
const names = (rows: Row[]): string[] => rows.map((r) => r.name as string);

describe('sql driver against PostgreSQL', function () {
  this.timeout(120_000);
  let db: DbModels;
  let driver: Driver;
  let catalog: Catalog;
  let database: { uri: string; drop(): Promise<void> };
  const log: string[] = [];
  const ids: Record<string, Id> = {};

  const insert = async (model: string, records: Record<string, unknown>[]): Promise<Id[]> =>
    driver.transaction((tx) => driver.insert(model, records, tx));

  before(async () => {
    database = await freshPostgresDatabase('sql_driver');
    db = defineModels(database.uri, (sql) => log.push(sql));
    await db.sequelize.sync({ force: true });
    driver = createSqlDriver(db.sequelize);
    catalog = describeAll(driver, db.declarations);

    const [electronics] = await insert('category', [{ name: 'Electronics', parent_id: null }]);
    const [phones, books] = await insert('category', [{ name: 'Phones', parent_id: electronics }, { name: 'Books' }]);
    Object.assign(ids, { electronics, phones, books });
    const [ann, bob, cid] = await insert('user', [
      { name: 'Ann', email: 'ann@x.test', roles: ['admin', 'editor'], api_token: 'secret-ann' },
      { name: 'Bob', email: 'bob@x.test', roles: ['editor'] },
      { name: 'Cid', email: 'cid@x.test' },
    ]);
    Object.assign(ids, { ann, bob, cid });
    const [alpha, beta, gamma, delta, epsilon] = await insert('product', [
      { name: 'Alpha Phone', sku: 'A1', price: 100, stock: 5, status: 'active', description: 'new (x)', featured: true, category_id: phones },
      { name: 'beta phone', sku: 'B1', price: 200, stock: 0, status: 'inactive', description: null, category_id: phones },
      { name: 'Gamma Laptop', sku: 'G1', price: 1500.5, stock: 3, status: 'active', description: 'Fast, light', featured: true, category_id: electronics },
      { name: 'Delta Book', sku: 'D1', price: 20, stock: 7, description: 'a\\b%', category_id: books },
      { name: 'Epsilon Thing', sku: '00123', price: 0, stock: 1, status: 'active', description: 'x', category_id: null },
    ]);
    Object.assign(ids, { alpha, beta, gamma, delta, epsilon });
    await insert('review', [
      { product_id: alpha, user_id: ann, rating: 5, comment: 'great' },
      { product_id: alpha, user_id: bob, rating: 3, comment: null },
      { product_id: gamma, user_id: ann, rating: 4, comment: 'ok' },
    ]);
    const [red, green] = await insert('tag', [{ name: 'red' }, { name: 'green' }]);
    Object.assign(ids, { red, green });
    await db.ProductTag.bulkCreate([
      { product_id: alpha, tag_id: red, position: 1, note: 'n1' },
      { product_id: alpha, tag_id: green, position: 2, note: null },
      { product_id: gamma, tag_id: red, position: null, note: null },
    ]);
  });

  after(async () => {
    await db?.sequelize.close();
    await database?.drop();
  });

  describe('describe', () => {
    it('reads field types, ids, write-only fields and relations from the model', () => {
      const product = catalog.model('product');
      expect(product.key).to.equal('id');
      expect(product.fields.id).to.include({ type: 'id', idType: 'integer', nullable: false });
      expect(product.fields.category_id).to.include({ type: 'id', idType: 'integer', nullable: true });
      expect(product.fields.price.type).to.equal('number');
      expect(product.fields.stock.type).to.equal('integer');
      expect(product.fields.featured.type).to.equal('boolean');
      expect(product.fields.created_at.type).to.equal('date');
      expect(product.timestamps).to.equal(true);
      expect(product.relations.category).to.deep.include({ kind: 'belongsTo', target: 'category', foreignKey: 'category_id', onDelete: 'restrict' });
      expect(product.relations.reviews).to.deep.include({ kind: 'hasMany', target: 'review', foreignKey: 'product_id' });
      expect(product.relations.tags.pivot).to.deep.equal({
        table: 'product_tag', parentKey: 'product_id', relatedKey: 'tag_id', columns: ['position', 'note'], columnTypes: { position: 'integer', note: 'string' },
      });
      const user = catalog.model('user');
      expect(user.fields.roles).to.include({ type: 'array', itemType: 'string' });
      expect(user.fields.api_token.writeOnly).to.equal(true);
      const review = catalog.model('review');
      expect(review.relations.product.onDelete).to.equal('cascade');
      expect(review.relations.user.onDelete).to.equal('setNull');
    });

    it('recognises Sequelize models and parses ids', () => {
      expect(isSequelizeModel(db.Product)).to.equal(true);
      expect(isSequelizeModel({})).to.equal(false);
      expect(driver.parseId('product', '12')).to.equal(12);
      for (const bad of ['abc', '0', '-1', '1.5', '01', '99999999999', ' 1']) expect(driver.parseId('product', bad), bad).to.equal(null);
    });
  });

  describe('list', () => {
    it('returns typed rows: decimal as number, dates as Date, every readable field, no write-only field', async () => {
      const { rows } = await driver.list(q({ filter: cond('sku', '=', 'G1') }));
      expect(rows).to.have.length(1);
      expect(rows[0].price).to.equal(1500.5);
      expect(rows[0].created_at).to.be.instanceOf(Date);
      expect(Object.keys(rows[0]).sort()).to.deep.equal(
        ['category_id', 'created_at', 'description', 'featured', 'id', 'name', 'price', 'sku', 'status', 'stock', 'updated_at'],
      );
      const users = await driver.list(q({ model: 'user' }));
      expect(users.rows.map((u) => u.api_token)).to.deep.equal([undefined, undefined, undefined]);
      expect(users.rows[0].roles).to.deep.equal(['admin', 'editor']);
    });

    const cases: [string, Filter, string[]][] = [
      ['!= also matches NULL', cond('description', '!=', 'x'), ['Alpha Phone', 'beta phone', 'Gamma Laptop', 'Delta Book']],
      ['not in also matches NULL', cond('description', 'not in', ['x', 'new (x)']), ['beta phone', 'Gamma Laptop', 'Delta Book']],
      ['like is case-sensitive and anchored', cond('name', 'like', '%Phone'), ['Alpha Phone']],
      ['ilike', cond('name', 'ilike', '%PHONE'), ['Alpha Phone', 'beta phone']],
      ['like keeps a backslash literal', cond('description', 'like', 'a\\b_'), ['Delta Book']],
      ['not like matches NULL', cond('description', 'not like', '%x%'), ['beta phone', 'Gamma Laptop', 'Delta Book']],
      ['between is inclusive', cond('price', 'between', [20, 200]), ['Alpha Phone', 'beta phone', 'Delta Book']],
      ['not between', cond('price', 'not between', [20, 200]), ['Gamma Laptop', 'Epsilon Thing']],
      ['null', cond('category_id', 'null'), ['Epsilon Thing']],
      ['string compare', cond('sku', '<', 'B'), ['Alpha Phone', 'Epsilon Thing']],
      ['or inside and', and(cond('price', '<=', 200), or(cond('status', '=', 'draft'), cond('stock', '=', 0))), ['beta phone', 'Delta Book']],
      ['enum compared as text: unknown label matches nothing', cond('status', '=', 'archived'), []],
      ['enum like', cond('status', 'like', 'in%'), ['beta phone']],
      ['enum != unknown label', cond('status', '!=', 'archived'), ['Alpha Phone', 'beta phone', 'Gamma Laptop', 'Delta Book', 'Epsilon Thing']],
      ['belongsTo exists', related('category', cond('name', '=', 'Phones')), ['Alpha Phone', 'beta phone']],
      ['belongsTo dot path', related('category', related('parent', cond('name', '=', 'Electronics'))), ['Alpha Phone', 'beta phone']],
      ['hasMany exists', related('reviews', cond('rating', '>=', 4)), ['Alpha Phone', 'Gamma Laptop']],
      ['hasMany any', related('reviews', null), ['Alpha Phone', 'Gamma Laptop']],
      ['hasMany -> belongsTo', related('reviews', related('user', cond('name', '=', 'Bob'))), ['Alpha Phone']],
      ['belongsToMany', related('tags', cond('name', '=', 'green')), ['Alpha Phone']],
    ];
    for (const [title, filter, expected] of cases) {
      it(`filter: ${title}`, async () => {
        expect(names((await driver.list(q({ filter }))).rows)).to.deep.equal(expected);
      });
    }

    it('array fields: = means contains, in means overlaps, != matches arrays without it', async () => {
      const list = async (filter: Filter) => names((await driver.list(q({ model: 'user', filter }))).rows);
      expect(await list(cond('roles', '=', 'admin'))).to.deep.equal(['Ann']);
      expect(await list(cond('roles', 'in', ['admin', 'editor']))).to.deep.equal(['Ann', 'Bob']);
      expect(await list(cond('roles', '!=', 'admin'))).to.deep.equal(['Bob', 'Cid']);
      expect(await list(cond('roles', 'not in', ['admin']))).to.deep.equal(['Bob', 'Cid']);
    });

    it('orders nulls like MongoDB and sorts on a to-one relation field', async () => {
      const asc = await driver.list(q({ order: [{ relations: [], field: 'description', direction: 'asc' }, byId], select: ['name'] }));
      expect(names(asc.rows)[0]).to.equal('beta phone');
      const desc = await driver.list(q({ order: [{ relations: [], field: 'description', direction: 'desc' }, byId] }));
      expect(names(desc.rows).at(-1)).to.equal('beta phone');
      const byCategory = await driver.list(q({ order: [{ relations: ['category'], field: 'name', direction: 'asc' }, byId] }));
      expect(names(byCategory.rows)).to.deep.equal(['Epsilon Thing', 'Delta Book', 'Gamma Laptop', 'Alpha Phone', 'beta phone']);
    });

    it('sorts an enum alphabetically (as MongoDB sorts strings), not in label order', async () => {
      const res = await driver.list(q({ order: [{ relations: [], field: 'status', direction: 'asc' }, byId], select: ['status'] }));
      expect(res.rows.map((r) => r.status)).to.deep.equal(['active', 'active', 'active', 'draft', 'inactive']);
    });

    it('offset pages carry the total', async () => {
      const res = await driver.list(q({ filter: related('reviews', null), page: { kind: 'offset', page: 2, size: 1 } }));
      expect(names(res.rows)).to.deep.equal(['Gamma Laptop']);
      expect(res.total).to.equal(2);
      const all = await driver.list(q({ limit: 2 }));
      expect(all.rows).to.have.length(2);
      expect(all.total).to.equal(undefined);
    });

    it('cursor pages walk any order (mixed directions, nulls, relation keys) without gaps or repeats', async () => {
      const orders: OrderKey[][] = [
        [{ relations: [], field: 'description', direction: 'desc' }, byId],
        [{ relations: [], field: 'description', direction: 'asc' }, { relations: [], field: 'id', direction: 'desc' }],
        [{ relations: ['category'], field: 'name', direction: 'desc' }, { relations: [], field: 'price', direction: 'asc' }, byId],
        [{ relations: [], field: 'status', direction: 'asc' }, { relations: [], field: 'price', direction: 'desc' }, byId],
      ];
      for (const order of orders) {
        const full = names((await driver.list(q({ order }))).rows);
        for (const size of [1, 2, 3]) {
          const seen: string[] = [];
          let after: ListQuery['page'] = { kind: 'cursor', size, after: null };
          for (let guard = 0; guard < 10; guard += 1) {
            const res = await driver.list(q({ order, page: after }));
            seen.push(...names(res.rows));
            if (!res.hasMore) {
              expect(res.nextAfter).to.equal(null);
              break;
            }
            expect(res.nextAfter).to.have.length(order.length);
            after = { kind: 'cursor', size, after: res.nextAfter ?? null };
          }
          expect(seen, `${JSON.stringify(order)} size ${size}`).to.deep.equal(full);
        }
      }
    });

    it('eager-loads every relation kind with columns, nesting, pivots and _nested filters', async () => {
      const res = await driver.list(q({
        filter: cond('sku', 'in', ['A1', 'E1', '00123']),
        select: ['name'],
        relations: [
          load('category', ['name'], [load('parent', ['name'])]),
          load('reviews', ['rating'], [load('user', ['name'])]),
          load('tags', ['name']),
        ],
      }));
      const [alpha, epsilon] = res.rows;
      expect(alpha).to.deep.equal({
        id: ids.alpha, name: 'Alpha Phone', category_id: ids.phones,
        category: { id: ids.phones, name: 'Phones', parent_id: ids.electronics, parent: { id: ids.electronics, name: 'Electronics' } },
        reviews: [
          { id: (alpha.reviews as Row[])[0].id, rating: 5, product_id: ids.alpha, user_id: ids.ann, user: { id: ids.ann, name: 'Ann' } },
          { id: (alpha.reviews as Row[])[1].id, rating: 3, product_id: ids.alpha, user_id: ids.bob, user: { id: ids.bob, name: 'Bob' } },
        ],
        tags: [
          { id: ids.red, name: 'red', pivot: { product_id: ids.alpha, tag_id: ids.red, position: 1, note: 'n1' } },
          { id: ids.green, name: 'green', pivot: { product_id: ids.alpha, tag_id: ids.green, position: 2, note: null } },
        ],
      });
      expect(epsilon).to.deep.include({ category: null, reviews: [], tags: [] });

      const nested = await driver.list(q({
        filter: related('reviews', cond('rating', '>=', 4)),
        relations: [load('reviews', null, [], cond('rating', '>=', 4))],
      }));
      expect(nested.rows.map((r) => (r.reviews as Row[]).map((x) => x.rating))).to.deep.equal([[5], [4]]);
      expect(Object.keys((nested.rows[0].reviews as Row[])[0]).sort()).to.deep.equal(
        ['comment', 'created_at', 'id', 'product_id', 'rating', 'updated_at', 'user_id'],
      );
    });

    it('runs the same number of statements for a page of 1 and a page of 100', async () => {
      const extra = await insert('product', Array.from({ length: 120 }, (_, i) => ({
        name: `Bulk ${String(i).padStart(3, '0')}`, sku: `BULK-${i}`, price: i, category_id: ids.phones,
      })));
      await insert('review', extra.map((id) => ({ product_id: id, user_id: ids.bob, rating: 4 })));
      const count = async (size: number): Promise<number> => {
        log.length = 0;
        const res = await driver.list(q({
          filter: and(cond('price', '>=', 0), related('reviews', cond('rating', '>=', 3))),
          relations: [load('category', ['name']), load('reviews', ['rating'], [load('user', ['name'])])],
          order: [{ relations: ['category'], field: 'name', direction: 'asc' }, byId],
          page: { kind: 'offset', page: 1, size },
        }));
        expect(res.rows).to.have.length(size);
        return log.length;
      };
      const small = await count(1);
      const large = await count(100);
      expect(small).to.equal(4); // page (category joined in), count, reviews, reviews.user
      expect(large).to.equal(small);
      await driver.transaction((tx) => driver.delete('product', extra, tx));
    });
  });

  describe('writes', () => {
    it('inserts in one statement, returning ids in order, with model defaults', async () => {
      log.length = 0;
      const created = await insert('product', [
        { name: 'W1', sku: 'W1', price: 1 },
        { name: 'W2', sku: 'W2', price: 2, stock: 9, status: 'active' },
      ]);
      expect(log.filter((s) => /INSERT/.test(s))).to.have.length(1);
      const rows = await findByIds(driver, catalog, 'product', [created[1], created[0]], { select: ['name', 'stock', 'status'], relations: [] });
      expect(rows).to.deep.equal([
        { id: created[1], name: 'W2', stock: 9, status: 'active' },
        { id: created[0], name: 'W1', stock: 0, status: 'draft' },
      ]);
      expect(await driver.existingIds('product', [created[0], 999999])).to.deep.equal([created[0]]);
    });

    it('updates many records with different changes in one statement and sets updated_at', async () => {
      const [a, b] = await insert('product', [{ name: 'U1', sku: 'U1', price: 1 }, { name: 'U2', sku: 'U2', price: 2, description: 'keep' }]);
      const [before] = await findByIds(driver, catalog, 'product', [a], { select: null, relations: [] });
      await new Promise((r) => setTimeout(r, 5));
      log.length = 0;
      await driver.transaction((tx) => driver.update('product', [
        { id: a, changes: { price: 11.25, description: null } },
        { id: b, changes: { name: 'U2b' } },
      ], tx));
      expect(log.filter((s) => /UPDATE/.test(s))).to.have.length(1);
      const rows = await findByIds(driver, catalog, 'product', [a, b], { select: ['name', 'price', 'description', 'updated_at'], relations: [] });
      expect(rows.map((r) => [r.name, r.price, r.description])).to.deep.equal([['U1', 11.25, null], ['U2b', 2, 'keep']]);
      expect((rows[0].updated_at as Date).getTime()).to.be.greaterThan((before.updated_at as Date).getTime());
    });

    it('restrict -> foreign_key_violation, cascade and set null follow the foreign keys', async () => {
      const [cat] = await insert('category', [{ name: 'Doomed' }]);
      const [p] = await insert('product', [{ name: 'R', sku: 'R1', price: 1, category_id: cat }]);
      const [u] = await insert('user', [{ name: 'Zed', email: 'zed@x.test' }]);
      const [r] = await insert('review', [{ product_id: p, user_id: u, rating: 2 }]);
      await db.ProductTag.create({ product_id: p, tag_id: ids.red });

      const err = await driver.transaction((tx) => driver.delete('category', [cat], tx)).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(DriverFailure);
      // decision 78: counted in the DELETE statement itself, named as the category declares the relation
      expect((err as DriverFailure).info).to.deep.equal({ type: 'foreign_key_violation', relation: 'products', count: 1 });
      expect(await driver.existingIds('category', [cat])).to.deep.equal([cat]);

      await driver.transaction((tx) => driver.delete('user', [u], tx));
      const [review] = await findByIds(driver, catalog, 'review', [r], { select: ['user_id'], relations: [] });
      expect(review.user_id).to.equal(null);
      await driver.transaction((tx) => driver.delete('product', [p], tx));
      expect(await driver.existingIds('review', [r])).to.deep.equal([]);
      expect(await db.ProductTag.count({ where: { product_id: p } })).to.equal(0);
      await driver.transaction((tx) => driver.delete('category', [cat], tx));
    });

    it('rolls back the whole transaction when the work throws', async () => {
      const err = await driver.transaction(async (tx: Transaction) => {
        await driver.insert('tag', [{ name: 'rollback-me' }], tx);
        await driver.insert('tag', [{ name: 'red' }], tx);
      }).catch((e: unknown) => e);
      expect(driver.translateError(err)).to.deep.equal({ type: 'unique_violation', field: 'name' });
      expect(names((await driver.list(q({ model: 'tag', filter: cond('name', '=', 'rollback-me') }))).rows)).to.deep.equal([]);
    });

    it('translates unique, not-null, bad values and foreign keys', async () => {
      const fail = (work: (tx: Transaction) => Promise<unknown>): Promise<DatabaseErrorInfo | null> =>
        driver.transaction(work).then(() => null, (e: unknown) => driver.translateError(e));
      expect(await fail((tx) => driver.insert('product', [{ name: 'X', sku: 'A1', price: 1 }], tx))).to.deep.equal({ type: 'unique_violation', field: 'sku' });
      expect(await fail((tx) => driver.insert('product', [{ name: null, sku: 'NN', price: 1 }], tx))).to.deep.equal({ type: 'not_null_violation', field: 'name' });
      expect(await fail((tx) => driver.insert('product', [{ name: 'X', sku: 'FK', price: 1, category_id: 999999 }], tx)))
        .to.deep.equal({ type: 'foreign_key_violation', field: 'category_id' });
      expect((await fail((tx) => driver.insert('product', [{ name: 'X', sku: 'BV', price: 'abc' }], tx)))?.type).to.equal('bad_request');
      expect(driver.translateError(new Error('plain'))).to.equal(null);
    });
  });
});
