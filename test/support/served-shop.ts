import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '../../lib/client';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { resources, type Api } from '../../example-app/client-types';
import { sharedMongo, sharedPostgres } from './databases';

/** The example app served on a free port with a typed client as its admin (filled in by `before`). */
export interface ServedShop {
  shop: ExampleApp;
  api: ReturnType<typeof createClient<Api>>;
}

/**
 * Registers the calling suite's `before` and `after`: the example app on `driver` (reset), served
 * over real HTTP, and a typed client; `withResources`: the client knows the resources' relation
 * shapes (the generated `resources` table).
 */
export function servedShop(driver: 'mongo' | 'sql', withResources = false): ServedShop {
  const served = {} as ServedShop;
  let server: Server | undefined;
  before(async () => {
    const uri = driver === 'mongo' ? { mongoUri: (await sharedMongo()).uri } : { postgresUri: (await sharedPostgres()).uri };
    served.shop = await createExampleApp({ driver, ...uri });
    await served.shop.reset();
    const listening = served.shop.app.listen(0);
    server = listening;
    await new Promise((r) => listening.once('listening', r));
    const baseUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/api/v1`;
    served.api = createClient<Api>({ baseUrl, headers: { Authorization: `Bearer ${served.shop.info.adminToken}` }, ...(withResources ? { resources } : {}) });
  });
  after(async () => {
    server?.close();
    await served.shop?.close();
  });
  return served;
}
