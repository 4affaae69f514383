import { connect } from 'node:net';
import { expect } from 'chai';
import supertest from 'supertest';
import { API, TIMESTAMP, forEachDriver, type Member } from '../support/contract-app';
import { ChangeStream, listen } from '../support/change-stream';
import { changes } from '../../lib/client/changes';

/**
 * GET /{resource}/changes (decisions 60-62): an event after the commit of every write path, its
 * shape, the subscriber's filter and select, the read policy and ownership per subscriber, nothing
 * for a rollback, resume with Last-Event-ID and reset beyond the buffer, heartbeats and the bound of
 * open streams (slow readers and rights: changes-delivery and changes-rights).
 */
forEachDriver('change feed', (ctx) => {
  let server: { url: string; close(): Promise<void> };
  let open: ChangeStream[] = [];
  const feed = async (resource: string, options: Parameters<typeof ChangeStream.open>[1] = {}, base = server.url): Promise<ChangeStream> => {
    const stream = await ChangeStream.open(`${base}${API}/${resource}/changes`, { token: ctx.app.info.adminToken, ...options });
    open.push(stream);
    return stream;
  };
  const admin = () => ctx.request();

  before(async () => {
    await ctx.reset();
    server = await listen(ctx.app.app);
  });
  afterEach(() => {
    for (const stream of open) stream.close();
    open = [];
  });
  after(async () => {
    await server.close();
  });

  describe('a stream', () => {
    it('answers text/event-stream; an anonymous subscriber is a 401 and one without the list permission a 403, before any stream', async () => {
      const stream = await feed('products');
      expect(stream.status).to.equal(200);
      expect(stream.contentType).to.match(/^text\/event-stream/);
      const anonymous = await feed('products', { token: null });
      expect(anonymous.status).to.equal(401);
      const viewer = await ctx.member(['viewer']);
      const refused = await feed('users', { token: viewer.token });
      expect(refused.status).to.equal(403);
    });

    it('HTTP/1.1: the body runs to the connection\'s end, not in chunks (one write per batch); HTTP/1.0 keeps its own framing', async () => {
      const raw = (version: string) =>
        new Promise<string>((resolve, reject) => {
          const { hostname, port } = new URL(server.url);
          let text = '';
          const socket = connect(Number(port), hostname, () => socket.write(`GET ${API}/products/changes HTTP/${version}\r\nHost: ${hostname}\r\nAuthorization: Bearer ${ctx.app.info.adminToken}\r\n\r\n`));
          socket.on('data', (chunk) => {
            text += chunk.toString();
            if (text.includes(': stream open\n\n')) {
              socket.destroy();
              resolve(text);
            }
          });
          socket.on('error', reject);
        });
      const eleven = await raw('1.1');
      expect(eleven).to.match(/^HTTP\/1\.1 200 /);
      expect(eleven).to.match(/\r\nconnection: close\r\n/i);
      expect(eleven).to.not.match(/transfer-encoding/i);
      // the first frame right after the headers, with no chunk size before it
      expect(eleven.split('\r\n\r\n')[1]).to.equal(': stream open\n\n');
      const ten = await raw('1.0');
      expect(ten).to.match(/^HTTP\/1\.1 200 /);
      expect(ten.split('\r\n\r\n')[1]).to.equal(': stream open\n\n');
    });

    it('a relation filter or an unknown parameter is a 400 naming it', async () => {
      const relation = await feed('products', { params: { oper: { and: ['category.name|=|Books'] } } });
      expect(relation.status).to.equal(400);
      expect(JSON.stringify(relation.body)).to.contain('category');
      const unknown = await feed('products', { params: { pagination: { page: 1 } } });
      expect(unknown.status).to.equal(400);
      expect(JSON.stringify(unknown.body)).to.contain('pagination');
    });
  });

  describe('the typed client', () => {
    it('reads the stream as an async iterator of EventSource-like messages, over fetch', async () => {
      const feedOf = (ctx.app.api as unknown as { changes: { openStreams: number } }).changes;
      const before = feedOf.openStreams;
      const controller = new AbortController();
      const iterator = changes<{ id: unknown; name: string }>({ baseUrl: `${server.url}${API}`, headers: { authorization: `Bearer ${ctx.app.info.adminToken}` } }, 'products', { select: ['name'], attr: { name: 'Via client' }, signal: controller.signal });
      const first = iterator.next();
      const deadline = Date.now() + 5000;
      while (feedOf.openStreams === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await ctx.product({ name: 'Not for the client' });
      const p = await ctx.product({ name: 'Via client' });
      const { value } = await first;
      expect(value).to.deep.include({ type: 'created', data: JSON.stringify({ id: p.id, model: { id: p.id, name: 'Via client' } }) });
      expect(value!.json).to.deep.equal({ id: p.id, model: { id: p.id, name: 'Via client' } });
      expect(value!.lastEventId).to.be.a('string').and.not.equal('');
      controller.abort();
      expect((await iterator.next()).done).to.equal(true);
    });
  });

  describe('events for every write path', () => {
    it('store (one and bulk): created, one per record, the record as a show answers it', async () => {
      const stream = await feed('products');
      const one = await ctx.product({ name: 'Feed One', price: 5 });
      const [created] = await stream.take(1);
      expect(created.type).to.equal('created');
      expect(created.lastEventId).to.be.a('string').and.not.equal('');
      expect(created.data).to.deep.equal({ id: one.id, model: await ctx.fetch('products', one.id) });
      expect(created.data.model!.created_at).to.match(TIMESTAMP);
      const bulk = await admin().post(`${API}/products`).send({ product: [{ name: 'Feed B1', sku: ctx.unique('sku'), price: 1 }, { name: 'Feed B2', sku: ctx.unique('sku'), price: 2 }] });
      expect(bulk.status, bulk.text).to.equal(200);
      const events = await stream.take(2);
      expect(events.map((e) => [e.type, e.data.model!.name])).to.deep.equal([['created', 'Feed B1'], ['created', 'Feed B2']]);
      expect(new Set(events.map((e) => e.lastEventId)).size).to.equal(2);
    });

    it('update (PUT, PATCH, batch, update-multiple): updated with the record after the write', async () => {
      const a = await ctx.product({ name: 'Upd A' });
      const b = await ctx.product({ name: 'Upd B' });
      const stream = await feed('products');
      await admin().put(`${API}/products/${a.id}`).send({ price: 11 }).expect(200);
      await admin().patch(`${API}/products/${a.id}`).send({ price: 12 }).expect(200);
      await admin().patch(`${API}/products/batch`).send({ product: [{ id: a.id, stock: 1 }, { id: b.id, stock: 2 }] }).expect(200);
      await admin().post(`${API}/products/update-multiple`).send({ product: [{ id: b.id, stock: 3 }] }).expect(200);
      const events = await stream.take(5);
      expect(events.map((e) => e.type)).to.deep.equal(['updated', 'updated', 'updated', 'updated', 'updated']);
      expect(events.map((e) => [e.data.id, e.data.model!.price, e.data.model!.stock])).to.deep.equal([
        [a.id, 11, a.stock],
        [a.id, 12, a.stock],
        [a.id, 12, 1],
        [b.id, b.price, 2],
        [b.id, b.price, 3],
      ]);
    });

    it('destroy and delete by ids: deleted, with the record as it was', async () => {
      const a = await ctx.product({ name: 'Del A' });
      const b = await ctx.product({ name: 'Del B' });
      const shown = await ctx.fetch('products', a.id);
      const stream = await feed('products');
      const res = await admin().delete(`${API}/products/${a.id}`).expect(200);
      const [deleted] = await stream.take(1);
      expect(deleted.type).to.equal('deleted');
      expect(deleted.data).to.deep.equal({ id: a.id, model: shown });
      expect(deleted.data.model).to.deep.equal(res.body.model);
      await admin().delete(`${API}/products/batch`).send({ ids: [b.id] }).expect(200);
      const [batch] = await stream.take(1);
      expect([batch.type, batch.data.id, batch.data.model!.name]).to.deep.equal(['deleted', b.id, 'Del B']);
    });

    it('soft delete, restore and force delete: deleted with deleted_at, restored, deleted', async () => {
      const product = await ctx.product();
      const user = await ctx.user();
      const review = await ctx.create('reviews', { product_id: product.id, user_id: user.id, rating: 3, comment: 'ok' });
      const stream = await feed('reviews');
      await admin().delete(`${API}/reviews/${review.id}`).expect(200);
      const [trashed] = await stream.take(1);
      expect(trashed.type).to.equal('deleted');
      expect(trashed.data.model!.deleted_at).to.match(TIMESTAMP);
      await admin().post(`${API}/reviews/${review.id}/restore`).expect(200);
      const [restored] = await stream.take(1);
      expect([restored.type, restored.data.model!.deleted_at]).to.deep.equal(['restored', null]);
      await admin().delete(`${API}/reviews/${review.id}/force`).expect(200);
      const [gone] = await stream.take(1);
      expect([gone.type, gone.data.id, gone.data.model!.rating]).to.deep.equal(['deleted', review.id, 3]);
    });

    it('relation routes that create, update or delete records of the resource', async () => {
      const product = await ctx.product();
      const user = await ctx.user();
      const stream = await feed('reviews');
      const created = await admin().post(`${API}/products/${product.id}/reviews`).send({ reviews: { user_id: user.id, rating: 4, comment: 'via relation' } });
      expect(created.status, created.text).to.equal(201);
      const [c] = await stream.take(1);
      expect([c.type, c.data.model!.product_id, c.data.model!.comment]).to.deep.equal(['created', product.id, 'via relation']);
      const id = c.data.id!;
      await admin().put(`${API}/products/${product.id}/reviews/${id}`).send({ rating: 1 }).expect(200);
      const [u] = await stream.take(1);
      expect([u.type, u.data.model!.rating]).to.deep.equal(['updated', 1]);
      await admin().delete(`${API}/products/${product.id}/reviews/${id}`).expect(200);
      const [d] = await stream.take(1);
      expect(d.type).to.equal('deleted');
      expect(d.data.model!.deleted_at).to.match(TIMESTAMP);
    });

    it('nested writes: the parent and each nested record it creates', async () => {
      const products = await feed('products');
      const reviews = await feed('reviews');
      const user = await ctx.user();
      const res = await admin().post(`${API}/products`).send({ name: 'Nested parent', sku: ctx.unique('sku'), price: 1, reviews: [{ user_id: user.id, rating: 5 }, { user_id: user.id, rating: 4 }] });
      expect(res.status, res.text).to.equal(200);
      const [parent] = await products.take(1);
      expect([parent.type, parent.data.id]).to.deep.equal(['created', res.body.model.id]);
      const children = await reviews.take(2);
      expect(children.map((e) => [e.type, e.data.model!.product_id, e.data.model!.rating])).to.deep.equal([['created', res.body.model.id, 5], ['created', res.body.model.id, 4]]);
    });

    it('a rolled-back write emits nothing', async () => {
      const a = await ctx.product({ name: 'Rollback A' });
      const absent = await ctx.absentId('products');
      const stream = await feed('products');
      // the batch updates a, then finds the absent id: a 404 that rolls the update of a back
      const res = await admin().patch(`${API}/products/batch`).send({ product: [{ id: a.id, price: 99 }, { id: absent, price: 98 }] });
      expect(res.status).to.equal(404);
      const duplicate = await admin().post(`${API}/products`).send({ product: [{ name: 'Dup', sku: 'DUP-1', price: 1 }, { name: 'Dup', sku: 'DUP-1', price: 1 }] });
      expect(duplicate.status).to.be.within(400, 499);
      await stream.none(300);
      await admin().patch(`${API}/products/${a.id}`).send({ price: 7 }).expect(200);
      const [next] = await stream.take(1);
      expect([next.type, next.data.model!.price]).to.deep.equal(['updated', 7]);
    });
  });

  describe('per subscriber', () => {
    it('oper and attr on own fields: only events whose record matches (after the write)', async () => {
      const cheap = await feed('products', { params: { oper: { and: ['price|<|50'] } } });
      const active = await feed('products', { params: { attr: { status: 'active' } } });
      const p = await ctx.product({ name: 'Cheap draft', price: 10, status: 'draft' });
      await ctx.product({ name: 'Dear active', price: 500, status: 'active' });
      await admin().patch(`${API}/products/${p.id}`).send({ status: 'active' }).expect(200);
      const seenCheap = await cheap.take(2);
      expect(seenCheap.map((e) => [e.type, e.data.model!.name])).to.deep.equal([['created', 'Cheap draft'], ['updated', 'Cheap draft']]);
      const seenActive = await active.take(2);
      expect(seenActive.map((e) => [e.type, e.data.model!.name])).to.deep.equal([['created', 'Dear active'], ['updated', 'Cheap draft']]);
      await cheap.none(100);
      await active.none(100);
    });

    it('select: the record with the selected fields and the key', async () => {
      const stream = await feed('products', { params: { select: 'name,price' } });
      const p = await ctx.product({ name: 'Selected', price: 3 });
      const [e] = await stream.take(1);
      expect(e.data).to.deep.equal({ id: p.id, model: { id: p.id, name: 'Selected', price: 3 } });
    });

    it('the read policy: cost never reaches a viewer; a hidden field is unknown in select', async () => {
      const viewer = await ctx.member(['viewer']);
      const stream = await feed('products', { token: viewer.token });
      const adminStream = await feed('products');
      await ctx.product({ name: 'Costly', cost: 42 });
      const [seen] = await stream.take(1);
      expect(seen.data.model).to.not.have.property('cost');
      expect(seen.data.model!.name).to.equal('Costly');
      const [full] = await adminStream.take(1);
      expect(full.data.model!.cost).to.equal(42);
      const refused = await feed('products', { token: viewer.token, params: { select: 'name,cost' } });
      expect(refused.status).to.equal(400);
    });

    it('ownership: a customer receives only their own user record, never another user', async () => {
      const customer: Member = await ctx.member(['customer']);
      const stream = await feed('users', { token: customer.token });
      await ctx.user({ name: 'Someone else' });
      const res = await admin().patch(`${API}/users/${customer.user.id}`).send({ name: 'Me, renamed' });
      expect(res.status, res.text).to.equal(200);
      const [own] = await stream.take(1);
      expect([own.type, own.data.id, own.data.model!.name]).to.deep.equal(['updated', customer.user.id, 'Me, renamed']);
      await stream.none(200);
    });
  });

  describe('delivery', () => {
    it('Last-Event-ID resumes after that event; an id no longer buffered gets one reset', async () => {
      const first = await feed('products');
      await ctx.product({ name: 'R1' });
      const [e1] = await first.take(1);
      first.close();
      await ctx.product({ name: 'R2' });
      await ctx.product({ name: 'R3' });
      const resumed = await feed('products', { lastEventId: e1.lastEventId });
      const missed = await resumed.take(2);
      expect(missed.map((e) => e.data.model!.name)).to.deep.equal(['R2', 'R3']);
      await ctx.product({ name: 'R4' });
      expect((await resumed.take(1))[0].data.model!.name).to.equal('R4');
      const lost = await feed('products', { lastEventId: '1-unknown-1' });
      const [reset] = await lost.take(1);
      expect(reset.type).to.equal('reset');
    });

    describe('with small bounds', () => {
      let other: Awaited<ReturnType<typeof ctx.exampleAppWith>>;
      let otherServer: { url: string; close(): Promise<void> };
      before(async () => {
        other = await ctx.exampleAppWith({ changes: { bufferSize: 2, heartbeatMs: 100, maxStreams: 3, maxStreamsPerCaller: 4, maxBufferedBytes: 64 * 1024 } });
        otherServer = await listen(other.app);
      });
      after(async () => {
        await feedOf().close();
        await otherServer.close();
        await other.close();
      });
      const post = (body: Record<string, unknown>) => supertest(other.app).post(`${API}/products`).set('Authorization', `Bearer ${ctx.app.info.adminToken}`).send(body);
      const feedOf = () => (other.api as unknown as { changes: { openStreams: number; close(): Promise<void> } }).changes;

      it('beyond the buffer an old id gets a reset; heartbeats are comment lines', async () => {
        const stream = await feed('products', {}, otherServer.url);
        await post({ name: 'B1', sku: ctx.unique('sku'), price: 1 }).expect(200);
        const [e1] = await stream.take(1);
        await stream.until(() => stream.heartbeats >= 2, 3000);
        stream.close();
        for (const name of ['B2', 'B3', 'B4']) await post({ name, sku: ctx.unique('sku'), price: 1 }).expect(200);
        const late = await feed('products', { lastEventId: e1.lastEventId }, otherServer.url);
        const [reset] = await late.take(1);
        expect(reset.type).to.equal('reset');
        await post({ name: 'B5', sku: ctx.unique('sku'), price: 1 }).expect(200);
        expect((await late.take(1))[0].data.model!.name).to.equal('B5');
      });

      it('beyond the bound of open streams a 503; closing one frees its place', async () => {
        await ctx.reset();
        const streams = [await feed('products', {}, otherServer.url), await feed('tags', {}, otherServer.url), await feed('categories', {}, otherServer.url)];
        expect(streams.map((s) => s.status)).to.deep.equal([200, 200, 200]);
        const refused = await feed('products', {}, otherServer.url);
        expect(refused.status).to.equal(503);
        streams[0].close();
        await streams[1].until(() => feedOf().openStreams === 2);
        const again = await feed('products', {}, otherServer.url);
        expect(again.status).to.equal(200);
      });

    });
  });
});

