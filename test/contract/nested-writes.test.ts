import { expect } from 'chai';
import { API, expectError, forEachDriver, type Id, type Member, type Rec } from '../support/contract-app';

/** Nested writes (decisions 58-59): products with their reviews (one-to-many) and tags (many-to-many) in one request. */
forEachDriver('nested writes', (ctx) => {
  let tags: Rec[];
  const req = () => ctx.request();
  const sku = () => ctx.unique('sku');
  const ids = (rows: unknown) => (rows as Rec[]).map((r) => String(r.id)).sort();
  const tagsOf = async (product: Rec) => (await ctx.fetch('products', product.id, { relations: ['tags'] })).tags as Array<Rec & { pivot: Record<string, unknown> }>;
  const reviewsOf = async (product: Rec) => (await ctx.fetch('products', product.id, { relations: ['reviews'] })).reviews as Rec[];

  beforeEach(async () => {
    await ctx.reset();
    tags = [];
    for (let i = 0; i < 3; i += 1) tags.push(await ctx.tagRec({ name: ctx.unique(`t${i}`) }));
  });

  describe('POST', () => {
    it('creates a product with its reviews and tags (ids and {id, pivot columns}) and answers it as a show with them loaded', async () => {
      const res = await req().post(`${API}/products`).send({
        name: 'Nested', sku: sku(), price: 5,
        reviews: [{ rating: 5, comment: 'great' }, { rating: 3 }],
        tags: [tags[0].id, { id: tags[1].id, position: 2, note: 'second' }],
      });
      expect(res.status, res.text).to.equal(200);
      const model = res.body.model;
      expect(model).to.include({ name: 'Nested', price: 5 });
      expect(model.reviews.map((r: Rec) => [r.rating, r.product_id]).sort()).to.deep.equal([[3, model.id], [5, model.id]]);
      expect(ids(model.tags)).to.deep.equal(ids([tags[0], tags[1]]));
      const second = model.tags.find((t: Rec) => String(t.id) === String(tags[1].id));
      expect(second.pivot).to.include({ position: 2, note: 'second' });
      // the database holds what was answered
      expect(await ctx.count('reviews')).to.equal(2);
      expect((await reviewsOf(model)).map((r) => r.rating).sort()).to.deep.equal([3, 5]);
      expect(ids(await tagsOf(model))).to.deep.equal(ids([tags[0], tags[1]]));
    });
  });
});
