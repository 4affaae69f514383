import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type express from 'express';
import { MongoClient } from 'mongodb';
import { Pool } from 'pg';
import { createContext } from '../lib';
import { BENCH_TOKENS } from './dataset';
import { createExampleApp } from '../example-app/app';
import { mongoBaselineApp } from './baseline-mongo';
import { addExportBaseline, addMemoryProbe } from './baseline-export';
import { sqlBaselineApp } from './baseline-sql';
import { addRelationBaseline } from './baseline-relations';
import { addTreeBaseline } from './baseline-tree';
import { addAggregateBaseline } from './baseline-aggregate';
import { addBucketsBaseline } from './baseline-buckets';
import { serveChild } from './child';
import { feathersPeer } from './peer-feathers';

export interface ServeReady {
  /** Base URL of the example app (…/api/v1 is below it). */
  library: string;
  /** Base URL of the hand-written baseline app. */
  baseline: string;
  /** Database name the example app uses (the seeders write there). */
  database: string;
  /** Base URL of the Node peer (Feathers 5 + knex), PostgreSQL only. */
  peer?: string;
}

/**
 * Counts requests whose handler has not answered yet. autocannon drops its sockets at the end of a
 * run while slow handlers (the emulator) still work; the next run must not start before they end.
 * `res.end` is the handler's last act even when the client is gone ('close'/'finish' are not).
 */
class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  track(server: Server): void {
    server.on('request', (_req, res) => {
      this.count++;
      const end = res.end.bind(res);
      let counted = true;
      res.end = ((...args: Parameters<typeof res.end>) => {
        if (counted) {
          counted = false;
          this.count--;
          if (this.count === 0) this.waiters.splice(0).forEach((w) => w());
        }
        return end(...args);
      }) as typeof res.end;
    });
  }

  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}

function listen(app: express.Express): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(server)));
  });
}

function urlOf(server: Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  return closed;
}

/**
 * Child process serving, on loopback ports, the example app (library), the hand-written baseline
 * and (PostgreSQL) the Feathers + knex peer over the same database. Only one is loaded at a time,
 * so they never compete; the load generator and the database run in other processes.
 * argv: <sql|mongo> <database uri>
 */
// the access log (one line per request) would measure the console, which the baseline does not write to
process.env.LOG_LEVEL ??= 'warn';

serveChild(async () => {
  const [driver, uri] = process.argv.slice(2);
  if (driver !== 'sql' && driver !== 'mongo') throw new Error('usage: serve.ts <sql|mongo> <uri>');
  // authorization off unless BENCH_AUTH=1 (the baseline has none); bench:features measures its cost
  const auth = process.env.BENCH_AUTH === '1';
  const target = driver === 'sql' ? { driver: 'sql' as const, postgresUri: uri } : { driver: 'mongo' as const, mongoUri: uri };
  // BENCH_HISTORY_OFF=orders (bench:history): those resources without their history (decision 83)
  const historyOff = process.env.BENCH_HISTORY_OFF ? Object.fromEntries(process.env.BENCH_HISTORY_OFF.split(',').map((name) => [name.trim(), false as const])) : undefined;
  const example = await createExampleApp({ ...target, auth, adminToken: BENCH_TOKENS.superuser, history: historyOff });
  // BENCH_PER_STEP_LINKS=1 (bench:set-writes): the relation routes' per-step path of a driver without
  // PivotCapability.link and guardedLink (read, detach, update, attach), beside the set-based one in the same run
  const pivots = example.api.registry.entry('product').driver.pivots as { link?: unknown; guardedLink?: unknown } | undefined;
  if (process.env.BENCH_PER_STEP_LINKS === '1' && pivots) {
    delete pivots.link;
    delete pivots.guardedLink;
  }
  if (auth) {
    // a restricted caller: the viewer role (cost hidden by its read policy)
    const root = createContext({ user: { id: 0, roles: [], is_superuser: true } });
    await example.api.service('user').store({ name: 'Bench viewer', email: `viewer-${Date.now()}@bench.test`, roles: ['viewer'], api_token: BENCH_TOKENS.viewer }, root);
  }
  let baselineApp: express.Express;
  let closeBaseline: () => Promise<void>;
  let peer: { server: Server; close: () => Promise<void> } | null = null;
  if (driver === 'sql') {
    const feathers = feathersPeer(uri);
    peer = { server: await feathers.app(0, '127.0.0.1'), close: feathers.close };
    const pool = new Pool({ connectionString: uri, max: 5 }) // Sequelize's default pool size;
    baselineApp = sqlBaselineApp(pool);
    addExportBaseline(baselineApp, pool);
    addRelationBaseline(baselineApp, pool);
    addTreeBaseline(baselineApp, pool);
    addAggregateBaseline(baselineApp, pool);
    addBucketsBaseline(baselineApp, pool);
    closeBaseline = () => pool.end();
  } else {
    const client = await MongoClient.connect(uri);
    baselineApp = mongoBaselineApp(client.db(example.info.database));
    closeBaseline = () => client.close();
  }
  addMemoryProbe(baselineApp);
  const [libraryServer, baselineServer] = await Promise.all([listen(example.app), listen(baselineApp)]);
  const inFlight = new InFlight();
  inFlight.track(libraryServer);
  inFlight.track(baselineServer);
  if (peer) inFlight.track(peer.server);
  const ready: ServeReady = { library: urlOf(libraryServer), baseline: urlOf(baselineServer), database: example.info.database, ...(peer ? { peer: urlOf(peer.server) } : {}) };
  return {
    message: ready,
    idle: () => inFlight.idle(),
    cleanup: async () => {
      await inFlight.idle();
      await Promise.all([close(libraryServer), close(baselineServer), ...(peer ? [close(peer.server)] : [])]);
      await Promise.all([example.close(), closeBaseline(), peer?.close()]);
    },
  };
});
