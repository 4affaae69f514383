import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { API, expectBadRequest, expectValidation, forEachDriver, type Member, type Rec } from '../support/contract-app';

/**
 * Field read policy (accesscontrol attributes: `cost` readable by admin and editor only) and field
 * write policy (fieldsByRole), decision 39, on every output path and input position.
 */
forEachDriver('authorization: field policies', (ctx) => {
  let viewer: Member;
  let customer: Member;
  let editor: Member;
  let admin: Member;
  let category: Rec;
  let product: Rec;

  before(async () => {
    await ctx.reset();
    viewer = await ctx.member(['viewer']);
    customer = await ctx.member(['customer']);
    editor = await ctx.member(['editor']);
    admin = await ctx.member(['admin']);
    category = await ctx.category({ name: 'Policy shelf' });
    product = await ctx.product({ name: 'Secret cost', cost: 7319.8642, category_id: category.id });
    await ctx.product({ name: 'Cheap cost', cost: 3, category_id: category.id });
    await ctx.create('reviews', { product_id: product.id, user_id: customer.user.id, rating: 5 });
  });

  const get = (member: Member, path: string, params: Record<string, unknown> = {}) =>
    member.agent().get(`${API}${path}`).query(Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])));

  describe('read policy: a hidden field is absent from every output', () => {
    it('lists, /first and show', async () => {
      for (const member of [viewer, customer]) {
        const list = await get(member, '/products');
        expect(list.status, list.text).to.equal(200);
        for (const row of list.body.data) expect(row).to.not.have.property('cost');
        expect(list.body.data.map((r: Rec) => r.name)).to.include('Secret cost');
        expect((await get(member, '/products/first')).body.data).to.not.have.property('cost');
        const show = await get(member, `/products/${product.id}`);
        expect(show.status).to.equal(200);
        expect(show.body).to.not.have.property('cost');
        expect(show.text).to.not.include('7319.8642');
      }
      for (const member of [editor, admin]) expect((await get(member, `/products/${product.id}`)).body.cost).to.equal(7319.8642);
    });

    it('eager-loaded relations at every depth (to-many, to-one, nested)', async () => {
      const cats = await get(viewer, '/categories', { relations: ['products'] });
      expect(cats.status, cats.text).to.equal(200);
      const shelf = cats.body.data.find((c: Rec) => c.id === category.id);
      expect(shelf.products).to.have.length(2);
      for (const p of shelf.products) expect(p).to.not.have.property('cost');
      const reviews = await get(viewer, '/reviews', { relations: ['product.category'] });
      expect(reviews.status, reviews.text).to.equal(200);
      expect(reviews.body.data[0].product.name).to.equal('Secret cost');
      expect(reviews.body.data[0].product).to.not.have.property('cost');
      expect(reviews.text).to.not.include('7319.8642');
      const editorView = await get(editor, '/reviews', { relations: ['product'] });
      expect(editorView.body.data[0].product.cost).to.equal(7319.8642);
    });

    it('exports: default columns leave it out; naming it is a 400', async () => {
      const res = await viewer.agent().get(`${API}/products/export/excel`).buffer(true).parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      });
      expect(res.status).to.equal(200);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(res.body as ArrayBuffer);
      const header = (workbook.worksheets[0].getRow(1).values as unknown[]).slice(1);
      expect(header).to.include('price').and.not.include('cost');
      expectBadRequest(await get(viewer, '/products/export/excel', { columns: 'name,cost' }), 'cost');
      expectBadRequest(await get(viewer, '/categories/export/pdf', { columns: 'name,products.cost' }));
      expectBadRequest(await get(customer, '/reviews/export/excel', { columns: 'rating,product.cost' }), 'cost');
    });
  });

  describe('read policy: a hidden field is unknown in every input position, and never named in an error', () => {
    const positions: Array<[string, string, Record<string, unknown>]> = [
      ['select', '/products', { select: 'name,cost' }],
      ['select *', '/products/first', { select: ['cost'] }],
      ['oper', '/products', { oper: { and: ['cost|>|40'] } }],
      ['oper in or', '/products', { oper: { or: ['cost|null', 'name|=|x'] } }],
      ['attr', '/products', { attr: { cost: 7319.8642 } }],
      ['orderby', '/products', { orderby: [{ cost: 'desc' }] }],
      ['relation filter', '/categories', { oper: { products: { and: ['cost|>|40'] } } }],
      ['relation filter, to-one', '/reviews', { oper: { product: { and: ['cost|>|40'] } } }],
      ['relation columns', '/categories', { relations: ['products:name,cost'] }],
      ['relation order', '/reviews', { orderby: [{ 'product.cost': 'asc' }] }],
      ['show select', `/products/PRODUCT`, { select: 'cost' }],
    ];
    for (const [where, path, params] of positions) {
      it(`${where}: 400 for viewers and customers, 200 for editors`, async () => {
        const url = path.replace('PRODUCT', String(product.id));
        for (const member of [viewer, customer]) {
          const res = await get(member, url, params);
          expectBadRequest(res, 'cost');
          // the list of allowed fields in the message leaves the hidden one out
          expect(String(res.body.message).replace(/"[^"]*cost[^"]*"/, '')).to.not.include('cost');
        }
        const allowed = await get(editor, url, params);
        expect(allowed.status, allowed.text).to.equal(200);
      });
    }

    it('a cursor made on a hidden sort key by an editor is refused for a viewer', async () => {
      const page = await get(editor, '/products', { orderby: [{ cost: 'asc' }], pagination: { infinity: true, pageSize: 1 } });
      expect(page.status, page.text).to.equal(200);
      const cursor = page.body.next_cursor as string;
      expect(cursor).to.be.a('string');
      const res = await get(viewer, '/products', { pagination: { infinity: true, pageSize: 1, cursor } });
      expect(res.status).to.equal(400);
      expect(res.text).to.not.include('7319.8642');
    });

    it('concurrent requests of different users never see each other\'s fields', async () => {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => get(i % 2 ? viewer : editor, `/products/${product.id}`).then((r) => ({ i, r }))));
      for (const { i, r } of answers) {
        expect(r.status).to.equal(200);
        if (i % 2) expect(r.body).to.not.have.property('cost');
        else expect(r.body.cost).to.equal(7319.8642);
      }
    });
  });

  describe('write policy (fieldsByRole)', () => {
    const post = (member: Member, path: string, body: object) => member.agent().post(`${API}${path}`).send(body);

    it('store: each denied field is a 422 "The <field> field is prohibited."; nothing is written', async () => {
      const before = await ctx.count('products');
      const res = await post(editor, '/products', { name: 'E', sku: ctx.unique('e'), price: 1, featured: true, cost: 2, status: 'active' });
      const errors = expectValidation(res, 'featured', 'cost');
      expect(errors.featured).to.deep.equal(['The featured field is prohibited.']);
      expect(errors.cost).to.deep.equal(['The cost field is prohibited.']);
      expect(errors).to.not.have.property('status');
      expect(await ctx.count('products')).to.equal(before);
      expect((await post(editor, '/products', { name: 'E', sku: ctx.unique('e'), price: 1, status: 'active' })).status).to.equal(200);
      expect((await post(admin, '/products', { name: 'A', sku: ctx.unique('a'), price: 1, featured: true, cost: 2, status: 'active' })).status).to.equal(200);
    });

    it('bulk store, both updateMultiple routes, update and /validate name the item', async () => {
      const before = await ctx.count('products');
      const bulk = await post(editor, '/products', { product: [{ name: 'ok', sku: ctx.unique('b'), price: 1 }, { name: 'no', sku: ctx.unique('b'), price: 1, featured: true }] });
      expect(Object.keys(expectValidation(bulk, 'product.1.featured'))).to.deep.equal(['product.1.featured']);
      expect(await ctx.count('products')).to.equal(before);
      const batch = await editor.agent().patch(`${API}/products/batch`).send({ product: [{ id: product.id, name: 'x', status: 'active', cost: 2 }] });
      expect(Object.keys(expectValidation(batch, 'product.0.cost'))).to.deep.equal(['product.0.cost']);
      const multi = await post(editor, '/products/update-multiple', { product: [{ id: product.id, featured: true }] });
      expectValidation(multi, 'product.0.featured');
      const patch = await editor.agent().patch(`${API}/products/${product.id}`).send({ cost: 1 });
      expectValidation(patch, 'cost');
      const put = await editor.agent().put(`${API}/products/${product.id}`).send({ featured: true, name: 'Renamed' });
      expectValidation(put, 'featured');
      expectValidation(await post(editor, '/products/validate', { name: 'v', sku: 'v', price: 1, featured: false }), 'featured');
      const now = await ctx.fetch('products', product.id);
      expect(now.name).to.equal('Secret cost');
      expect(now.cost).to.equal(7319.8642);
      expect(now.featured).to.equal(false);
    });

    it('users: roles only by admins, is_superuser only by a superuser', async () => {
      const email = () => `${ctx.unique('p')}@example.test`;
      expectValidation(await post(admin, '/users', { name: 'S', email: email(), is_superuser: true }), 'is_superuser');
      expect((await post(admin, '/users', { name: 'R', email: email(), roles: ['editor'] })).status).to.equal(200);
      expect((await ctx.request().post(`${API}/users`).send({ name: 'S', email: email(), is_superuser: true })).status).to.equal(200);
    });
  });
});
