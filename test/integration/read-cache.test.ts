import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { asAdmin } from '../support/as-admin';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { startRedis, RedisUnavailableError, type RedisHandle } from '../../lib/testing/start-redis';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * The read cache on both drivers and both stores (spec "Read caching", decisions 35, 41-43):
 * hit/miss/bypass, ETag and 304, versions bumped by commits only (relations and cascades too),
 * cache_ttl, the user in the key, two app instances sharing Redis, Redis stopped under a running app.
 */
const API = '/api/v1';
let redis: RedisHandle | null = null;
let redisReason = '';

async function redisOrSkip(ctx: Mocha.Context): Promise<RedisHandle> {
  if (redis) return redis;
  try {
    redis = await startRedis();
    return redis;
  } catch (error) {
    if (!(error instanceof RedisUnavailableError)) throw error;
    if (process.env.CI === 'true') throw new Error(`CI requires Redis: ${error.reason}`);
    redisReason = error.reason;
    console.log(`      (pending: ${redisReason})`);
    ctx.skip();
  }
}

after(async () => {
  await redis?.stop();
});

const SHARED_ADMIN_TOKEN = `cache-admin-${process.pid}-${Date.now()}`;

async function cachedApp(driver: 'mongo' | 'sql', store: 'memory' | 'redis', redisUrl?: string, prefix = `t${Date.now()}`): Promise<ExampleApp> {
  const uri = driver === 'mongo' ? { mongoUri: (await sharedMongo()).uri } : { postgresUri: (await sharedPostgres()).uri };
  return createExampleApp({
    driver,
    ...uri,
    // one token for every instance: they share the database, where the superuser's token hash lives
    adminToken: SHARED_ADMIN_TOKEN,
    apiOptions: { cache: { enabled: true, store, redisUrl, prefix } },
  });
}

