import { expect } from 'chai';
import { expectError, forEachDriver, type Params, type Rec } from '../support/contract-app';

type Node = Rec & { children?: Node[] };

/** A tree as names: `A(B(D(F),E),C)`. */
function draw(nodes: Node[], key = 'children'): string {
  return nodes.map((n) => {
    const kids = (n as Record<string, unknown>)[key] as Node[] | undefined;
    return kids && kids.length ? `${String(n.name)}(${draw(kids, key)})` : String(n.name);
  }).join(',');
}

/**
 * Hierarchy (spec "Hierarchy object", decisions 27-29, 44, 52) on categories:
 *   A(B(D(F),E),C)  G(H)
 */
forEachDriver('hierarchy', (ctx) => {
  const c: Record<string, Rec> = {};
  const list = (hierarchy: unknown, params: Params = {}) => ctx.get('/categories', { hierarchy, orderby: [{ name: 'asc' }], ...params });
  const show = (name: string, hierarchy: unknown, params: Params = {}) => ctx.get(`/categories/${c[name].id}`, { hierarchy, orderby: [{ name: 'asc' }], ...params });
  const byName = (...names: string[]) => ({ and: [`name|in|[${names.join(',')}]`] });

  before(async () => {
    await ctx.reset();
    const make = async (name: string, parent: string | null) => (c[name] = await ctx.category({ name, parent_id: parent ? c[parent].id : null }));
    await make('A', null);
    await make('C', 'A');
    await make('B', 'A');
    await make('E', 'B');
    await make('D', 'B');
    await make('F', 'D');
    await make('G', null);
    await make('H', 'G');
    await ctx.product({ name: 'In D', category_id: c.D.id });
  });

  it('hierarchy=true: every root with its subtree, siblings ordered by orderby, leaves with empty children', async () => {
    const res = await list(true);
    expect(res.status, res.text).to.equal(200);
    expect(draw(res.body.data)).to.equal('A(B(D(F),E),C),G(H)');
    const leaf = res.body.data[0].children[1];
    expect(leaf).to.include({ name: 'C', parent_id: c.A.id });
    expect(leaf.children).to.deep.equal([]);
    expect(draw((await list(true, { orderby: [{ name: 'desc' }] })).body.data)).to.equal('G(H),A(C,B(E,D(F)))');
  });

  it('/first takes hierarchy like index: the first root with its subtree, or null', async () => {
    const first = await ctx.get('/categories/first', { hierarchy: true, orderby: [{ name: 'asc' }] });
    expect(first.status, first.text).to.equal(200);
    expect(draw([first.body.data])).to.equal('A(B(D(F),E),C)');
    const desc = await ctx.get('/categories/first', { hierarchy: true, orderby: [{ name: 'desc' }], oper: byName('B', 'D', 'H') });
    expect(draw([desc.body.data])).to.equal('H');
    const none = await ctx.get('/categories/first', { hierarchy: true, oper: byName('nothing') });
    expect(none.status).to.equal(200);
    expect(none.body.data).to.equal(null);
  });

  it('filter modes: match_only, with_descendants, with_ancestors, full_branch, root_filter', async () => {
    const matched = await list({ filter_mode: 'match_only' }, { oper: byName('B', 'D', 'H') });
    expect(draw(matched.body.data)).to.equal('B(D),H');
    // a node promoted to root keeps its real parent key
    expect(matched.body.data[0].parent_id).to.equal(c.A.id);
    expect(draw((await list(true, { oper: byName('B') })).body.data)).to.equal('B(D(F),E)');
    expect(draw((await list({ filter_mode: 'with_ancestors' }, { oper: byName('F') })).body.data)).to.equal('A(B(D(F)))');
    expect(draw((await list({ filter_mode: 'full_branch' }, { oper: byName('D') })).body.data)).to.equal('A(B(D(F)))');
    expect(draw((await list({ filter_mode: 'full_branch' }, { oper: byName('D', 'H') })).body.data)).to.equal('A(B(D(F))),G(H)');
    expect(draw((await list({ filter_mode: 'root_filter' }, { oper: byName('A', 'D') })).body.data)).to.equal('A(B(D(F),E),C)');
    expect((await list({ filter_mode: 'root_filter' }, { oper: byName('B') })).body.data).to.deep.equal([]);
  });

  it('max_depth, children_key, include_empty_children, select and relations on every node', async () => {
    expect(draw((await list({ max_depth: 1 })).body.data)).to.equal('A(B,C),G(H)');
    const custom = await list({ children_key: 'kids', include_empty_children: false }, { select: 'name' });
    expect(draw(custom.body.data, 'kids')).to.equal('A(B(D(F),E),C),G(H)');
    const g = custom.body.data[1];
    expect(Object.keys(g).sort()).to.deep.equal(['id', 'kids', 'name', 'parent_id']);
    expect(g.kids[0]).to.not.have.property('kids');
    const loaded = await list(true, { relations: 'products:name', oper: byName('D') });
    expect(loaded.body.data[0].products.map((p: Rec) => p.name)).to.deep.equal(['In D']);
    expect(loaded.body.data[0].children[0].products).to.deep.equal([]);
  });

  it('pagination counts roots', async () => {
    const res = await list(true, { pagination: { page: 2, pageSize: 1 } });
    expect(res.body).to.include({ total: 2, current_page: 2, last_page: 2, per_page: 1, from: 2, to: 2 });
    expect(draw(res.body.data)).to.equal('G(H)');
  });

  it('show: node_only, with_descendants, with_ancestors and full_branch answer the bare top node', async () => {
    const node = await show('B', { mode: 'node_only' });
    expect(node.body.name).to.equal('B');
    expect(node.body).to.not.have.property('children');
    expect(draw([(await show('B', true)).body])).to.equal('B(D(F),E)');
    expect(draw([(await show('F', { mode: 'with_ancestors' })).body])).to.equal('A(B(D(F)))');
    expect(draw([(await show('D', { filter_mode: 'full_branch' })).body])).to.equal('A(B(D(F)))');
    expect(draw([(await show('B', { max_depth: 1 })).body])).to.equal('B(D,E)');
    expectError(await ctx.get(`/categories/${await ctx.absentId('categories')}`, { hierarchy: true }), 404, 'not_found');
  });

  it('bad options and resources without HIERARCHY_FIELD_ID are 400s naming the problem', async () => {
    expectError(await list({ max_depth: 0 }), 400, 'bad_request', /max_depth/);
    expectError(await list({ max_depth: -2 }), 400, 'bad_request', /max_depth/);
    expectError(await list({ filter_mode: 'sideways' }), 400, 'bad_request', /sideways/);
    expectError(await list({ mode: 'node_only' }), 400, 'bad_request', /mode/);
    expectError(await show('B', { mode: 'root_filter' }), 400, 'bad_request', /root_filter/);
    expectError(await ctx.get('/products', { hierarchy: true }), 400, 'bad_request', /HIERARCHY_FIELD_ID/);
    expectError(await list(true, { pagination: { infinity: true, pageSize: 2 } }), 400, 'bad_request', /cursor/);
  });

  it('writes refuse a parent that is the record itself or a descendant, also across a bulk request (422)', async () => {
    const self = await ctx.request().patch(`/api/v1/categories/${c.B.id}`).send({ parent_id: c.B.id });
    expect(expectError(self, 422, 'validation_error').errors).to.have.property('parent_id');
    expectError(await ctx.request().patch(`/api/v1/categories/${c.B.id}`).send({ parent_id: c.F.id }), 422, 'validation_error');
    const bulk = await ctx.request().patch('/api/v1/categories/batch').send({ category: [{ id: c.A.id, parent_id: c.H.id }, { id: c.G.id, parent_id: c.C.id }] });
    expect(Object.keys(expectError(bulk, 422, 'validation_error').errors as object).sort()).to.deep.equal(['category.0.parent_id', 'category.1.parent_id']);
    expect(draw((await list(true)).body.data)).to.equal('A(B(D(F),E),C),G(H)');
    // a legal move goes through
    expect((await ctx.request().patch(`/api/v1/categories/${c.E.id}`).send({ parent_id: c.G.id })).status).to.equal(200);
    expect(draw((await list(true)).body.data)).to.equal('A(B(D(F)),C),G(E,H)');
    expect((await ctx.request().patch(`/api/v1/categories/${c.E.id}`).send({ parent_id: c.B.id })).status).to.equal(200);
  });

  it('a cycle written outside the API terminates; each node appears once', async () => {
    const x = await ctx.category({ name: 'X' });
    const y = await ctx.category({ name: 'Y', parent_id: x.id });
    await ctx.rawSetParent(x, y);
    try {
      const res = await list(true, { oper: byName('X', 'Y') });
      expect(res.status, res.text).to.equal(200);
      expect(draw(res.body.data)).to.equal('X(Y)');
      const up = await list({ filter_mode: 'full_branch' }, { oper: byName('Y') });
      expect(draw(up.body.data)).to.equal('X(Y)');
      expect(draw([(await ctx.get(`/categories/${y.id}`, { hierarchy: { mode: 'with_ancestors' } })).body])).to.match(/^(X\(Y\)|Y\(X\))$/);
    } finally {
      await ctx.rawSetParent(x, null);
    }
  });
});
