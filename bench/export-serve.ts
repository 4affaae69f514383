import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { Pool } from 'pg';
import { createExampleApp } from '../example-app/app';
import { addExportBaseline, addMemoryProbe } from './baseline-export';
import { BENCH_TOKENS } from './dataset';
import { serveChild } from './child';
import type { ServeReady } from './serve';

/**
 * The export benchmark's server child: the example app and, on PostgreSQL, the hand-written
 * export handler, plus the RSS probe; nothing else loaded (serve.ts also loads the Feathers peer and
 * the other baselines, about 20 MB of RSS that would blur an export's own footprint).
 * argv: <sql|mongo> <database uri>
 */
process.env.LOG_LEVEL ??= 'warn';

function listen(app: express.Express): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(server)));
  });
}

const urlOf = (server: Server): string => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

serveChild(async () => {
  const [driver, uri] = process.argv.slice(2);
  if (driver !== 'sql' && driver !== 'mongo') throw new Error('usage: export-serve.ts <sql|mongo> <uri>');
  const target = driver === 'sql' ? { driver: 'sql' as const, postgresUri: uri } : { driver: 'mongo' as const, mongoUri: uri };
  const example = await createExampleApp({ ...target, auth: false, adminToken: BENCH_TOKENS.superuser });
  const baseline = express();
  const pool = driver === 'sql' ? new Pool({ connectionString: uri, max: 2 }) : null;
  if (pool) addExportBaseline(baseline, pool);
  addMemoryProbe(baseline);
  const servers = await Promise.all([listen(example.app), listen(baseline)]);
  const ready: ServeReady = { library: urlOf(servers[0]), baseline: urlOf(servers[1]), database: example.info.database };
  return {
    message: ready,
    cleanup: async () => {
      servers.forEach((s) => s.closeAllConnections());
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
      await Promise.all([example.close(), pool?.end()]);
    },
  };
});
