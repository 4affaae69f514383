import { findByIds } from '../../support/find-by-ids';
import { expect } from 'chai';
import mongoose, { Schema, type Connection, type Model } from 'mongoose';
import { createMongoDriver } from '../../../drivers/mongo';
import type { Driver, Id, Row } from '../../../lib/driver';
import type { ListQuery, OrderKey, RelationLoad } from '../../../lib/query/ast';
import type { ResourceDeclaration } from '../../../lib/declaration';
import type { Catalog, ModelInfo } from '../../../lib/resource/model-info';
import { DriverFailure } from '../../../lib/driver';
import { sharedMongo } from '../../support/databases';

/** The MongoDB driver against a real server (startMongo): its own small models and database. */

const timestamps = { createdAt: 'created_at', updatedAt: 'updated_at' } as const;
const { ObjectId } = Schema.Types;

function defineModels(conn: Connection): Record<string, Model<unknown>> {
  const category = new Schema({ name: { type: String, required: true }, parent_id: { type: ObjectId, ref: 'DCat', default: null } }, { timestamps, collection: 'd_categories' });
  const product = new Schema(
    {
      name: { type: String, required: true },
      sku: { type: String, required: true, unique: true },
      price: { type: Number, required: true, min: 0 },
      stock: { type: Number, default: 0, integer: true },
      description: { type: String },
      category_id: { type: ObjectId, ref: 'DCat', default: null },
    },
    { timestamps, collection: 'd_products' },
  );
  product.virtual('reviews', { ref: 'DRev', localField: '_id', foreignField: 'product_id' });
  const review = new Schema(
    { product_id: { type: ObjectId, ref: 'DProd', required: true }, user_id: { type: ObjectId, ref: 'DUser', default: null }, rating: { type: Number, required: true, min: 1, max: 5 } },
    { timestamps, collection: 'd_reviews' },
  );
  const tag = new Schema({ name: { type: String, required: true, unique: true } }, { timestamps, collection: 'd_tags' });
  const user = new Schema({ name: String, email: { type: String, unique: true }, roles: [String], api_token: String }, { timestamps, collection: 'd_users' });
  const pivot = new Schema({ product_id: ObjectId, tag_id: ObjectId, position: Number, note: String }, { collection: 'd_product_tag', versionKey: false });
  const model = (name: string, schema: Schema) => conn.model(name, schema) as unknown as Model<unknown>;
  return {
    DCat: model('DCat', category),
    DProd: model('DProd', product),
    DRev: model('DRev', review),
    DTag: model('DTag', tag),
    DUser: model('DUser', user),
    DPivot: model('DPivot', pivot),
  };
}

const PIVOT = { table: 'd_product_tag', parentKey: 'product_id', relatedKey: 'tag_id', columns: ['position', 'note'], columnTypes: { position: 'integer' as const, note: 'string' as const } };

function declarations(m: Record<string, Model<unknown>>): ResourceDeclaration[] {
  return [
    {
      name: 'categories', MODEL: 'category', model: m.DCat, fillable: ['name', 'parent_id'],
      RELATIONS: ['parent', 'children', 'products'],
      // parent comes from the `ref`; the to-many sides are declared
      relations: { children: { kind: 'hasMany', target: 'category', foreignKey: 'parent_id' }, products: { kind: 'hasMany', target: 'product', foreignKey: 'category_id' } },
    },
    {
      name: 'products', MODEL: 'product', model: m.DProd, fillable: ['name', 'sku', 'price', 'stock', 'description', 'category_id'],
      // category from the ref (restrict by default), reviews from the virtual populate
      RELATIONS: ['category', 'reviews', 'tags'],
      relations: { tags: { kind: 'belongsToMany', target: 'tag', pivot: PIVOT } },
    },
    {
      name: 'reviews', MODEL: 'review', model: m.DRev, fillable: ['product_id', 'user_id', 'rating'],
      RELATIONS: ['product', 'user'],
      relations: {
        product: { kind: 'belongsTo', target: 'product', foreignKey: 'product_id', onDelete: 'cascade' },
        user: { kind: 'belongsTo', target: 'user', foreignKey: 'user_id', onDelete: 'setNull' },
      },
    },
    {
      name: 'tags', MODEL: 'tag', model: m.DTag, fillable: ['name'], RELATIONS: ['products'],
      relations: { products: { kind: 'belongsToMany', target: 'product', pivot: { ...PIVOT, parentKey: 'tag_id', relatedKey: 'product_id' } } },
    },
    { name: 'users', MODEL: 'user', model: m.DUser, fillable: ['name', 'email', 'roles', 'api_token'], writeOnly: ['api_token'], RELATIONS: [] },
  ];
}

