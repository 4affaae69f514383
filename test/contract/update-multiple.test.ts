import { expect } from 'chai';
import { expectError, expectRecordShape, expectValidation, forEachDriver, sameId, type Rec } from '../support/contract-app';

/** PATCH /{resource}/batch and POST /{resource}/update-multiple (decision 19). */
const ROUTES: Array<['patch' | 'post', string]> = [
  ['patch', '/products/batch'],
  ['post', '/products/update-multiple'],
];

forEachDriver('updateMultiple', (ctx) => {
  before(async () => {
    await ctx.reset();
  });

  for (const [method, path] of ROUTES) {
    const send = (body: unknown) => ctx.request()[method](`/api/v1${path}`).send(body as object);

    describe(`${method.toUpperCase()} ${path}`, () => {
      it('updates every record and answers {success, models: [{success, model}]} with whole records', async () => {
        const a = await ctx.product({ name: 'A', stock: 1 });
        const b = await ctx.product({ name: 'B', stock: 2 });
        const res = await send({ product: [{ id: a.id, price: 11 }, { id: b.id, stock: 22, name: 'B2' }] });
        expect(res.status, res.text).to.equal(200);
        expect(res.body.success).to.equal(true);
        expect(res.body.models).to.have.length(2);
        const models = res.body.models.map((m: { success: boolean; model: Rec }) => {
          expect(m.success).to.equal(true);
          expectRecordShape(m.model);
          return m.model;
        });
        const ma = models.find((m: Rec) => sameId(m.id, a.id));
        const mb = models.find((m: Rec) => sameId(m.id, b.id));
        expect(ma).to.include({ name: 'A', price: 11, stock: 1, sku: a.sku });
        expect(mb).to.include({ name: 'B2', price: 10, stock: 22 });
        expect((await ctx.fetch('products', a.id)).price).to.equal(11);
        expect((await ctx.fetch('products', b.id)).name).to.equal('B2');
      });

      it('an unknown id is a 404 listing it, and nothing changes', async () => {
        const a = await ctx.product({ stock: 1 });
        const absent = await ctx.absentId('products');
        const res = await send({ product: [{ id: a.id, stock: 50 }, { id: absent, stock: 60 }] });
        const body = expectError(res, 404, 'not_found');
        expect(JSON.stringify(body)).to.include(String(absent));
        expect((await ctx.fetch('products', a.id)).stock).to.equal(1);
      });

      it('a malformed id is a 404 listing it, and nothing changes', async () => {
        const a = await ctx.product({ stock: 1 });
        const res = await send({ product: [{ id: a.id, stock: 50 }, { id: 'abc', stock: 60 }] });
        const body = expectError(res, 404, 'not_found');
        expect(JSON.stringify(body)).to.include('abc');
        expect((await ctx.fetch('products', a.id)).stock).to.equal(1);
      });

      it('a body without the product key is a 400 naming it', async () => {
        const a = await ctx.product();
        expectError(await send({ products: [{ id: a.id, stock: 3 }] }), 400, 'bad_request', /product/);
        expect((await ctx.fetch('products', a.id)).stock).to.equal(0);
      });

      it('a validation error in item 1 is a 422 with the path product.1.<field>, nothing changes', async () => {
        const a = await ctx.product({ stock: 1 });
        const b = await ctx.product({ stock: 2 });
        expectValidation(await send({ product: [{ id: a.id, stock: 5 }, { id: b.id, stock: -5 }] }), 'product.1.stock');
        expect((await ctx.fetch('products', a.id)).stock).to.equal(1);
        expect((await ctx.fetch('products', b.id)).stock).to.equal(2);
      });

      it('a unique violation in item 1 is a 409, nothing changes', async () => {
        const a = await ctx.product({ stock: 1 });
        const b = await ctx.product();
        const res = await send({ product: [{ id: a.id, stock: 9 }, { id: b.id, sku: a.sku }] });
        expect(expectError(res, 409, 'unique_violation').field).to.equal('sku');
        expect((await ctx.fetch('products', a.id)).stock).to.equal(1);
        expect((await ctx.fetch('products', b.id)).sku).to.equal(b.sku);
      });

      it('an item without id is a 422 naming product.0.id', async () => {
        expectValidation(await send({ product: [{ stock: 3 }] }), 'product.0.id');
      });

      it('an empty array is a 400', async () => {
        expectError(await send({ product: [] }), 400, 'bad_request');
      });
    });
  }
});
