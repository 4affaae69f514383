import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { asAdmin } from '../support/as-admin';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { createRestApi, type RestApi } from '../../lib';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * Regression tests for defects found in review, each run on both drivers with the same request
 * and the same expected answer.
 */

const API = '/api/v1';

interface Harness {
  example: ExampleApp;
  /** The example's product model registered again WITHOUT a validation schema. */
  bare: express.Express;
  bareApi: RestApi;
}

async function start(driver: 'mongo' | 'sql'): Promise<Harness> {
  let example: ExampleApp;
  if (driver === 'mongo') {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/review_fixes';
    example = await createExampleApp({ driver, mongoUri: uri.toString() });
  } else {
    example = await createExampleApp({ driver, postgresUri: (await sharedPostgres()).uri });
  }
  await example.reset();
  const bareApi = createRestApi().register({
    name: 'products',
    MODEL: 'product',
    model: example.api.registry.entry('product').declaration.model,
    RELATIONS: [],
    fillable: ['name', 'sku', 'price', 'stock', 'featured', 'description'],
  });
  const bare = express();
  bare.use(API, bareApi.router());
  return { example, bare, bareApi };
}

for (const driver of ['mongo', 'sql'] as const) {
  describe(`review fixes (${driver})`, function () {
    this.timeout(120_000);
    let h: Harness;

    before(async () => {
      h = await start(driver);
    });

    after(async () => {
      await h.example.reset();
      await h.bareApi.close();
      await h.example.close();
    });

    const http = () => asAdmin(h.example);

    it('without a validation schema, operator objects in store/update bodies are a 422 and are never interpreted', async () => {
      const bare = request(h.bare);
      const stored = await bare.post(`${API}/products`).send({ name: { $gt: '' }, sku: 'NV-1', price: 1 }).expect(422);
      expect(stored.body.type).to.equal('validation_error');
      expect(stored.body.errors).to.have.keys(['name']);

      const priced = await bare.post(`${API}/products`).send({ name: 'ok', sku: 'NV-2', price: { $gt: 0 }, featured: { $ne: true } }).expect(422);
      expect(priced.body.errors).to.have.keys(['price', 'featured']);

      const good = await bare.post(`${API}/products`).send({ name: 'plain', sku: 'NV-3', price: 2 }).expect(200);
      const id = good.body.model.id;
      const updated = await bare.patch(`${API}/products/${id}`).send({ name: { $set: 'x' }, description: ['a'] }).expect(422);
      expect(updated.body.errors).to.have.keys(['name', 'description']);
      const batch = await bare.patch(`${API}/products/batch`).send({ product: [{ id, sku: { $ne: null } }] }).expect(422);
      expect(batch.body.errors).to.have.keys(['product.0.sku']);

      const after = await bare.get(`${API}/products/${id}`).expect(200);
      expect(after.body).to.include({ name: 'plain', sku: 'NV-3', description: null });
      const all = await bare.get(`${API}/products`).query({ oper: 'sku|like|NV-%' }).expect(200);
      expect(all.body.data.map((p: { sku: string }) => p.sku)).to.deep.equal(['NV-3']);
      await bare.delete(`${API}/products/${id}`).expect(200);
    });

    it('a model-layer required failure is a 422 in the API\'s words on both drivers (no mongoose text)', async () => {
      const res = await request(h.bare).post(`${API}/products`).send({ sku: 'NV-REQ', price: 1 }).expect(422);
      expect(res.body.message).to.equal('The name field is required.');
      expect(JSON.stringify(res.body)).not.to.match(/Path|Cast to|mongoose/i);
    });

    it('integer fields are integers on both drivers: a fractional filter value is a 400 naming the field', async () => {
      const res = await http().get(`${API}/reviews`).query({ oper: 'rating|=|4.5' }).expect(400);
      expect(res.body.message).to.contain('rating');
    });

    it('an integer beyond PostgreSQL INTEGER is a 422 naming the field on both drivers, not a database error', async () => {
      const res = await http().post(`${API}/products`).send({ name: 'Huge', sku: 'HUGE-1', price: 1, stock: 1e20 }).expect(422);
      expect(res.body.errors).to.have.keys(['stock']);
    });

    it('null inside an in list matches records without a value on both drivers', async () => {
      const cat = await http().post(`${API}/categories`).send({ name: 'In-null cat' }).expect(200);
      const catId = cat.body.model.id;
      await http().post(`${API}/products`).send({ product: [
        { name: 'In-null A', sku: 'INNULL-A', price: 1, category_id: catId },
        { name: 'In-null B', sku: 'INNULL-B', price: 1 },
      ] }).expect(200);
      const literal = typeof catId === 'string' ? catId : String(catId);
      const res = await http().get(`${API}/products`)
        .query({ oper: JSON.stringify({ and: [`category_id|in|[${literal},null]`, 'sku|like|INNULL-%'] }), orderby: JSON.stringify({ sku: 'asc' }) })
        .expect(200);
      expect(res.body.data.map((p: { sku: string }) => p.sku)).to.deep.equal(['INNULL-A', 'INNULL-B']);
      const notIn = await http().get(`${API}/products`)
        .query({ oper: JSON.stringify({ and: ['category_id|not in|[null]', 'sku|like|INNULL-%'] }) })
        .expect(200);
      expect(notIn.body.data.map((p: { sku: string }) => p.sku)).to.deep.equal(['INNULL-A']);
    });

    it('a non-object item of a bulk store is reported under "<MODEL>.<index>" (no trailing dot)', async () => {
      const res = await http().post(`${API}/tags`).send({ tag: [{ name: 'ok-tag' }, 5] }).expect(422);
      expect(res.body.errors).to.have.keys(['tag.1']);
    });

    it('ids that are objects in updateMultiple / deleteById bodies are a 422 and are not echoed as ids', async () => {
      const update = await http().patch(`${API}/products/batch`).send({ product: [{ id: { $ne: null }, name: 'x' }] }).expect(422);
      expect(update.body.errors).to.deep.equal({ 'product.0.id': ['The id must be a string or a number.'] });
      expect(update.body).not.to.have.property('ids');
      const del = await http().delete(`${API}/products/batch`).send({ ids: [{ $ne: null }] }).expect(422);
      expect(del.body.errors).to.deep.equal({ 'ids.0': ['The id must be a string or a number.'] });
      expect(JSON.stringify(del.body)).not.to.contain('[object Object]');
    });

    it('an integer filter value beyond the 32-bit range answers rows, not a database error', async () => {
      const created = await http().post(`${API}/products`).send({ name: 'Range', sku: 'RANGE-1', price: 1, stock: 5 }).expect(200);
      const below = await http().get(`${API}/products`).query({ oper: 'stock|<|3000000000', attr: JSON.stringify({ sku: 'RANGE-1' }) }).expect(200);
      expect(below.body.data).to.have.length(1);
      const above = await http().get(`${API}/products`).query({ oper: JSON.stringify({ and: ['stock|>|3000000000', 'sku|=|RANGE-1'] }) }).expect(200);
      expect(above.body.data).to.have.length(0);
      const listed = await http().get(`${API}/products`).query({ oper: 'stock|in|[5,99999999999]', attr: JSON.stringify({ sku: 'RANGE-1' }) }).expect(200);
      expect(listed.body.data).to.have.length(1);
      const between = await http().get(`${API}/products`).query({ oper: 'stock|not between|[-99999999999,99999999999]', attr: JSON.stringify({ sku: 'RANGE-1' }) }).expect(200);
      expect(between.body.data).to.have.length(0);
      await http().delete(`${API}/products/${created.body.model.id}`).expect(200);
    });

    it('like/ilike wildcards match across a newline, as in SQL', async () => {
      const created = await http().post(`${API}/products`).send({ name: 'Line\nbreak', sku: 'NL-1', price: 1 }).expect(200);
      for (const oper of ['name|like|Line_break', 'name|like|Line%', 'name|ilike|line%BREAK']) {
        const res = await http().get(`${API}/products`).query({ oper, select: 'sku' }).expect(200);
        expect(res.body.data.map((p: { sku: string }) => p.sku), oper).to.deep.equal(['NL-1']);
      }
      const negated = await http().get(`${API}/products`).query({ oper: JSON.stringify({ and: ['name|not like|Line%', 'sku|=|NL-1'] }) }).expect(200);
      expect(negated.body.data).to.have.length(0);
      await http().delete(`${API}/products/${created.body.model.id}`).expect(200);
    });

    it('a forged cursor whose id is not an id of the resource is a 400 "Invalid cursor."', async () => {
      const created = await http().post(`${API}/tags`).send({ tag: [{ name: 'cur-a' }, { name: 'cur-b' }] }).expect(200);
      const pagination = { infinity: true, pageSize: 1 };
      const first = await http().get(`${API}/tags`).query({ pagination: JSON.stringify(pagination) }).expect(200);
      const payload = JSON.parse(Buffer.from(first.body.next_cursor, 'base64url').toString('utf8')) as { v: unknown[] };
      for (const forged of ['zzz', { $gt: '' }, true]) {
        payload.v[payload.v.length - 1] = forged;
        const cursor = Buffer.from(JSON.stringify(payload)).toString('base64url');
        const res = await http().get(`${API}/tags`).query({ pagination: JSON.stringify({ ...pagination, cursor }) }).expect(400);
        expect(res.body.message).to.equal('Invalid cursor.');
      }
      for (const m of created.body.models) await http().delete(`${API}/tags/${m.model.id}`).expect(200);
    });
  });
}
