import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { startMongo, type MongoHandle } from '../../lib/testing/start-mongo';
import { freshPostgresDatabase } from '../support/databases';
import { haveRedisServer, startRedisProcess, type RedisProcess } from '../support/redis-process';
import { apiCall, type ApiAnswer } from '../support/api-call';

/**
 * Issue 35: two example apps on one database (one PostgreSQL; on MongoDB one emulator server
 * process reached over mongodb://) and one Redis, the read cache on with the Redis store. A write
 * on one is seen at once on the other, the second instance hits the entries the first filled, and
 * Redis stalled or killed (then restarted on its port) costs no 5xx, no hang and no stale read,
 * the cache coming back by itself. The change feed's fan-out over the same Redis is
 * changes-two-instances.test.ts.
 */

/** An answer while Redis is stalled: the cache's own bound (250 ms) plus a loaded machine. */
const QUICK_MS = 1500;

type Answer = ApiAnswer<Record<string, unknown>>;
const call = (base: string, method: string, path: string, token: string, body?: object): Promise<Answer> => apiCall(base, method, path, token, body);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const driver of ['sql', 'mongo'] as const) {
  describe(`two instances on one database and one Redis, read cache on (${driver}, issue 35)`, function () {
    this.timeout(90_000);
    let redis: RedisProcess | null = null;
    let mongo: MongoHandle | null = null;
    let database: { uri: string; drop(): Promise<void> } | null = null;
    const apps: ExampleApp[] = [];
    const servers: Server[] = [];
    const bases: string[] = [];
    const token = `two-instances-${driver}-${process.pid}-${Date.now()}`;
    let path = '';
    let renames = 0;

    /** A read on instance `i`: 200, fast, and the record's current name (never stale). */
    const read = async (i: number, expected: string, limit = QUICK_MS): Promise<Answer> => {
      const answer = await call(bases[i], 'GET', path, token);
      expect(answer.status, `read on ${i}: ${JSON.stringify(answer.body)}`).to.equal(200);
      expect(answer.ms, `read on ${i} took ${answer.ms} ms`).to.be.below(limit);
      expect(answer.body.name, `read on ${i} (X-Cache ${answer.cache})`).to.equal(expected);
      return answer;
    };
    const rename = async (i: number, limit = QUICK_MS): Promise<string> => {
      const name = `Renamed ${(renames += 1)} on ${i}`;
      const answer = await call(bases[i], 'PATCH', path, token, { name });
      expect(answer.status, `write on ${i}: ${JSON.stringify(answer.body)}`).to.equal(200);
      expect(answer.ms, `write on ${i} took ${answer.ms} ms`).to.be.below(limit);
      return name;
    };
    /** Reads on `i` until one is a hit (each fresh), within `ms`. */
    const untilHit = async (i: number, expected: string, ms = 10_000): Promise<void> => {
      const until = Date.now() + ms;
      for (;;) {
        if ((await read(i, expected)).cache === 'hit') return;
        if (Date.now() > until) throw new Error(`no cache hit on instance ${i} within ${ms} ms`);
        await sleep(100);
      }
    };

    before(async function () {
      if (!haveRedisServer) {
        if (process.env.CI === 'true') throw new Error('CI requires redis-server on PATH');
        this.skip();
      }
      redis = await startRedisProcess();
      let location: { mongoUri: string } | { postgresUri: string };
      if (driver === 'mongo') {
        // one server process, reached by both apps over the wire
        mongo = await startMongo({ process: 'child' });
        const uri = new URL(mongo.uri);
        uri.pathname = '/two_instances';
        location = { mongoUri: uri.toString() };
      } else {
        database = await freshPostgresDatabase('two_instances');
        location = { postgresUri: database.uri };
      }
      const prefix = `two-${driver}-${Date.now()}`;
      for (let i = 0; i < 2; i += 1) {
        const app = await createExampleApp({
          driver,
          ...location,
          adminToken: token,
          apiOptions: { cache: { enabled: true, store: 'redis', redisUrl: redis.url, prefix }, changes: { redisUrl: redis.url, prefix } },
        });
        apps.push(app);
        const server = app.app.listen(0, '127.0.0.1');
        await new Promise((r) => server.once('listening', r));
        servers.push(server);
        bases.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      }
      const created = await call(bases[0], 'POST', '/categories', token, { name: 'Shared' });
      expect(created.status, JSON.stringify(created.body)).to.equal(200);
      path = `/categories/${(created.body.model as { id: number | string }).id}`;
    });

    after(async () => {
      redis?.resume();
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
      for (const app of apps) await app.close().catch(() => undefined);
      await redis?.stop();
      await mongo?.stop().catch(() => undefined);
      await database?.drop().catch(() => undefined);
    });

    it('the second instance hits the entry the first filled; a write on either is seen at once on the other', async () => {
      expect((await read(0, 'Shared')).cache).to.equal('miss');
      expect((await read(1, 'Shared')).cache, 'filled by instance 0, shared through Redis').to.equal('hit');
      expect((await read(1, 'Shared')).cache).to.equal('hit');
      const list = await call(bases[0], 'GET', '/categories', token);
      expect(list.cache).to.equal('miss');
      expect((await call(bases[1], 'GET', '/categories', token)).cache).to.equal('hit');

      for (const [writer, reader] of [[0, 1], [1, 0]]) {
        const name = await rename(writer);
        // the first read after the write asks the database (the versions moved in Redis)
        expect((await read(reader, name)).cache).to.equal('miss');
        expect((await read(writer, name)).cache).to.equal('hit');
        const again = await call(bases[reader], 'GET', '/categories', token);
        expect(again.cache).to.equal('miss');
        expect((again.body.data as Array<{ name: string }>).map((m) => m.name)).to.include(name);
      }
    });

    it('Redis stalled (SIGSTOP): no 5xx, no hang, no stale read on either instance; the cache comes back by itself', async () => {
      let name = await rename(0);
      await read(1, name);
      await untilHit(1, name);
      redis!.stall();
      try {
        // entries of both instances are out of reach; reads come from the database
        name = await rename(0);
        await read(1, name);
        await read(0, name);
        name = await rename(1);
        for (let i = 0; i < 3; i += 1) {
          await read(0, name);
          await read(1, name);
        }
      } finally {
        redis!.resume();
      }
      await untilHit(0, name);
      await untilHit(1, name);
    });

    it('a write on an instance whose circuit is still open when Redis returns is not served stale by the other', async () => {
      let name = await rename(0);
      await untilHit(1, name);
      redis!.stall();
      try {
        // only instance 0 meets the stall: its circuit opens, instance 1's stays closed
        await read(0, name);
      } finally {
        redis!.resume();
      }
      // instance 1 caches the current answer at once; instance 0 writes before its next retry
      await untilHit(1, name, 2000);
      name = await rename(0);
      await read(1, name);
      await read(1, name);
      await untilHit(0, name);
      await untilHit(1, name);
    });

    it('Redis killed, then restarted on its port: no 5xx, no stale read; the cache comes back by itself', async () => {
      let name = await rename(1);
      await untilHit(0, name);
      await redis!.kill();
      name = await rename(0);
      await read(1, name);
      name = await rename(1);
      await read(0, name);
      await read(1, name);
      await redis!.restart();
      await untilHit(0, name);
      await untilHit(1, name);
      name = await rename(0);
      expect((await read(1, name)).cache).to.equal('miss');
      await untilHit(1, name);
    });
  });
}
