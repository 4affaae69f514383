import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { sharedPostgres } from '../support/databases';

/**
 * Issue 35, graceful shutdown (`api.shutdown(server, {timeoutMs})`, what the example app runs on
 * SIGTERM): no new connections, in-flight requests finish within the bound, then the pools close.
 */
describe('graceful shutdown (issue 35)', function () {
  this.timeout(60_000);

  async function started(): Promise<{ shop: ExampleApp; server: Server; base: string }> {
    const shop = await createExampleApp({ driver: 'sql', postgresUri: (await sharedPostgres()).uri, adminToken: `shutdown-${process.pid}-${Date.now()}` });
    const server = shop.app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    return { shop, server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  const slowTags = (shop: ExampleApp, ms: number) => {
    shop.api.registry.entry('tag').declaration.hooks = { beforeList: () => new Promise((resolve) => setTimeout(resolve, ms)) };
  };

  it('stops accepting at once, lets an in-flight request finish, then closes', async () => {
    const { shop, server, base } = await started();
    try {
      slowTags(shop, 400);
      const auth = { authorization: `Bearer ${shop.info.adminToken}` };
      const inflight = fetch(`${base}/api/v1/tags`, { headers: auth, signal: AbortSignal.timeout(10_000) });
      await new Promise((r) => setTimeout(r, 100));
      const t = Date.now();
      const stopping = shop.api.shutdown(server, { timeoutMs: 5_000 });
      await new Promise((r) => setTimeout(r, 20));
      // a new connection is refused
      const refused = await fetch(`${base}/api/v1/tags`, { headers: auth, signal: AbortSignal.timeout(5_000) }).then(
        () => null,
        (error: Error) => error,
      );
      expect(refused).to.be.instanceOf(Error);
      const res = await inflight;
      expect(res.status).to.equal(200);
      await stopping;
      expect(Date.now() - t).to.be.below(3_000);
      expect(server.listening).to.equal(false);
    } finally {
      await shop.close();
    }
  });

  it('cuts requests still running at the bound', async () => {
    const { shop, server, base } = await started();
    try {
      slowTags(shop, 3_000);
      const inflight = fetch(`${base}/api/v1/tags`, { headers: { authorization: `Bearer ${shop.info.adminToken}` }, signal: AbortSignal.timeout(10_000) }).then(
        (r) => r.status,
        (error: Error) => error,
      );
      await new Promise((r) => setTimeout(r, 100));
      const t = Date.now();
      await shop.api.shutdown(server, { timeoutMs: 300 });
      expect(Date.now() - t).to.be.below(1_500);
      expect(await inflight).to.be.instanceOf(Error);
    } finally {
      await shop.close();
    }
  });
});