/** What the registry does, minus everything the driver does not need. */
function buildCatalog(driver: Driver, decls: ResourceDeclaration[]): Catalog {
  const native = new Map(decls.map((d) => [(d.model as { modelName: string }).modelName, d.MODEL]));
  const infos = new Map<string, ModelInfo>();
  for (const d of decls) {
    const described = driver.describe(d, (n) => native.get(n));
    infos.set(d.MODEL, { ...described, name: d.MODEL, fillable: d.fillable, fieldsByRole: {}, hierarchyField: null, softDelete: null, owner: null });
  }
  const catalog: Catalog = {
    model: (name) => {
      const info = infos.get(name);
      if (!info) throw new Error(`unknown ${name}`);
      return info;
    },
    has: (name) => infos.has(name),
    all: () => [...infos.values()],
  };
  driver.bind(catalog);
  return catalog;
}

const ID: OrderKey = { relations: [], field: 'id', direction: 'asc' };
const q = (over: Partial<ListQuery>): ListQuery => ({ model: 'product', filter: null, select: null, relations: [], order: [ID], page: null, limit: null, ...over });
const load = (name: string, columns: string[] | null = null, children: RelationLoad[] = []): RelationLoad => ({ name, columns, children, filter: null });

describe('mongo driver against a database', function () {
  let conn: Connection;
  let models: Record<string, Model<unknown>>;
  let driver: Driver;
  let catalog: Catalog;
  const aggregates: string[] = [];
  let ids: Record<string, Id> = {};

  const insert = (model: string, records: Record<string, unknown>[]) => driver.transaction((tx) => driver.insert(model, records, tx));
  const names = (rows: Row[]) => rows.map((r) => r.name);

  before(async function () {
    const mongo = await sharedMongo();
    conn = mongoose.createConnection(mongo.uri, { dbName: 'mongo_driver_db_test', monitorCommands: true, autoIndex: false });
    await conn.asPromise();
    await conn.dropDatabase();
    models = defineModels(conn);
    for (const model of Object.values(models)) {
      await model.createCollection();
      await model.syncIndexes();
    }
    conn.getClient().on('commandStarted', (event) => {
      if (event.commandName === 'aggregate') aggregates.push(String(event.command.aggregate));
    });
    driver = createMongoDriver(conn);
    catalog = buildCatalog(driver, declarations(models));
  });

  after(async () => {
    if (conn) {
      await conn.dropDatabase().catch(() => undefined);
      await conn.close();
    }
  });

  beforeEach(async () => {
    for (const model of Object.values(models)) await model.deleteMany({});
    const [phones, laptops, gadgets] = await insert('category', [{ name: 'Phones' }, { name: 'Laptops' }, { name: 'Gadgets' }]);
    await driver.transaction((tx) => driver.update('category', [{ id: gadgets, changes: { parent_id: phones } }], tx));
    const [p1, p2, p3, p4] = await insert('product', [
      { name: 'Alpha phone', sku: 'A-1', price: 100, stock: 5, category_id: phones, description: 'a.b*c' },
      { name: 'Beta phone', sku: 'B-1', price: 200, stock: 0, category_id: phones },
      { name: 'Gamma laptop', sku: 'G-1', price: 900, stock: 2, category_id: laptops, description: 'big' },
      { name: 'Delta thing', sku: 'D-1', price: 50, stock: 1 },
    ]);
    const [ann, bob] = await insert('user', [{ name: 'Ann', email: 'ann@x', roles: ['admin'], api_token: 'secret' }, { name: 'Bob', email: 'bob@x', roles: [] }]);
    await insert('review', [
      { product_id: p1, user_id: ann, rating: 5 },
      { product_id: p1, user_id: bob, rating: 2 },
      { product_id: p3, user_id: bob, rating: 4 },
    ]);
    const [sale, newTag] = await insert('tag', [{ name: 'sale' }, { name: 'new' }]);
    const oid = (id: Id) => new mongoose.Types.ObjectId(String(id));
    await conn.collection('d_product_tag').insertMany([
      { product_id: oid(p1), tag_id: oid(sale), position: 1, note: 'n1' },
      { product_id: oid(p1), tag_id: oid(newTag), position: 2 },
      { product_id: oid(p2), tag_id: oid(sale), position: null, note: null },
    ]);
    ids = { phones, laptops, gadgets, p1, p2, p3, p4, ann, bob, sale, newTag };
    aggregates.length = 0;
  });

  it('describes fields and relations from the schema and the declaration', () => {
    const product = catalog.model('product');
    expect(product.fields.id).to.include({ type: 'id', idType: 'objectId' });
    expect(product.fields.category_id).to.include({ type: 'id', idType: 'objectId' });
    expect(product.fields.price.type).to.equal('number');
    expect(product.fields.stock.type).to.equal('integer');
    expect(product.fields.created_at.type).to.equal('date');
    expect(product.fields).to.not.have.property('__v');
    expect(product.relations.category).to.deep.equal({ name: 'category', kind: 'belongsTo', target: 'category', foreignKey: 'category_id', onDelete: 'restrict' });
    expect(product.relations.reviews).to.deep.equal({ name: 'reviews', kind: 'hasMany', target: 'review', foreignKey: 'product_id' });
    expect(catalog.model('category').relations.parent).to.include({ kind: 'belongsTo', foreignKey: 'parent_id' });
    expect(catalog.model('user').fields.roles).to.include({ type: 'array', itemType: 'string' });
    expect(catalog.model('user').fields.api_token.writeOnly).to.equal(true);
    expect(catalog.model('review').hiddenRelations).to.deep.equal({});
  });

  it('parseId accepts 24-hex only', () => {
    expect(driver.parseId('product', String(ids.p1))).to.equal(ids.p1);
    expect(driver.parseId('product', 'abc')).to.equal(null);
    expect(driver.parseId('product', '12345')).to.equal(null);
  });

  it('lists rows with hex ids, dates, nulls for missing fields, no _id/__v/write-only', async () => {
    const { rows } = await driver.list(q({}));
    expect(rows).to.have.length(4);
    const delta = rows.find((r) => r.name === 'Delta thing') as Row;
    expect(delta.id).to.match(/^[0-9a-f]{24}$/);
    expect(delta.description).to.equal(null);
    expect(delta.category_id).to.equal(null);
    expect(delta.created_at).to.be.instanceOf(Date);
    expect(delta).to.not.have.any.keys('_id', '__v');
    expect((rows[0] as Row).category_id).to.equal(ids.phones);
    const users = await driver.list(q({ model: 'user' }));
    expect(users.rows[0]).to.not.have.property('api_token');
    expect(users.rows[0].roles).to.deep.equal(['admin']);
  });

  it('filters: operators, like escaping, relations, or groups, dot paths', async () => {
    const list = async (filter: ListQuery['filter'], model = 'product') => names((await driver.list(q({ model, filter, select: ['name'] }))).rows);
    expect(await list({ kind: 'condition', field: 'price', operator: 'between', value: [100, 200] })).to.deep.equal(['Alpha phone', 'Beta phone']);
    expect(await list({ kind: 'condition', field: 'price', operator: 'not between', value: [100, 200] })).to.deep.equal(['Gamma laptop', 'Delta thing']);
    expect(await list({ kind: 'condition', field: 'name', operator: 'ilike', value: '%PHONE' })).to.deep.equal(['Alpha phone', 'Beta phone']);
    expect(await list({ kind: 'condition', field: 'name', operator: 'like', value: '%PHONE' })).to.deep.equal([]);
    expect(await list({ kind: 'condition', field: 'description', operator: 'like', value: 'a.b*%' })).to.deep.equal(['Alpha phone']);
    expect(await list({ kind: 'condition', field: 'description', operator: 'like', value: 'a_b%' })).to.deep.equal(['Alpha phone']);
    expect(await list({ kind: 'condition', field: 'description', operator: 'like', value: '.*' })).to.deep.equal([]);
    expect(await list({ kind: 'condition', field: 'description', operator: 'null' })).to.deep.equal(['Beta phone', 'Delta thing']);
    expect(await list({ kind: 'condition', field: 'category_id', operator: 'in', value: [String(ids.laptops), null] })).to.deep.equal(['Gamma laptop', 'Delta thing']);
    expect(await list({ kind: 'condition', field: 'category_id', operator: '!=', value: String(ids.phones) })).to.deep.equal(['Gamma laptop', 'Delta thing']);
    expect(await list({ kind: 'related', relation: 'reviews', filter: { kind: 'condition', field: 'rating', operator: '>=', value: 4 } })).to.deep.equal(['Alpha phone', 'Gamma laptop']);
    expect(await list({ kind: 'related', relation: 'tags', filter: { kind: 'condition', field: 'name', operator: '=', value: 'sale' } })).to.deep.equal(['Alpha phone', 'Beta phone']);
    expect(
      await list({ kind: 'or', filters: [{ kind: 'condition', field: 'price', operator: '<', value: 60 }, { kind: 'related', relation: 'category', filter: { kind: 'condition', field: 'name', operator: '=', value: 'Laptops' } }] }),
    ).to.deep.equal(['Gamma laptop', 'Delta thing']);
    // dot path: products with a review by Bob
    expect(
      await list({ kind: 'related', relation: 'reviews', filter: { kind: 'related', relation: 'user', filter: { kind: 'condition', field: 'name', operator: '=', value: 'Bob' } } }),
    ).to.deep.equal(['Alpha phone', 'Gamma laptop']);
    expect(await list({ kind: 'related', relation: 'products', filter: null }, 'tag')).to.deep.equal(['sale', 'new']);
    expect(await list({ kind: 'condition', field: 'roles', operator: '=', value: 'admin' }, 'user')).to.deep.equal(['Ann']);
  });

  it('eager loads every relation kind with columns, nesting and pivot', async () => {
    const { rows } = await driver.list(
      q({ select: ['name'], relations: [load('category', ['name'], [load('parent', ['name'])]), load('reviews', ['rating'], [load('user', ['name'])]), load('tags', ['name'])] }),
    );
    const alpha = rows[0];
    expect(alpha).to.deep.include({ name: 'Alpha phone', category_id: ids.phones, category: { id: ids.phones, name: 'Phones', parent_id: null, parent: null } });
    expect(alpha.reviews).to.deep.equal([
      { id: (alpha.reviews as Row[])[0].id, rating: 5, product_id: ids.p1, user_id: ids.ann, user: { id: ids.ann, name: 'Ann' } },
      { id: (alpha.reviews as Row[])[1].id, rating: 2, product_id: ids.p1, user_id: ids.bob, user: { id: ids.bob, name: 'Bob' } },
    ]);
    const tags = alpha.tags as Row[];
    expect(tags.map((t) => t.name).sort()).to.deep.equal(['new', 'sale']);
    const sale = tags.find((t) => t.name === 'sale') as Row;
    expect(sale.pivot).to.deep.equal({ product_id: ids.p1, tag_id: ids.sale, position: 1, note: 'n1' });
    expect((tags.find((t) => t.name === 'new') as Row).pivot).to.deep.equal({ product_id: ids.p1, tag_id: ids.newTag, position: 2, note: null });
    const delta = rows[3];
    expect(delta.category).to.equal(null);
    expect(delta.reviews).to.deep.equal([]);
    expect(delta.tags).to.deep.equal([]);
    expect(aggregates).to.have.length(1);
  });

  it('_nested: the relation filter narrows the loaded records', async () => {
    const filter = { kind: 'condition' as const, field: 'rating', operator: '>=' as const, value: 4 };
    const { rows } = await driver.list(q({ select: ['name'], relations: [{ name: 'reviews', columns: ['rating'], children: [], filter }] }));
    expect(rows.map((r) => (r.reviews as Row[]).map((x) => x.rating))).to.deep.equal([[5], [], [4], []]);
  });

  it('orders by relation keys and pages by offset in ONE aggregation', async () => {
    const order: OrderKey[] = [{ relations: ['category'], field: 'name', direction: 'desc' }, { relations: [], field: 'price', direction: 'asc' }, ID];
    const page1 = await driver.list(q({ select: ['name'], order, page: { kind: 'offset', page: 1, size: 3 }, relations: [load('category', ['name'])] }));
    expect(names(page1.rows)).to.deep.equal(['Alpha phone', 'Beta phone', 'Gamma laptop']);
    expect(page1.total).to.equal(4);
    const page2 = await driver.list(q({ select: ['name'], order, page: { kind: 'offset', page: 2, size: 3 } }));
    expect(names(page2.rows)).to.deep.equal(['Delta thing']);
    const empty = await driver.list(q({ filter: { kind: 'condition', field: 'price', operator: '>', value: 10_000 }, page: { kind: 'offset', page: 1, size: 3 } }));
    expect(empty).to.deep.equal({ rows: [], total: 0 });
    expect(aggregates).to.deep.equal(['d_products', 'd_products', 'd_products']);
  });

  it('cursor pages walk every row once, mixed directions, nulls and relation keys', async () => {
    const orders: OrderKey[][] = [
      [{ relations: [], field: 'description', direction: 'desc' }, { relations: [], field: 'price', direction: 'asc' }, ID],
      [{ relations: [], field: 'description', direction: 'asc' }, { relations: [], field: 'price', direction: 'desc' }, ID],
      [{ relations: ['category'], field: 'name', direction: 'asc' }, { relations: [], field: 'stock', direction: 'desc' }, ID],
    ];
    for (const order of orders) {
      const full = names((await driver.list(q({ select: ['name'], order }))).rows);
      const seen: unknown[] = [];
      let after: ListQuery['page'] = { kind: 'cursor', size: 1, after: null };
      for (let i = 0; i < 10; i++) {
        aggregates.length = 0;
        const res = await driver.list(q({ select: ['name'], order, page: after }));
        expect(aggregates).to.have.length(1);
        seen.push(...names(res.rows));
        if (!res.hasMore) {
          expect(res.nextAfter).to.equal(null);
          break;
        }
        expect(res.nextAfter).to.have.length(order.length);
        after = { kind: 'cursor', size: 1, after: res.nextAfter ?? null };
      }
      expect(seen).to.deep.equal(full);
    }
  });

  it('findByIds keeps the order of ids and skips absent ones; existingIds', async () => {
    const missing = '65a000000000000000000009';
    const rows = await findByIds(driver, catalog, 'product', [ids.p3, missing, ids.p1], { select: ['name'], relations: [] });
    expect(names(rows)).to.deep.equal(['Gamma laptop', 'Alpha phone']);
    expect(await driver.existingIds('product', [ids.p1, missing])).to.deep.equal([ids.p1]);
  });

  it('insert applies defaults and timestamps; update sets updated_at; all in one transaction', async () => {
    const [id] = await insert('product', [{ name: 'New', sku: 'N-1', price: 1 }]);
    const [created] = await findByIds(driver, catalog, 'product', [id], { select: null, relations: [] });
    expect(created).to.deep.include({ name: 'New', stock: 0, category_id: null, description: null });
    await new Promise((r) => setTimeout(r, 5));
    await driver.transaction((tx) => driver.update('product', [{ id, changes: { price: 2 } }, { id: ids.p4, changes: { stock: 9 } }], tx));
    const [after, p4] = await findByIds(driver, catalog, 'product', [id, ids.p4], { select: null, relations: [] });
    expect(after.price).to.equal(2);
    expect(p4.stock).to.equal(9);
    expect((after.updated_at as Date).getTime()).to.be.greaterThan((created.updated_at as Date).getTime());
  });

  it('a failing transaction leaves nothing behind', async () => {
    const before = (await driver.list(q({}))).rows.length;
    try {
      await driver.transaction(async (tx) => {
        await driver.insert('product', [{ name: 'X', sku: 'X-1', price: 1 }], tx);
        await driver.insert('product', [{ name: 'Y', sku: 'A-1', price: 1 }], tx);
      });
      expect.fail('should throw');
    } catch (error) {
      expect(driver.translateError(error)).to.deep.equal({ type: 'unique_violation', field: 'sku' });
    }
    expect((await driver.list(q({}))).rows.length).to.equal(before);
  });

  it('translates validation and cast errors', async () => {
    try {
      await insert('product', [{ name: 'Bad', sku: 'Z-1', price: -1 }]);
      expect.fail('should throw');
    } catch (error) {
      const info = driver.translateError(error);
      expect(info?.type).to.equal('validation_error');
      expect(info?.errors).to.have.property('price');
    }
    try {
      await driver.transaction((tx) => driver.update('review', [{ id: ids.p1, changes: { rating: 9 } }], tx));
      expect.fail('should throw');
    } catch (error) {
      expect(driver.translateError(error)).to.deep.include({ type: 'validation_error' });
      expect(driver.translateError(error)?.errors).to.have.property('rating');
    }
    expect(driver.translateError(new Error('plain'))).to.equal(null);
  });

  it('a duplicate through a bulk update is a unique violation on the field', async () => {
    try {
      await driver.transaction((tx) => driver.update('product', [{ id: ids.p2, changes: { stock: 3 } }, { id: ids.p3, changes: { sku: 'A-1' } }], tx));
      expect.fail('should throw');
    } catch (error) {
      expect(driver.translateError(error)).to.deep.equal({ type: 'unique_violation', field: 'sku' });
    }
    const [p2] = await findByIds(driver, catalog, 'product', [ids.p2], { select: ['stock'], relations: [] });
    expect(p2.stock).to.equal(0);
  });

  it('delete: restrict blocks before anything is deleted', async () => {
    try {
      await driver.transaction((tx) => driver.delete('category', [ids.laptops, ids.p4 /* not a category: ignored */], tx));
      expect.fail('should throw');
    } catch (error) {
      expect(error).to.be.instanceOf(DriverFailure);
      expect((error as DriverFailure).info).to.deep.equal({ type: 'foreign_key_violation', relation: 'products', count: 1 });
    }
    expect(await driver.existingIds('category', [ids.laptops])).to.deep.equal([ids.laptops]);
    // a category referenced only by its own child being deleted with it
    await driver.transaction((tx) => driver.delete('product', [ids.p1, ids.p2], tx));
    await driver.transaction((tx) => driver.delete('category', [ids.phones, ids.gadgets], tx));
    expect(await driver.existingIds('category', [ids.phones, ids.gadgets])).to.deep.equal([]);
  });

  it('delete: cascade removes referencing records and pivot rows; setNull clears keys', async () => {
    await driver.transaction((tx) => driver.delete('product', [ids.p1], tx));
    expect((await driver.list(q({ model: 'review' }))).rows.map((r) => r.product_id)).to.deep.equal([ids.p3]);
    expect(await conn.collection('d_product_tag').countDocuments({ product_id: new mongoose.Types.ObjectId(String(ids.p1)) })).to.equal(0);
    expect(await conn.collection('d_product_tag').countDocuments({})).to.equal(1);

    await driver.transaction((tx) => driver.delete('user', [ids.bob], tx));
    const reviews = (await driver.list(q({ model: 'review' }))).rows;
    expect(reviews.map((r) => r.user_id)).to.deep.equal([null]);

    await driver.transaction((tx) => driver.delete('tag', [ids.sale], tx));
    expect(await conn.collection('d_product_tag').countDocuments({})).to.equal(0);
  });
});
