import type { AddressInfo } from 'node:net';
import { getHeapSpaceStatistics } from 'node:v8';
import { createExampleApp } from '../example-app/app';
import { serveChild } from './child';

/**
 * The server of `npm run bench:import` and `bench:import-memory` in a process of its own (its RSS
 * is what the benchmarks sample): the example app on the given PostgreSQL, unseeded, the access
 * log quiet. argv: <postgres uri>. Sends `{port, token}` when it listens; answers 'memory?' with
 * `{memory: process.memoryUsage(), spaces: {<V8 heap space>: bytes committed}}` (after a full collection when it runs with --expose-gc and
 * the message is 'gc-memory?'); takes the profile commands of child.ts; exits on 'stop'.
 */
process.env.LOG_LEVEL ??= 'warn';

process.on('message', (m) => {
  if (m !== 'memory?' && m !== 'gc-memory?') return;
  if (m === 'gc-memory?') (globalThis as { gc?: () => void }).gc?.();
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
  process.send?.({ memory: process.memoryUsage(), spaces });
});

serveChild(async () => {
  const [uri] = process.argv.slice(2);
  const app = await createExampleApp({ driver: 'sql', postgresUri: uri, seed: false });
  const server = app.app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    message: { port: (server.address() as AddressInfo).port, token: app.info.adminToken },
    cleanup: async () => {
      server.close();
      await app.close();
    },
  };
});
