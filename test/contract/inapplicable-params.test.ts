import { expect } from 'chai';
import { API, expectBadRequest, forEachDriver, type Fixture } from '../support/contract-app';

const NOT_SOFT = (resource: string) => `Parameter "soft_delete" does not apply to ${resource}: the resource is not soft-deletable`;
const NO_TREE = (resource: string) => `Parameter "hierarchy" does not apply to ${resource}: the resource has no hierarchy`;

/**
 * Issue 44: `soft_delete` where the records are not soft-deletable and `hierarchy` where they form
 * no tree are 400s naming the parameter and saying why (relation lists included, any value,
 * query string or JSON body), and the API description lists each only where it applies.
 */
forEachDriver('soft_delete and hierarchy only where they apply', (ctx) => {
  let fx: Fixture;
  before(async () => {
    fx = await ctx.fixture();
  });

  it('soft_delete on a resource without soft delete: list, first, show, aggregate, export, any value', async () => {
    const id = fx.prod.alpha.id;
    for (const [path, value] of [['/products', 'with'], ['/products', 'only'], ['/products', 'false'], ['/products/first', 'true'], [`/products/${id}`, 'with'], ['/products/aggregate', 'with'], ['/products/export/excel', 'with'], ['/tags', 'with']]) {
      const body = expectBadRequest(await ctx.get(path, { soft_delete: value }), NOT_SOFT(path.startsWith('/tags') ? 'tags' : 'products'));
      expect(body.message, path).to.not.include('Unknown parameter');
    }
    // a read's JSON body carries parameters too (decision 1)
    expectBadRequest(await ctx.getWithBody('/products', { soft_delete: 'with' }), NOT_SOFT('products'));
  });

  it('where it applies it still works: reviews, and reviews under a product', async () => {
    const trashed = await ctx.request().delete(`${API}/reviews/${fx.review.a2.id}`);
    expect(trashed.status, trashed.text).to.equal(200);
    try {
      const all = await ctx.get('/reviews', { soft_delete: 'with' });
      expect(all.status, all.text).to.equal(200);
      expect(all.body.data.map((r: { id: unknown }) => r.id)).to.include(fx.review.a2.id);
      const related = await ctx.get(`/products/${fx.prod.alpha.id}/reviews`, { soft_delete: 'only' });
      expect(related.status, related.text).to.equal(200);
      expect(related.body.data.map((r: { id: unknown }) => r.id)).to.deep.equal([fx.review.a2.id]);
    } finally {
      await ctx.request().post(`${API}/reviews/${fx.review.a2.id}/restore`).expect(200);
    }
  });

  it('relation lists: soft_delete where the related resource is not soft-deletable is the same 400', async () => {
    const id = fx.prod.alpha.id;
    expectBadRequest(await ctx.get(`/products/${id}/tags`, { soft_delete: 'with' }), NOT_SOFT('tags'));
    expectBadRequest(await ctx.get(`/products/${id}/tags/${fx.tag.red.id}`, { soft_delete: 'with' }), NOT_SOFT('tags'));
    expectBadRequest(await ctx.get(`/products/${id}/tags/export/excel`, { soft_delete: 'with' }), NOT_SOFT('tags'));
  });

  it('hierarchy on a resource without HIERARCHY_FIELD_ID: list, first and show, any value; a tree where it applies', async () => {
    for (const path of ['/products', '/products/first', `/products/${fx.prod.alpha.id}`]) {
      for (const value of ['true', 'false', '{"filter_mode":"with_ancestors"}']) {
        const body = expectBadRequest(await ctx.get(path, { hierarchy: value }), NO_TREE('products'));
        expect(body.message).to.include('HIERARCHY_FIELD_ID');
      }
    }
    const tree = await ctx.get('/categories', { hierarchy: true, attr: { name: 'Electronics' } });
    expect(tree.status, tree.text).to.equal(200);
    // relation lists never take the tree (decision 64's table): the parameter is unknown there
    expectBadRequest(await ctx.get(`/products/${fx.prod.alpha.id}/reviews`, { hierarchy: true }), 'Unknown parameter "hierarchy"');
  });

  it('the API description lists soft_delete and hierarchy only on the routes whose records take them', async () => {
    const doc = (await ctx.request().get(`${API}/openapi.json`)).body as { paths: Record<string, Record<string, { parameters?: Array<{ $ref?: string }> }>> };
    const params = (path: string, method = 'get') => (doc.paths[path]?.[method]?.parameters ?? []).map((p) => p.$ref?.split('/').pop());
    expect(params('/products')).to.not.include.members(['soft_delete']).and.not.include('hierarchy');
    expect(params('/products/{id}')).to.not.include('soft_delete').and.not.include('hierarchy');
    expect(params('/products/aggregate')).to.not.include('soft_delete');
    expect(params('/products/export/excel')).to.not.include('soft_delete');
    expect(params('/products/{parent_id}/tags')).to.not.include('soft_delete');
    expect(params('/reviews')).to.include('soft_delete').and.not.include('hierarchy');
    expect(params('/products/{parent_id}/reviews')).to.include('soft_delete');
    expect(params('/categories')).to.include('hierarchy').and.not.include('soft_delete');
    expect(params('/categories/{id}')).to.include('hierarchy');
  });
});
