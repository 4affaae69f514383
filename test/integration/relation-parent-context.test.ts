import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import mongoose from 'mongoose';
import { createRestApi, type ResourceHooks } from '../../lib';
import type { ResourceDeclaration } from '../../lib/declaration';
import type { ParentScope, RequestContext } from '../../lib/service/request-context';
import type { RelationRoutesOptions } from '../../lib/relations/relation-config';
import { freshPostgresDatabase, sharedMongo } from '../support/databases';
import { defineModels } from '../unit/sql/db-models';

/**
 * RequestContext.parent on relation routes (lib/relations/relation-base.ts sets it once the parent
 * is resolved): the hooks of the related resource see {model, id, relation} of the parent the
 * request is under (GET/POST /products/:id/reviews, GET /products/:id/reviews/:rid, GET
 * /products/:id/tags), and null on the plain routes (GET /products, GET /reviews). Both drivers.
 */

interface Seen {
  resource: string;
  hook: string;
  parent: ParentScope | null;
}
const seen: Seen[] = [];

/** Hooks that record what ctx.parent held when they ran, changing nothing. */
function recording(resource: string): ResourceHooks {
  const note = (hook: string, ctx: RequestContext) => seen.push({ resource, hook, parent: ctx.parent ? { ...ctx.parent } : null });
  return {
    beforeList: (_query, ctx) => void note('beforeList', ctx),
    afterList: (_rows, ctx) => void note('afterList', ctx),
    afterShow: (_row, ctx) => void note('afterShow', ctx),
    beforeCreate: (_records, ctx) => void note('beforeCreate', ctx),
    afterCreate: (_rows, ctx) => void note('afterCreate', ctx),
  };
}

/** Relation routes of products; the pivot table differs per driver (Built.pivotTable). */
const relationRoutes = (pivotTable: string): RelationRoutesOptions => ({
  oneToMany: { reviews: { relationship: 'reviews', foreignKey: 'product_id' } },
  manyToMany: { tags: { relationship: 'tags', pivotModel: pivotTable, parentKey: 'product_id', relatedKey: 'tag_id' } },
});

interface Built {
  declarations: ResourceDeclaration[];
  pivotTable: string;
  /** A product with one review and one tag linked, and a second product with nothing. */
  seed(): Promise<{ product: string; bare: string; review: string; tag: string }>;
  /** A new review's body for POST /products/:id/reviews. */
  review: Record<string, unknown>;
  close(): Promise<void>;
}

