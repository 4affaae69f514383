import { expect } from 'chai';
import type supertest from 'supertest';
import { API, forEachDriver, type ContractContext, type Member, type Params, type Rec, type RouteFacts } from '../support/contract-app';

/**
 * The role matrix: every generated route x every role of example-app.md's table -> 401, 403 or
 * success, on both drivers. The expectations are generated from the roles table below (not from
 * the grants the app configures), and every denial is checked to have changed nothing.
 */

type Right = 'read' | 'create' | 'update' | 'delete';
const ALL: Right[] = ['read', 'create', 'update', 'delete'];
/** example-app.md "Users, authentication and permissions" (own grants: reviews for customers, users read own). */
const ROLES_TABLE: Record<string, Record<string, Right[]>> = {
  admin: { products: ALL, categories: ALL, tags: ALL, reviews: ALL, users: ALL, orders: ALL },
  editor: { products: ['read', 'create', 'update'], categories: ['read', 'create', 'update'], tags: ['read', 'create', 'update'], reviews: ['read'], users: [], orders: ['read', 'update'] },
  viewer: { products: ['read'], categories: ['read'], tags: ['read'], reviews: ['read'], users: [], orders: ['read'] },
  // orders: read and create their own (user_id = self), no update or delete
  customer: { products: ['read'], categories: ['read'], tags: ['read'], reviews: ALL, users: ['read'], orders: ['read', 'create'] },
};

const RIGHT_OF: Record<string, Right> = { index: 'read', view: 'read', store: 'create', update: 'update', delete: 'delete' };

/** What the roles table says of a route: every permission its name stands for (resource routes: their own resource and access). */
function allowedFor(role: string, route: RouteFacts): boolean {
  const needs: Array<[string, Right]> = route.permissions
    ? route.permissions.map((p) => [p.slice(0, p.lastIndexOf('.')), RIGHT_OF[p.slice(p.lastIndexOf('.') + 1)]])
    : [[route.resource, route.access]];
  return needs.every(([resource, right]) => ROLES_TABLE[role][resource]?.includes(right) ?? false);
}

const isRelationRoute = (route: RouteFacts) => route.action.startsWith('relation.') && !route.action.includes('export');

