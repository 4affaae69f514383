import mongoose, { Schema, type Connection, type Model } from 'mongoose';
import { createMongoDriver } from '../../drivers/mongo';
import type { Driver, Id } from '../../lib/driver';
import type { ResourceDeclaration } from '../../lib/declaration';
import type { Catalog, ModelInfo } from '../../lib/resource/model-info';
import { sharedMongo } from '../support/databases';
import { runDriverContract, type Conformance } from './cases';
import type { HarnessFactory, ModelName } from './harness';

/**
 * The MongoDB driver against a real server (sharedMongo), built the way
 * test/unit/mongo/driver-db.test.ts builds it. That file keeps its models to itself, so the same
 * small mongoose models are declared here (own model names, collections and database): refs give
 * the to-one relations, a virtual populate the reviews, declared pivots the tags.
 */

const timestamps = { createdAt: 'created_at', updatedAt: 'updated_at' } as const;
const { ObjectId } = Schema.Types;

function defineModels(conn: Connection): Record<ModelName | 'pivot', Model<unknown>> {
  const category = new Schema({ name: { type: String, required: true }, parent_id: { type: ObjectId, ref: 'KCat', default: null } }, { timestamps, collection: 'k_categories' });
  const product = new Schema(
    {
      name: { type: String, required: true },
      sku: { type: String, required: true, unique: true },
      price: { type: Number, required: true, min: 0 },
      stock: { type: Number, default: 0, integer: true },
      description: { type: String },
      category_id: { type: ObjectId, ref: 'KCat', default: null },
    },
    { timestamps, collection: 'k_products' },
  );
  product.virtual('reviews', { ref: 'KRev', localField: '_id', foreignField: 'product_id' });
  const review = new Schema(
    { product_id: { type: ObjectId, ref: 'KProd', required: true }, user_id: { type: ObjectId, ref: 'KUser', default: null }, rating: { type: Number, required: true, min: 1, max: 5 } },
    { timestamps, collection: 'k_reviews' },
  );
  const tag = new Schema({ name: { type: String, required: true, unique: true } }, { timestamps, collection: 'k_tags' });
  const user = new Schema({ name: String, email: { type: String, unique: true }, roles: [String], api_token: String }, { timestamps, collection: 'k_users' });
  const pivot = new Schema({ product_id: ObjectId, tag_id: ObjectId, position: Number, note: String }, { collection: 'k_product_tag', versionKey: false });
  const model = (name: string, schema: Schema) => conn.model(name, schema) as unknown as Model<unknown>;
  return {
    category: model('KCat', category),
    product: model('KProd', product),
    review: model('KRev', review),
    tag: model('KTag', tag),
    user: model('KUser', user),
    pivot: model('KPivot', pivot),
  };
}

const PIVOT = { table: 'k_product_tag', parentKey: 'product_id', relatedKey: 'tag_id', columns: ['position', 'note'], columnTypes: { position: 'integer' as const, note: 'string' as const } };

function declarations(m: Record<ModelName, Model<unknown>>): ResourceDeclaration[] {
  return [
    {
      name: 'categories', MODEL: 'category', model: m.category, fillable: ['name', 'parent_id'], RELATIONS: ['parent', 'children', 'products'],
      relations: { children: { kind: 'hasMany', target: 'category', foreignKey: 'parent_id' }, products: { kind: 'hasMany', target: 'product', foreignKey: 'category_id' } },
    },
    {
      name: 'products', MODEL: 'product', model: m.product, fillable: ['name', 'sku', 'price', 'stock', 'description', 'category_id'],
      RELATIONS: ['category', 'reviews', 'tags'],
      relations: { tags: { kind: 'belongsToMany', target: 'tag', pivot: PIVOT } },
    },
    {
      name: 'reviews', MODEL: 'review', model: m.review, fillable: ['product_id', 'user_id', 'rating'], RELATIONS: ['product', 'user'],
      relations: {
        product: { kind: 'belongsTo', target: 'product', foreignKey: 'product_id', onDelete: 'cascade' },
        user: { kind: 'belongsTo', target: 'user', foreignKey: 'user_id', onDelete: 'setNull' },
      },
    },
    {
      name: 'tags', MODEL: 'tag', model: m.tag, fillable: ['name'], RELATIONS: ['products'],
      relations: { products: { kind: 'belongsToMany', target: 'product', pivot: { ...PIVOT, parentKey: 'tag_id', relatedKey: 'product_id' } } },
    },
    { name: 'users', MODEL: 'user', model: m.user, fillable: ['name', 'email', 'roles', 'api_token'], writeOnly: ['api_token'], RELATIONS: [] },
  ];
}

/** What the registry does, minus everything the driver does not need (as driver-db.test.ts does). */
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

const factory: HarnessFactory = async () => {
  const mongo = await sharedMongo();
  const conn = mongoose.createConnection(mongo.uri, { dbName: 'driver_contract_test', autoIndex: false });
  await conn.asPromise();
  await conn.dropDatabase();
  const models = defineModels(conn);
  for (const model of Object.values(models)) {
    await model.createCollection();
    await model.syncIndexes();
  }
  const driver = createMongoDriver(conn);
  const catalog = buildCatalog(driver, declarations(models));
  const out = (id: unknown): Id => String(id);
  return {
    name: 'mongo',
    driver,
    catalog,
    missingId: '65a000000000000000000009',
    reset: async () => {
      for (const model of Object.values(models)) await model.deleteMany({});
    },
    count: (model: ModelName) => models[model].countDocuments(),
    pivotLinks: async () => {
      const docs = await conn.collection('k_product_tag').find({}).sort({ product_id: 1, tag_id: 1 }).toArray();
      return docs.map((d) => ({ parentId: out(d.product_id), relatedId: out(d.tag_id), position: (d.position as number | null | undefined) ?? null, note: (d.note as string | null | undefined) ?? null }));
    },
    close: async () => {
      await conn.dropDatabase().catch(() => undefined);
      await conn.close();
    },
  };
};

const conformance: Conformance = {
  passes: [
    'list: equality filter',
    'list: comparison, in and null filters',
    'list: and / or filters',
    'list: order and select',
    'list: offset page with total',
    'list: cursor page',
    'list: relation filter (exists)',
    'list: eager load to-one',
    'list: eager load to-many',
    'list: eager load many-to-many with pivot values',
    'insert: bulk returns ids in order',
    'update: each record its own changes, updated_at moves',
    'update: guard on null field',
    'delete: returns the ids really removed',
    'delete: restrict is a foreign_key_violation DriverFailure',
    'delete: cascade and set null follow the relations',
    'existingIds',
    'transaction: rollback leaves nothing',
    'transaction: reads inside see the uncommitted writes',
    'pivots: attach is idempotent and answers what it inserted',
    'pivots: read',
    'pivots: detach',
    'pivots: update',
    'parseId rejects malformed ids',
    'translateError: unique violation names the field',
    'streams: every row of a query',
  ],
  skipped: {},
  knownFailures: {},
};

runDriverContract('mongo (MongoDB)', factory, conformance);