const DRIVERS: Record<string, () => Promise<Built>> = {
  sql: async () => {
    const database = await freshPostgresDatabase('relation_parent');
    const db = defineModels(database.uri, () => undefined);
    await db.sequelize.sync({ force: true });
    return {
      declarations: db.declarations,
      pivotTable: 'product_tag',
      review: { rating: 4 },
      seed: async () => {
        const [product, bare] = await db.Product.bulkCreate([{ name: 'P', sku: 'P', price: 1 }, { name: 'Q', sku: 'Q', price: 1 }]);
        const review = await db.Review.create({ product_id: product.get('id'), rating: 5 });
        const tag = await db.Tag.create({ name: 'red' });
        await db.ProductTag.create({ product_id: product.get('id'), tag_id: tag.get('id') });
        return { product: String(product.get('id')), bare: String(bare.get('id')), review: String(review.get('id')), tag: String(tag.get('id')) };
      },
      close: async () => {
        await db.sequelize.close();
        await database.drop();
      },
    };
  },
  mongo: async () => {
    const conn = await mongoose.createConnection((await sharedMongo()).uri, { dbName: 'relation_parent_test' }).asPromise();
    await conn.dropDatabase();
    const timestamps = { createdAt: 'created_at', updatedAt: 'updated_at' } as const;
    const { ObjectId } = mongoose.Schema.Types;
    const productSchema = new mongoose.Schema({ name: String, sku: String }, { timestamps, collection: 'rp_products' });
    productSchema.virtual('reviews', { ref: 'RpReview', localField: '_id', foreignField: 'product_id' });
    const Product = conn.model('RpProduct', productSchema);
    const Review = conn.model('RpReview', new mongoose.Schema({ product_id: { type: ObjectId, ref: 'RpProduct', required: true }, rating: Number }, { timestamps, collection: 'rp_reviews' }));
    const Tag = conn.model('RpTag', new mongoose.Schema({ name: String }, { timestamps, collection: 'rp_tags' }));
    conn.model('RpPivot', new mongoose.Schema({ product_id: ObjectId, tag_id: ObjectId, position: Number }, { collection: 'rp_product_tag', versionKey: false }));
    for (const model of Object.values(conn.models)) await model.createCollection();
    const pivot = { table: 'rp_product_tag', parentKey: 'product_id', relatedKey: 'tag_id', columns: ['position'], columnTypes: { position: 'integer' as const } };
    const declarations: ResourceDeclaration[] = [
      { name: 'products', MODEL: 'product', model: Product, fillable: ['name', 'sku'], RELATIONS: ['reviews', 'tags'], relations: { tags: { kind: 'belongsToMany', target: 'tag', pivot } } },
      {
        name: 'reviews', MODEL: 'review', model: Review, fillable: ['product_id', 'rating'], RELATIONS: ['product'],
        relations: { product: { kind: 'belongsTo', target: 'product', foreignKey: 'product_id', onDelete: 'cascade' } },
      },
      {
        name: 'tags', MODEL: 'tag', model: Tag, fillable: ['name'], RELATIONS: ['products'],
        relations: { products: { kind: 'belongsToMany', target: 'product', pivot: { ...pivot, parentKey: 'tag_id', relatedKey: 'product_id' } } },
      },
    ];
    return {
      declarations,
      pivotTable: 'rp_product_tag',
      review: { rating: 4 },
      seed: async () => {
        const [product, bare] = await Product.create([{ name: 'P', sku: 'P' }, { name: 'Q', sku: 'Q' }]);
        const review = await Review.create({ product_id: product._id, rating: 5 });
        const tag = await Tag.create({ name: 'red' });
        await conn.collection('rp_product_tag').insertOne({ product_id: product._id, tag_id: tag._id, position: 1 });
        return { product: String(product._id), bare: String(bare._id), review: String(review._id), tag: String(tag._id) };
      },
      close: async () => {
        await conn.dropDatabase().catch(() => undefined);
        await conn.close();
      },
    };
  },
};

