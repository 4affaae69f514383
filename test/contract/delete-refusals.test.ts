import { expect } from 'chai';
import { API, expectError, forEachDriver, type Rec } from '../support/contract-app';

/**
 * Decision 78 (first part): a delete refused by a restrict rule is a 409 whose `error` names the
 * relation as the deleted record's model declares it and how many records hold the record,
 * trashed (soft-deleted) ones included, which the message says; nothing is deleted.
 */
forEachDriver('delete refusals name the relation and the count (decision 78)', (ctx) => {
  before(async () => {
    await ctx.reset();
  });

  const del = (path: string) => ctx.request().delete(`${API}${path}`);
  // soft_delete only where records are soft-deletable (elsewhere it is a 400)
  const exists = async (resource: string, id: unknown) => (await ctx.get(`/${resource}/${id}`, resource === 'reviews' ? { soft_delete: 'with' } : {})).status === 200;
  const review = (product: Rec, rating = 3) => ctx.create('reviews', { product_id: product.id, rating });
  const refusal = (res: { status: number; body: unknown; text: string }) => {
    const body = expectError(res, 409, 'foreign_key_violation', /^Cannot delete the record: \d+ records? of its \w+ still reference it \(trashed records count too: they hold it until they are deleted for good\)\.$/);
    return body.error;
  };

  it('a product with three reviews, one of them trashed: {relation: "reviews", count: 3}; product and reviews remain', async () => {
    const product = await ctx.product();
    const reviews = [await review(product, 1), await review(product, 2), await review(product, 5)];
    await del(`/reviews/${reviews[0].id}`).expect(200);
    const res = await del(`/products/${product.id}`);
    expect(refusal(res)).to.deep.equal({ relation: 'reviews', count: 3 });
    expect(String((res.body as { message: string }).message)).to.include('3 records of its reviews');
    expect(await exists('products', product.id)).to.equal(true);
    for (const r of reviews) expect(await exists('reviews', r.id)).to.equal(true);
  });

  it('only trashed reviews still hold a product: counted (1), and the message says trashed records count', async () => {
    const product = await ctx.product();
    const r = await review(product);
    await del(`/reviews/${r.id}`).expect(200);
    const res = await del(`/products/${product.id}`);
    expect(refusal(res)).to.deep.equal({ relation: 'reviews', count: 1 });
    expect((res.body as { message: string }).message).to.include('1 record of its reviews').and.include('trashed');
    await del(`/reviews/${r.id}/force`).expect(200);
    expect((await del(`/products/${product.id}`)).status).to.equal(200);
  });

  it('a category: its children and its products, each under the name the category declares', async () => {
    const parent = await ctx.category();
    await ctx.category({ parent_id: parent.id });
    await ctx.category({ parent_id: parent.id });
    expect(refusal(await del(`/categories/${parent.id}`))).to.deep.equal({ relation: 'children', count: 2 });
    const shelf = await ctx.category();
    for (let i = 0; i < 4; i += 1) await ctx.product({ category_id: shelf.id });
    expect(refusal(await del(`/categories/${shelf.id}`))).to.deep.equal({ relation: 'products', count: 4 });
    expect(await exists('categories', parent.id)).to.equal(true);
    expect(await ctx.count('products', { attr: { category_id: shelf.id } })).to.equal(4);
  });

  it('held by both: the first rule the catalog declares (children) names it', async () => {
    const both = await ctx.category();
    await ctx.category({ parent_id: both.id });
    await ctx.product({ category_id: both.id });
    expect(refusal(await del(`/categories/${both.id}`))).to.deep.equal({ relation: 'children', count: 1 });
  });

  it('DELETE /batch: the count covers every record asked for; a parent deleted with its child does not count that child; nothing deleted on a 409', async () => {
    const a = await ctx.product();
    const b = await ctx.product();
    const free = await ctx.product();
    await review(a);
    await review(b);
    await review(b);
    const res = await ctx.request().delete(`${API}/products/batch`).send({ ids: [free.id, a.id, b.id] });
    expect(refusal(res)).to.deep.equal({ relation: 'reviews', count: 3 });
    for (const p of [a, b, free]) expect(await exists('products', p.id)).to.equal(true);
    const root = await ctx.category();
    const child = await ctx.category({ parent_id: root.id });
    const together = await ctx.request().delete(`${API}/categories/batch`).send({ ids: [root.id, child.id] });
    expect(together.status, together.text).to.equal(200);
    expect(await exists('categories', root.id)).to.equal(false);
  });

  it('the relation routes answer the same 409 (DELETE /products/{id}/reviews/{id} is a soft delete; a product through them is not deletable)', async () => {
    const product = await ctx.product();
    const r = await review(product);
    const res = await ctx.request().delete(`${API}/products/${product.id}/reviews/${r.id}`);
    expect(res.status, res.text).to.equal(200);
    expect(refusal(await del(`/products/${product.id}`))).to.deep.equal({ relation: 'reviews', count: 1 });
  });
});
