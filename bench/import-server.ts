import type { AddressInfo } from 'node:net';
import { createExampleApp } from '../example-app/app';

/**
 * The server of `npm run bench:import` in a process of its own (its RSS is what the benchmark
 * samples): the example app on the given PostgreSQL, unseeded, the access log quiet.
 * argv: <postgres uri>. Sends `{port, token}` when it listens; exits on 'stop'.
 */
process.env.LOG_LEVEL ??= 'warn';

async function main(): Promise<void> {
  const [uri] = process.argv.slice(2);
  const app = await createExampleApp({ driver: 'sql', postgresUri: uri, seed: false });
  const server = app.app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  process.on('message', (m) => {
    if (m === 'idle?') process.send?.('idle');
    if (m === 'stop') {
      server.close();
      void app.close().finally(() => process.exit(0));
    }
  });
  process.send?.({ port: (server.address() as AddressInfo).port, token: app.info.adminToken });
}

void main().catch((error: unknown) => process.send?.({ error: (error as Error).stack ?? String(error) }));