for (const [driver, build] of Object.entries(DRIVERS)) {
  describe(`relation routes: hooks see ctx.parent (${driver})`, function () {
    this.timeout(60_000);
    let built: Built;
    let app: express.Express;
    let ids: { product: string; bare: string; review: string; tag: string };

    before(async () => {
      built = await build();
      const api = createRestApi();
      const routes = relationRoutes(built.pivotTable);
      for (const declaration of built.declarations) {
        const hooked = ['products', 'reviews', 'tags'].includes(declaration.name) ? { ...declaration, hooks: recording(declaration.name) } : declaration;
        api.register(hooked, declaration.name === 'products' ? { relationRoutes: routes } : {});
      }
      await api.ready();
      app = express();
      app.use('/api', api.router());
      ids = await built.seed();
    });

    after(async () => built?.close());
    beforeEach(() => {
      seen.length = 0;
    });

    const parentOf = (relation: string) => ({ model: 'product', relation, id: ids.product });
    /** What the hooks of `resource` saw, ids as text (integers on SQL, hex strings on MongoDB). */
    const seenBy = (resource: string) =>
      seen.filter((s) => s.resource === resource).map((s) => ({ hook: s.hook, parent: s.parent && { ...s.parent, id: String(s.parent.id) } }));

    it('GET /products/:id/reviews: the related resource\'s list hooks see the parent', async () => {
      const res = await request(app).get(`/api/products/${ids.product}/reviews`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data.map((r: { id: unknown }) => String(r.id))).to.deep.equal([ids.review]);
      expect(seenBy('reviews')).to.deep.equal([
        { hook: 'beforeList', parent: parentOf('reviews') },
        { hook: 'afterList', parent: parentOf('reviews') },
      ]);
      // the parent's own hooks do not run for a relation list
      expect(seenBy('products')).to.deep.equal([]);
    });

    it('the parent id has the driver\'s id type (what parseId answers)', async () => {
      await request(app).get(`/api/products/${ids.product}/reviews`).expect(200);
      const id = seen.find((s) => s.hook === 'afterList')?.parent?.id;
      expect(typeof id).to.equal(driver === 'sql' ? 'number' : 'string');
    });

    it('a parent with no related records: the hooks still see it', async () => {
      const res = await request(app).get(`/api/products/${ids.bare}/reviews`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.deep.equal([]);
      expect(seenBy('reviews').map((s) => s.parent)).to.deep.equal([
        { model: 'product', relation: 'reviews', id: ids.bare },
        { model: 'product', relation: 'reviews', id: ids.bare },
      ]);
    });

    it('GET /products/:id/reviews/:rid: afterShow sees the parent', async () => {
      const res = await request(app).get(`/api/products/${ids.product}/reviews/${ids.review}`);
      expect(res.status, res.text).to.equal(200);
      expect(seenBy('reviews').filter((s) => s.hook === 'afterShow')).to.deep.equal([{ hook: 'afterShow', parent: parentOf('reviews') }]);
    });

    it('POST /products/:id/reviews: the create hooks see the parent', async () => {
      const res = await request(app).post(`/api/products/${ids.product}/reviews`).send(built.review);
      expect(res.status, res.text).to.be.oneOf([200, 201]);
      expect(seenBy('reviews')).to.deep.include({ hook: 'beforeCreate', parent: parentOf('reviews') });
      expect(seenBy('reviews')).to.deep.include({ hook: 'afterCreate', parent: parentOf('reviews') });
    });

    it('GET /products/:id/tags (many-to-many): the tags\' hooks see the parent and the relation', async () => {
      const res = await request(app).get(`/api/products/${ids.product}/tags`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data.map((t: { id: unknown }) => String(t.id))).to.deep.equal([ids.tag]);
      expect(seenBy('tags')).to.deep.equal([
        { hook: 'beforeList', parent: parentOf('tags') },
        { hook: 'afterList', parent: parentOf('tags') },
      ]);
    });

    it('plain routes leave ctx.parent null: GET /products, GET /reviews, GET /reviews/:id', async () => {
      await request(app).get('/api/products').expect(200);
      await request(app).get('/api/reviews').expect(200);
      await request(app).get(`/api/reviews/${ids.review}`).expect(200);
      expect(seenBy('products')).to.deep.equal([{ hook: 'beforeList', parent: null }, { hook: 'afterList', parent: null }]);
      expect(seenBy('reviews')).to.deep.equal([{ hook: 'beforeList', parent: null }, { hook: 'afterList', parent: null }, { hook: 'afterShow', parent: null }]);
    });

    it('a relation request after another does not leak its parent into the next plain request', async () => {
      await request(app).get(`/api/products/${ids.product}/reviews`).expect(200);
      seen.length = 0;
      await request(app).get('/api/reviews').expect(200);
      expect(seenBy('reviews').map((s) => s.parent)).to.deep.equal([null, null]);
    });

    it('an unknown parent is a 404 before any hook of the related resource runs', async () => {
      const missing = driver === 'sql' ? '999999' : '65a000000000000000000009';
      const res = await request(app).get(`/api/products/${missing}/reviews`);
      expect(res.status, res.text).to.equal(404);
      expect(seen).to.deep.equal([]);
    });
  });
}
