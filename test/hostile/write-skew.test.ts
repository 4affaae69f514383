import { expect } from 'chai';
import { API, expectError, forEachDriver, type Id, type Rec } from '../support/contract-app';

/**
 * Issue 28 (items 4, 5, 8, 9): conflicts the database must settle, not a read-then-write check.
 * Parallel hierarchy moves never make a cycle; parallel syncs end with one requested set and
 * report what they changed; a sync without its dataKey changes nothing; pivot integers and
 * children_key are checked alike on both drivers.
 */
forEachDriver('write skew and relation bodies', (ctx) => {
  before(() => ctx.reset());

  const patch = (id: Id, body: object) => ctx.request().patch(`${API}/categories/${id}`).send(body);

  /** Runs `work` with every transaction of the SQL app at REPEATABLE READ (Sequelize reads the option per transaction). */
  async function repeatableRead(work: () => Promise<void>): Promise<void> {
    const api = ctx.app.api as unknown as { registry: { entry(name: string): { declaration: { model: unknown } } } };
    const options = (api.registry.entry('category').declaration.model as { sequelize: { options: { isolationLevel?: string | null } } }).sequelize.options;
    const before = options.isolationLevel;
    options.isolationLevel = 'REPEATABLE READ';
    try {
      await work();
    } finally {
      options.isolationLevel = before;
    }
  }

  /** Follows parent_id from every category given; a cycle fails the test. */
  async function expectNoCycle(cats: Rec[]): Promise<void> {
    const parentOf = new Map<string, string | null>();
    for (const c of cats) {
      const row = await ctx.fetch('categories', c.id);
      parentOf.set(String(c.id), row.parent_id === null || row.parent_id === undefined ? null : String(row.parent_id));
    }
    for (const c of cats) {
      const seen = new Set<string>();
      for (let at: string | null = String(c.id); at !== null && parentOf.has(at); at = parentOf.get(at) ?? null) {
        expect(seen.has(at), `cycle through ${at}: ${JSON.stringify([...parentOf])}`).to.equal(false);
        seen.add(at);
      }
    }
  }

  it('two parallel moves that would make a 2-cycle: exactly one fails (422/409), never a cycle', async function () {
    this.timeout(120_000);
    for (let round = 0; round < 6; round += 1) {
      const a = await ctx.category({ name: `2c-a-${round}` });
      const b = await ctx.category({ name: `2c-b-${round}` });
      const answers = await Promise.all([patch(a.id, { parent_id: b.id }), patch(b.id, { parent_id: a.id })]);
      for (const res of answers) expect(res.status, res.text).to.be.oneOf([200, 409, 422]);
      expect(answers.filter((r) => r.status === 200), `round ${round}: ${answers.map((r) => r.status)}`).to.have.length(1);
      await expectNoCycle([a, b]);
    }
  });

  it('three parallel moves that would make a 3-cycle: exactly one fails, never a cycle', async function () {
    this.timeout(120_000);
    for (let round = 0; round < 5; round += 1) {
      const [a, b, c] = [await ctx.category({ name: `3c-a-${round}` }), await ctx.category({ name: `3c-b-${round}` }), await ctx.category({ name: `3c-c-${round}` })];
      const answers = await Promise.all([patch(a.id, { parent_id: b.id }), patch(b.id, { parent_id: c.id }), patch(c.id, { parent_id: a.id })]);
      for (const res of answers) expect(res.status, res.text).to.be.oneOf([200, 409, 422]);
      expect(answers.filter((r) => r.status === 200), `round ${round}: ${answers.map((r) => r.status)}`).to.have.length(2);
      await expectNoCycle([a, b, c]);
    }
  });

  it('PostgreSQL under REPEATABLE READ too: a move that waited runs again on a fresh snapshot (never a cycle)', async function () {
    if (ctx.driver !== 'sql') this.skip();
    this.timeout(120_000);
    await repeatableRead(async () => {
      for (let round = 0; round < 4; round += 1) {
        const a = await ctx.category({ name: `rr-a-${round}` });
        const b = await ctx.category({ name: `rr-b-${round}` });
        const answers = await Promise.all([patch(a.id, { parent_id: b.id }), patch(b.id, { parent_id: a.id })]);
        for (const res of answers) expect(res.status, res.text).to.be.oneOf([200, 409, 422]);
        expect(answers.filter((r) => r.status === 200), `round ${round}: ${answers.map((r) => r.status)}`).to.have.length(1);
        await expectNoCycle([a, b]);
      }
    });
  });

  it('a bulk move racing a single move: never a cycle', async function () {
    this.timeout(60_000);
    const [a, b, c] = [await ctx.category({ name: 'bulk-a' }), await ctx.category({ name: 'bulk-b' }), await ctx.category({ name: 'bulk-c' })];
    const answers = await Promise.all([
      ctx.request().patch(`${API}/categories/batch`).send({ category: [{ id: a.id, parent_id: b.id }, { id: b.id, parent_id: c.id }] }),
      patch(c.id, { parent_id: a.id }),
    ]);
    for (const res of answers) expect(res.status, res.text).to.be.oneOf([200, 409, 422]);
    expect(answers.filter((r) => r.status === 200)).to.have.length(1);
    await expectNoCycle([a, b, c]);
  });

  describe('pivot writes', () => {
    let product: Rec;
    const tags: Rec[] = [];
    const tagIds = () => tags.map((t) => String(t.id));
    const attachRoute = (scenario: string | null, body: unknown) => {
      const r = ctx.request().post(`${API}/products/${product.id}/tags/attach`);
      return (scenario ? r.query({ _scenario: scenario }) : r).send(body as object);
    };
    const linked = async (): Promise<string[]> => {
      const res = await ctx.request().get(`${API}/products/${product.id}/tags`);
      expect(res.status, res.text).to.equal(200);
      return (res.body.data as Rec[]).map((r) => String(r.id)).sort();
    };
    const ids = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

    before(async () => {
      product = await ctx.product({ name: 'Pivot races' });
      for (let i = 0; i < 10; i += 1) tags.push(await ctx.tagRec());
    });
    beforeEach(async () => {
      const res = await attachRoute('sync', { tags: [] });
      expect(res.status, res.text).to.equal(200);
    });

    it('sync of {} or of a misspelled key is a 400 naming the dataKey and detaches nothing; {"tags": []} detaches all', async () => {
      expect((await attachRoute('bulk_attach', { tags: tagIds().slice(0, 3) })).status).to.equal(200);
      for (const body of [{}, { Tags: { [tagIds()[0]]: {} } }, { tag: [] }, { tags_ids: [] }]) {
        const res = expectError(await attachRoute('sync', body), 400, 'bad_request');
        expect(res.message).to.include('"tags"');
        expect(await linked(), JSON.stringify(body)).to.deep.equal(tagIds().slice(0, 3).sort());
      }
      expectError(await attachRoute('toggle', {}), 400, 'bad_request', /"tags"/);
      expectError(await attachRoute('bulk_attach', {}), 400, 'bad_request', /"tags"/);
      expect(await linked()).to.have.length(3);
      // the other forms of decision 49 name the set explicitly
      const byIds = await attachRoute('sync', { ids: [tags[0].id] });
      expect(byIds.status, byIds.text).to.equal(200);
      expect(await linked()).to.deep.equal([tagIds()[0]]);
      const all = await attachRoute('sync', { tags: [] });
      expect(all.status, all.text).to.equal(200);
      expect(ids(all.body.detached)).to.deep.equal([tagIds()[0]]);
      expect(await linked()).to.deep.equal([]);
    });

    const parallelSyncs = async () => {
      const sets = Array.from({ length: 10 }, (_, i) => [0, 1, 2, 3].map((k) => tagIds()[(i + k * (1 + (i % 3))) % 10]).filter((v, j, a) => a.indexOf(v) === j));
      const answers = await Promise.all(sets.map((set) => attachRoute('sync', { tags: set })));
      for (const res of answers) expect(res.status, res.text).to.be.oneOf([200, 409]);
      const final = await linked();
      const asked = sets.filter((_, i) => answers[i].status === 200).map((s) => [...s].sort());
      expect(asked.map((s) => JSON.stringify(s)), `final ${JSON.stringify(final)}`).to.include(JSON.stringify(final));
      // starting from no links, each tag's attaches minus detaches is its final membership
      for (const id of tagIds()) {
        let n = 0;
        for (const res of answers) {
          if (res.status !== 200) continue;
          if (ids(res.body.attached).includes(id)) n += 1;
          if (ids(res.body.detached).includes(id)) n -= 1;
        }
        expect(n, `tag ${id}`).to.equal(final.includes(id) ? 1 : 0);
      }
      for (let i = 0; i < answers.length; i += 1) {
        if (answers[i].status !== 200) continue;
        expect(ids(answers[i].body.attached).every((id) => sets[i].includes(id))).to.equal(true);
        expect(ids(answers[i].body.detached).some((id) => sets[i].includes(id))).to.equal(false);
      }
    };

    it('10 parallel syncs end with exactly one requested set, and the reports add up to it', async function () {
      this.timeout(60_000);
      await parallelSyncs();
    });

    it('PostgreSQL under REPEATABLE READ too: 10 parallel syncs end with one requested set', async function () {
      if (ctx.driver !== 'sql') this.skip();
      this.timeout(60_000);
      await repeatableRead(parallelSyncs);
    });

    it('parallel attaches of overlapping sets: every tag reported attached exactly once', async function () {
      this.timeout(60_000);
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => attachRoute('bulk_attach', { tags: [tagIds()[i], tagIds()[i + 1], tagIds()[i + 2]] })));
      for (const res of answers) expect(res.status, res.text).to.be.oneOf([200, 409]);
      const reported = answers.filter((r) => r.status === 200).flatMap((r) => ids(r.body.attached));
      const final = await linked();
      expect([...reported].sort()).to.deep.equal(final);
    });

    it('parallel toggles of the same tag: the reports add up to the final membership', async function () {
      this.timeout(60_000);
      const id = tagIds()[4];
      const answers = await Promise.all(Array.from({ length: 7 }, () => attachRoute('toggle', { tags: [tags[4].id] })));
      for (const res of answers) expect(res.status, res.text).to.be.oneOf([200, 409]);
      const done = answers.filter((r) => r.status === 200);
      const n = done.reduce((sum, r) => sum + (ids(r.body.attached).includes(id) ? 1 : 0) - (ids(r.body.detached).includes(id) ? 1 : 0), 0);
      const final = await linked();
      expect(n).to.equal(final.includes(id) ? 1 : 0);
      expect(final.includes(id)).to.equal(done.length % 2 === 1);
    });

    it('a pivot integer beyond 32 bits is a 422 naming the field on both drivers, and nothing is written', async () => {
      const big = 2 ** 31;
      const bulk = expectError(await attachRoute('bulk_attach', { tags: [{ tag_id: tags[0].id, position: big }] }), 422, 'validation_error');
      expect(bulk.errors).to.have.property('tags.0.position');
      const single = expectError(await attachRoute(null, { tag_id: tags[0].id, position: big }), 422, 'validation_error');
      expect(single.errors).to.have.property('position');
      const low = expectError(await attachRoute('sync', { tags: { [tagIds()[1]]: { position: -(2 ** 31) - 1 } } }), 422, 'validation_error');
      expect(low.errors).to.have.property(`tags.${tagIds()[1]}.position`);
      expect(await linked()).to.deep.equal([]);
      const edge = await attachRoute('bulk_attach', { tags: [{ tag_id: tags[0].id, position: 2 ** 31 - 1 }] });
      expect(edge.status, edge.text).to.equal(200);
      const pivot = expectError(await ctx.request().put(`${API}/products/${product.id}/tags/${tags[0].id}/pivot`).send({ position: big }), 422, 'validation_error');
      expect(pivot.errors).to.have.property('position');
    });
  });

  it('hierarchy.children_key __proto__, constructor or prototype is a 400 naming the parameter', async () => {
    const root = await ctx.category({ name: 'proto-root' });
    await ctx.category({ name: 'proto-kid', parent_id: root.id });
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      expectError(await ctx.get('/categories', { hierarchy: { children_key: key } }), 400, 'bad_request', /children_key/);
      expectError(await ctx.get(`/categories/${root.id}`, { hierarchy: { children_key: key } }), 400, 'bad_request', /children_key/);
    }
    const ok = await ctx.get(`/categories/${root.id}`, { hierarchy: { children_key: 'kids' } });
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.body.kids).to.have.length(1);
  });
});
