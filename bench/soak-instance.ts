import type { AddressInfo } from 'node:net';
import { createExampleApp } from '../example-app/app';
import { serveChild } from './child';

/**
 * One example-app instance of the two-instance soak (bench/soak-two-instances.ts), in a process of
 * its own so that its RSS is its own: sql on the given PostgreSQL, read cache and change feed on
 * the given Redis (shared prefix), authorization on. The parent reads its RSS from /proc.
 * argv: <postgres uri> <redis url> <admin token> <prefix>
 */
export interface SoakInstanceReady {
  url: string;
  pid: number;
}

serveChild(async () => {
  const [postgresUri, redisUrl, adminToken, prefix] = process.argv.slice(2);
  const example = await createExampleApp({
    driver: 'sql',
    postgresUri,
    adminToken,
    apiOptions: { cache: { enabled: true, store: 'redis', redisUrl, prefix }, changes: { redisUrl, prefix, maxStreamsPerCaller: 1000 } },
  });
  // the parent asks for the heap beside the RSS it reads from /proc: growth of the heap is a leak, of the RSS alone not
  process.on('message', (m) => {
    if (m === 'memory?') process.send?.({ memory: { heap_mb: Math.round(process.memoryUsage().heapUsed / 1048576) } });
  });
  const server = example.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const ready: SoakInstanceReady = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, pid: process.pid };
  return {
    message: ready,
    cleanup: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await example.close();
    },
  };
});