for (const driver of ['mongo', 'sql'] as const) {
  for (const store of ['memory', 'redis'] as const) {
    describe(`read cache (${driver}, ${store} store)`, function () {
      this.timeout(60_000);
      let shop: ExampleApp;
      const get = (path: string, headers: Record<string, string> = {}) => asAdmin(shop).get(`${API}${path}`).set(headers);
      const send = (method: 'post' | 'patch' | 'delete', path: string, body: object) => asAdmin(shop)[method](`${API}${path}`).send(body);

      before(async function () {
        const url = store === 'redis' ? (await redisOrSkip(this)).url : undefined;
        shop = await cachedApp(driver, store, url);
        await shop.reset();
      });
      after(async () => shop?.close());

      async function newCategory(name: string) {
        const res = await send('post', '/categories', { name });
        expect(res.status, res.text).to.equal(200);
        return res.body.model as { id: string | number };
      }

      it('a repeated read is a hit with the same body and ETag; equal queries share an entry', async () => {
        await newCategory('Cache A');
        const first = await get('/categories?select=id,name');
        expect(first.status).to.equal(200);
        expect(first.headers['x-cache']).to.equal('miss');
        expect(first.headers.etag).to.match(/^"[\w-]+"$/);
        const second = await get('/categories?select=["id","name"]');
        expect(second.headers['x-cache']).to.equal('hit');
        expect(second.body).to.deep.equal(first.body);
        expect(second.headers.etag).to.equal(first.headers.etag);
      });

      it('If-None-Match with the current tag answers 304 with no body', async () => {
        const first = await get('/categories');
        const revalidated = await get('/categories', { 'If-None-Match': first.headers.etag });
        expect(revalidated.status).to.equal(304);
        expect(revalidated.text ?? '').to.equal('');
        expect(revalidated.headers['x-cache']).to.equal('hit');
      });

      it('cache=false with a matching If-None-Match answers 200 with the body, never a 304', async () => {
        const first = await get('/categories');
        const bypass = await get('/categories?cache=false', { 'If-None-Match': first.headers.etag });
        expect(bypass.status).to.equal(200);
        expect(bypass.headers['x-cache']).to.equal('bypass');
        expect(bypass.body).to.deep.equal(first.body);
        expect((await get('/categories', { 'If-None-Match': first.headers.etag })).status).to.equal(304);
      });

      it('a committed write makes the next read a miss with the new data; a failed write does not', async () => {
        const cat = await newCategory('Cache B');
        await get(`/categories/${cat.id}`);
        expect((await get(`/categories/${cat.id}`)).headers['x-cache']).to.equal('hit');
        const failed = await send('patch', `/categories/${cat.id}`, { name: 12 });
        expect(failed.status).to.be.oneOf([400, 422]);
        expect((await get(`/categories/${cat.id}`)).headers['x-cache']).to.equal('hit');
        await send('patch', `/categories/${cat.id}`, { name: 'Cache B2' });
        const after = await get(`/categories/${cat.id}`);
        expect(after.headers['x-cache']).to.equal('miss');
        expect(after.body.name).to.equal('Cache B2');
      });

      it('a write to a related model invalidates reads that loaded or filtered on it', async () => {
        const cat = await newCategory('Cache C');
        const product = await send('post', '/products', { name: 'Cached lamp', sku: `cache-${driver}-${store}-${Date.now()}`, price: 3, category_id: cat.id });
        expect(product.status, product.text).to.equal(200);
        const path = `/products?relations=category&attr={"sku":"${product.body.model.sku}"}`;
        await get(path);
        expect((await get(path)).headers['x-cache']).to.equal('hit');
        await send('patch', `/categories/${cat.id}`, { name: 'Cache C2' });
        const after = await get(path);
        expect(after.headers['x-cache']).to.equal('miss');
        expect(after.body.data[0].category.name).to.equal('Cache C2');
      });

      it('cache=false bypasses without reading or writing the cache; a bad cache value is a 400', async () => {
        const cat = await newCategory('Cache D');
        const bypass = await get(`/categories/${cat.id}?cache=false`);
        expect(bypass.headers['x-cache']).to.equal('bypass');
        expect((await get(`/categories/${cat.id}`)).headers['x-cache']).to.equal('miss');
        const bad = await get(`/categories/${cat.id}?cache=maybe`);
        expect(bad.status).to.equal(400);
        expect(bad.body.message).to.contain('cache');
      });

      it('cache_ttl sets the entry lifetime; an invalid one is a 400 naming it', async () => {
        const cat = await newCategory('Cache E');
        await get(`/categories/${cat.id}?cache_ttl=1`);
        expect((await get(`/categories/${cat.id}?cache_ttl=1`)).headers['x-cache']).to.equal('hit');
        await new Promise((r) => setTimeout(r, 1100));
        expect((await get(`/categories/${cat.id}?cache_ttl=1`)).headers['x-cache']).to.equal('miss');
        const bad = await get(`/categories/${cat.id}?cache_ttl=-3`);
        expect(bad.status).to.equal(400);
        expect(bad.body.message).to.contain('cache_ttl');
      });

      it('the user is part of the key: one user never gets an entry made for another', async () => {
        const cat = await newCategory('Cache F');
        const as = async (name: string) => {
          const token = `${name}-${driver}-${store}-${Date.now()}`;
          const made = await send('post', '/users', { name, email: `${token}@x.test`, roles: ['viewer'], api_token: token });
          expect(made.status, made.text).to.equal(200);
          return { Authorization: `Bearer ${token}` };
        };
        const ann = await as('ann');
        const bob = await as('bob');
        await get(`/categories/${cat.id}`, ann);
        expect((await get(`/categories/${cat.id}`, ann)).headers['x-cache']).to.equal('hit');
        expect((await get(`/categories/${cat.id}`, bob)).headers['x-cache']).to.equal('miss');
        expect((await get(`/categories/${cat.id}`)).headers['x-cache']).to.equal('miss');
      });

      it('a cascade or set-null delete invalidates the referencing model', async () => {
        // reviews.user_id is ON DELETE SET NULL in the example app
        const user = await send('post', '/users', { name: 'Cacher', email: `c${Date.now()}@x.test` });
        expect(user.status, user.text).to.equal(200);
        const product = await send('post', '/products', { name: 'Reviewed', sku: `rv-${driver}-${store}-${Date.now()}`, price: 1 });
        const review = await send('post', '/reviews', { product_id: product.body.model.id, user_id: user.body.model.id, rating: 4 });
        expect(review.status, review.text).to.equal(200);
        await get(`/reviews/${review.body.model.id}`);
        expect((await get(`/reviews/${review.body.model.id}`)).headers['x-cache']).to.equal('hit');
        expect((await send('delete', `/users/${user.body.model.id}`, {})).status).to.equal(200);
        const after = await get(`/reviews/${review.body.model.id}`);
        expect(after.headers['x-cache']).to.equal('miss');
        expect(after.body.user_id).to.equal(null);
      });
    });
  }

  describe(`read cache shared by two app instances through Redis (${driver})`, function () {
    this.timeout(60_000);
    let a: ExampleApp;
    let b: ExampleApp;
    let own: { url: string; port: number; child: ChildProcess | null } | null = null;

    before(async function () {
      await redisOrSkip(this);
      // an own redis-server, so it can be stopped and restarted under the running apps
      const port = 20000 + Math.floor(Math.random() * 20000);
      own = { url: `redis://127.0.0.1:${port}`, port, child: startRedisOn(port) };
      await new Promise((r) => setTimeout(r, 300));
      a = await cachedApp(driver, 'redis', own.url, `shared-${driver}`);
      b = await cachedApp(driver, 'redis', own.url, `shared-${driver}`);
    });
    after(async () => {
      await a?.close();
      await b?.close();
      own?.child?.kill('SIGKILL');
    });

    it('a write through one instance makes the other instance\'s next read a miss', async () => {
      const cat = await asAdmin(a).post(`${API}/categories`).send({ name: 'Shared' });
      const path = `${API}/categories/${cat.body.model.id}`;
      await asAdmin(b).get(path);
      expect((await asAdmin(b).get(path)).headers['x-cache']).to.equal('hit');
      expect((await asAdmin(a).get(path)).headers['x-cache']).to.equal('hit');
      await asAdmin(a).patch(path).send({ name: 'Shared 2' });
      const after = await asAdmin(b).get(path);
      expect(after.headers['x-cache']).to.equal('miss');
      expect(after.body.name).to.equal('Shared 2');
    });

    it('with Redis stopped, reads come from the database and writes commit; after a restart it caches again', async () => {
      const cat = await asAdmin(a).post(`${API}/categories`).send({ name: 'Outage' });
      const path = `${API}/categories/${cat.body.model.id}`;
      own!.child!.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 200));
      const read = await asAdmin(a).get(path);
      expect(read.status).to.equal(200);
      expect(read.body.name).to.equal('Outage');
      const write = await asAdmin(a).patch(path).send({ name: 'Outage 2' });
      expect(write.status).to.equal(200);
      expect((await asAdmin(b).get(path)).body.name).to.equal('Outage 2');

      own!.child = startRedisOn(own!.port);
      const deadline = Date.now() + 10_000;
      let state = '';
      while (Date.now() < deadline && state !== 'hit') {
        await new Promise((r) => setTimeout(r, 250));
        state = String((await asAdmin(a).get(path)).headers['x-cache']);
      }
      expect(state).to.equal('hit');
    });
  });
}

function startRedisOn(port: number): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
}