forEachDriver('authorization: role matrix', (ctx: ContractContext) => {
  const members: Record<string, Member> = {};
  let product: Rec;
  let category: Rec;
  let tag: Rec;
  let buyer: Rec;

  before(async function () {
    this.timeout(120_000);
    await ctx.reset();
    for (const role of Object.keys(ROLES_TABLE)) members[role] = await ctx.member([role]);
    category = await ctx.category();
    product = await ctx.product({ category_id: category.id });
    tag = await ctx.tagRec();
    buyer = await ctx.user();
  });

  /** A record the request acts on, made by the superuser; reviews belong to the acting user (own grants). */
  async function target(resource: string, actor: Member | null, trashed = false): Promise<Rec> {
    let rec: Rec;
    if (resource === 'products') rec = await ctx.product();
    else if (resource === 'categories') rec = await ctx.category();
    else if (resource === 'tags') rec = await ctx.tagRec();
    else if (resource === 'users') rec = actor && actor.user.roles && (actor.user.roles as string[])[0] === 'customer' ? actor.user : await ctx.user();
    else if (resource === 'orders') rec = await ctx.create('orders', { ...createBody('orders'), user_id: actor?.user.id ?? buyer.id });
    else rec = await ctx.create('reviews', { product_id: product.id, user_id: actor?.user.id ?? null, rating: 4 });
    if (trashed) expect((await ctx.request().delete(`${API}/${resource}/${rec.id}`)).status).to.equal(200);
    return rec;
  }

  function createBody(resource: string): Params {
    if (resource === 'products') return { name: 'Matrix', sku: ctx.unique('msku'), price: 1 };
    if (resource === 'reviews') return { product_id: product.id, rating: 3 };
    if (resource === 'users') return { name: 'Matrix', email: `${ctx.unique('m')}@example.test` };
    if (resource === 'orders') return { user_id: buyer.id, number: ctx.unique('MO'), total: 1, placed_at: '2026-11-01T00:00:00.000Z' };
    return { name: ctx.unique('matrix') };
  }

  function changes(resource: string): Params {
    if (resource === 'reviews') return { rating: 1 };
    if (resource === 'tags') return { name: ctx.unique('changed') };
    if (resource === 'orders') return { notes: 'Changed by matrix' };
    return { name: 'Changed by matrix' };
  }

  /** A response parser that ends at the first SSE frame (a stream) or at the end (an error body, parsed as JSON). */
  const firstFrame = (res: supertest.Response, done: (error: Error | null, body: unknown) => void): void => {
    const stream = res as unknown as NodeJS.ReadableStream & { destroy(): void };
    let text = '';
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // a stream's first frame stays text
      }
      done(null, body);
    };
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n\n')) {
        finish();
        stream.destroy();
      }
    });
    stream.on('end', finish);
  };

  const parentOf: Record<string, () => Rec> = { products: () => product, categories: () => category, tags: () => tag };

  /** Sends the route's request as `actor`; answers the response and a check that nothing changed. */
  async function call(route: RouteFacts, actor: Member | null): Promise<{ res: supertest.Response; unchanged: () => Promise<unknown> }> {
    const agent = actor ? actor.agent() : ctx.as(null);
    const resource = route.resource;
    let path = route.path;
    let body: unknown;
    let unchanged = async (): Promise<unknown> => undefined;
    if (path.includes(':parent_id')) {
      const parent = resource === 'users' ? (actor?.user ?? (await ctx.user())) : parentOf[resource]();
      path = path.replace(':parent_id', String(parent.id));
    }
    if (path.includes(':id')) {
      const rec = await target(resource, actor, route.action === 'restore');
      path = path.replace(':id', String(rec.id));
      // decision 83: a revert to the record's first version (orders keep history)
      path = path.replace(':version', '1');
      if (route.access === 'update') {
        body = changes(resource);
        unchanged = async () => {
          const now = await ctx.request().get(`${API}/${resource}/${rec.id}`).query(route.action === 'restore' ? { soft_delete: 'with' } : {});
          expect(now.status).to.equal(200);
          for (const [key, value] of Object.entries(body as Params)) expect(now.body[key]).to.not.equal(value);
          if (route.action === 'restore') expect(now.body.deleted_at).to.be.a('string');
        };
      }
      if (route.access === 'delete') {
        unchanged = async () => expect((await ctx.request().get(`${API}/${resource}/${rec.id}`)).status).to.equal(200);
      }
    } else if (route.action === 'store' || route.action === 'validate' || route.action === 'upsert') {
      // an upsert of a new record (decision 79: both the create and the update right)
      body = route.action === 'upsert' ? { [route.model]: createBody(resource) } : createBody(resource);
      const before = await ctx.count(resource);
      unchanged = async () => expect(await ctx.count(resource)).to.equal(before);
    } else if (route.action.startsWith('updateMultiple')) {
      const rec = await target(resource, actor);
      const change = changes(resource);
      body = { [route.model]: [{ id: rec.id, ...change }] };
      unchanged = async () => {
        const now = await ctx.request().get(`${API}/${resource}/${rec.id}`);
        for (const [key, value] of Object.entries(change)) expect(now.body[key]).to.not.equal(value);
      };
    } else if (route.action === 'deleteById') {
      const rec = await target(resource, actor);
      body = { ids: [rec.id] };
      unchanged = async () => expect((await ctx.request().get(`${API}/${resource}/${rec.id}`)).status).to.equal(200);
    }
    const url = `${API}${path}`;
    if (route.action === 'import') {
      // decision 82: one row of a CSV; an order's owner is the caller (another owner is a row error for an "own" grant)
      const row = { ...createBody(resource), ...(resource === 'orders' && actor ? { user_id: actor.user.id } : {}) };
      const text = `${Object.keys(row).join(',')}\r\n${Object.values(row).map(String).join(',')}\r\n`;
      const before = await ctx.count(resource);
      const res = await agent.post(url).set('Content-Type', 'text/csv').send(text);
      return { res, unchanged: async () => expect(await ctx.count(resource)).to.equal(before) };
    }
    // the change feed streams until closed: read up to its first frame (or an error body), then hang up
    if (route.action === 'changes') return { res: await agent.get(url).buffer(true).parse(firstFrame), unchanged };
    const res = await (body === undefined ? agent[route.method](url) : agent[route.method](url).send(body as object));
    return { res, unchanged };
  }

  /**
   * A relation route's request as `actor`: its parent (a product, or the actor for /me), a related
   * record linked to that parent (reviews owned by the actor), and a snapshot that must not move on a denial.
   */
  async function callRelation(route: RouteFacts, actor: Member | null): Promise<{ res: supertest.Response; unchanged: () => Promise<unknown> }> {
    const agent = actor ? actor.agent() : ctx.as(null);
    const implicit = route.path.startsWith('/me/');
    const parent = implicit ? (actor?.user ?? null) : await ctx.product();
    const segment = route.path.split('/')[implicit ? 2 : 3];
    const base = implicit ? `${API}/me/${segment}` : `${API}/products/${parent!.id}/${segment}`;
    let related: Rec;
    if (segment === 'tags') {
      related = await ctx.tagRec();
      expect((await ctx.request().post(`${API}/products/${parent!.id}/tags/attach`).send({ tag_id: related.id })).status).to.equal(200);
    } else {
      related = await ctx.create('reviews', { product_id: implicit ? product.id : parent!.id, user_id: actor?.user.id ?? null, rating: 4 });
    }
    const snapshot = async () =>
      JSON.stringify(implicit ? (await ctx.get('/reviews', { attr: { user_id: actor?.user.id ?? null } })).body : (await ctx.request().get(`${API}/products/${parent!.id}/${segment}`)).body);
    const before = await snapshot();
    const unchanged = async () => expect(await snapshot()).to.equal(before);
    const key = segment === 'tags' ? 'tags' : 'reviews';
    const create = segment === 'tags' ? { name: ctx.unique('rel') } : { product_id: product.id, rating: 3 };
    const change = segment === 'tags' ? { name: ctx.unique('relc') } : { rating: 1 };
    const action = route.action.slice('relation.'.length);
    const one = `${base}/${related.id}`;
    const requests: Record<string, () => supertest.Test> = {
      index: () => agent.get(base),
      show: () => agent.get(one),
      store: () => agent.post(base).send({ [key]: create }),
      updateMany: () => agent.put(base).query({ _scenario: 'bulk_update' }).send({ [key]: [{ id: related.id, ...change }] }),
      destroyMany: () => agent.delete(base).query({ _scenario: 'bulk_delete' }).send([related.id]),
      update: () => agent.put(one).send({ [key]: change }),
      destroy: () => agent.delete(one),
      attach: () => agent.post(`${base}/attach`).query({ _scenario: 'toggle' }).send({ tags: [related.id] }),
      detachMany: () => agent.delete(`${base}/detach`).query({ _scenario: 'bulk_detach' }).send([related.id]),
      detach: () => agent.delete(`${one}/detach`),
      updatePivot: () => agent.put(`${one}/pivot`).send({ position: 9 }),
      updatePivotMany: () => agent.put(`${base}/pivot`).query({ _scenario: 'bulk_update_pivot' }).send({ tags: [{ tag_id: related.id, position: 9 }] }),
    };
    const send = requests[action];
    if (!send) throw new Error(`the matrix has no request for ${route.name}`);
    return { res: await send(), unchanged };
  }

  it('every generated route x every role answers as the roles table says; denials change nothing', async function () {
    this.timeout(600_000);
    const routes = ctx.routes();
    const failures: string[] = [];
    let checked = 0;
    for (const route of routes) {
      for (const role of [null, ...Object.keys(ROLES_TABLE)]) {
        const actor = role ? members[role] : null;
        const allowed = role !== null && allowedFor(role, route);
        // a relation route's explicit parent must be readable too: one the caller may not read is absent (404)
        const parentHidden = role !== null && route.permissions !== undefined && route.resource !== 'me' && !ROLES_TABLE[role][route.resource].includes('read');
        const success = route.action === 'relation.store' ? 201 : 200;
        const expected = role === null ? 401 : !allowed ? 403 : parentHidden ? 404 : success;
        const { res, unchanged } = isRelationRoute(route) ? await callRelation(route, actor) : await call(route, actor);
        checked += 1;
        if (res.status !== expected) failures.push(`${route.method.toUpperCase()} ${route.path} (${route.name}) as ${role ?? 'anonymous'}: ${res.status}, expected ${expected} ${res.text.slice(0, 160)}`);
        else if (expected !== success) await unchanged();
        if (expected === 403) expect(res.body).to.deep.equal({ message: 'Forbidden', type: 'forbidden', status: 403 });
        if (expected === 401) expect(res.body).to.deep.equal({ message: 'Unauthenticated.', type: 'unauthenticated', status: 401 });
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
    expect(checked).to.be.greaterThan(300);
  });
});
