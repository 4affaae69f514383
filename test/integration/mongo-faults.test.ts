import { expect } from 'chai';
import express from 'express';
import mongoose from 'mongoose';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { defineMongoModels } from '../../example-app/mongo/models';
import { exampleResources } from '../../example-app/resources';
import { createRestApi } from '../../lib';
import { freePort } from '../../lib/testing/free-port';
import { startEmulatorProcess, type ChildEmulatorHandle } from '../../lib/testing/emulator/child';
import { recovery, startProbe, violations } from '../support/fault-probe';

/**
 * Issue 35 on MongoDB, the emulator's server in a child process: refused at the application's
 * start, stalled (SIGSTOP) and killed then started again on the same port. Every answer is a 200
 * or a 503 with Retry-After in the error shape, within the request deadline, never a 500; the app
 * serves again by itself soon after the server is back. (Fail points and a short stall with a
 * first answer at the deadline are in faults.test.ts.)
 */
const DEADLINE_MS = 1000;
/** An answer's bound: the deadline plus a loaded 2-core machine. */
const MAX_MS = DEADLINE_MS + 1500;
// /health waits 2 s for the database itself (example-app/app.ts)
const HEALTH_MAX_MS = 2000 + 1500;
/** The first 200 after the server is back (the driver's heartbeat and reconnect included). */
const RECOVERY_MS = 5000;

async function listen(app: express.Express): Promise<{ server: Server; base: string }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function close(server: Server | null): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('MongoDB server refused, stalled and killed under a running app (emulator child process, issue 35)', function () {
  this.timeout(90_000);

  it('refused at the start: requests answer 503 (never 500) until the server comes up, then 200 without a restart', async () => {
    const port = await freePort();
    // the application connects as usual, without waiting: no server listens there yet
    const connection = mongoose.createConnection(`mongodb://127.0.0.1:${port}/refused_at_start?replicaSet=rs0&directConnection=true`, { serverSelectionTimeoutMS: 500, autoIndex: false });
    connection.asPromise().catch(() => undefined);
    const api = createRestApi({ config: { requestTimeoutMs: DEADLINE_MS } });
    for (const declaration of exampleResources(defineMongoModels(connection), 'mongo')) api.register(declaration);
    const app = express();
    app.use('/api/v1', api.router());
    let emulator: ChildEmulatorHandle | null = null;
    const { server, base } = await listen(app);
    try {
      for (let i = 0; i < 3; i += 1) {
        const probe = startProbe(base, 'none', 200);
        await sleep(300);
        const answers = (await probe.stop()).filter((a) => a.what !== 'health');
        expect(violations(answers, MAX_MS, HEALTH_MAX_MS), JSON.stringify(answers)).to.deep.equal([]);
        expect(answers.map((a) => a.status)).to.include(503);
      }
      emulator = await startEmulatorProcess({ port });
      const back = Date.now();
      const probe = startProbe(base, 'none', 250);
      await sleep(RECOVERY_MS + 1000);
      const answers = (await probe.stop()).filter((a) => a.what !== 'health');
      expect(violations(answers, MAX_MS, HEALTH_MAX_MS), JSON.stringify(answers)).to.deep.equal([]);
      const { list, write } = recovery(answers, back);
      expect(list, 'first list 200 after the server came up (ms)').to.be.below(RECOVERY_MS);
      expect(write, 'first write 200 after the server came up (ms)').to.be.below(RECOVERY_MS);
    } finally {
      await close(server);
      await api.close().catch(() => undefined);
      await connection.close(true).catch(() => undefined);
      await emulator?.stop();
    }
  });

  describe('a running app on the server', () => {
    let emulator: ChildEmulatorHandle | null = null;
    let shop: ExampleApp | null = null;
    let server: Server | null = null;
    let base = '';
    let token = '';

    before(async () => {
      emulator = await startEmulatorProcess({});
      // authorization off: a server killed and started again is empty, its users gone with it
      shop = await createExampleApp({ driver: 'mongo', mongoUri: emulator.uri.replace('/?', '/mongo_faults?'), auth: false, apiOptions: { config: { requestTimeoutMs: DEADLINE_MS } } });
      ({ server, base } = await listen(shop.app));
      token = shop.info.adminToken;
      const probe = startProbe(base, token, 1000);
      const answers = await probe.stop();
      expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200]);
    });

    after(async () => {
      emulator?.process.resume();
      await close(server);
      await shop?.close().catch(() => undefined);
      await emulator?.stop();
    });

    it('stalled (SIGSTOP, 8 s): every list, write and health answered 200 or 503 within the deadline; 200 again soon after SIGCONT', async () => {
      const probe = startProbe(base, token, 500);
      await sleep(500);
      emulator!.process.pause();
      await sleep(8000);
      emulator!.process.resume();
      const back = Date.now();
      await sleep(RECOVERY_MS + 1000);
      const answers = await probe.stop();
      expect(violations(answers, MAX_MS, HEALTH_MAX_MS), JSON.stringify(answers.filter((a) => a.status !== 200))).to.deep.equal([]);
      expect(answers.filter((a) => a.what !== 'health' && a.sentAt > back - 7000 && a.sentAt < back - 1500).map((a) => a.status), 'during the stall').to.not.include(200);
      const { list, write } = recovery(answers, back);
      expect(list, 'first list 200 after SIGCONT (ms)').to.be.below(RECOVERY_MS);
      expect(write, 'first write 200 after SIGCONT (ms)').to.be.below(RECOVERY_MS);
    });

    it('killed (SIGKILL), then started again on the same port: 503 while down, 200 soon after it is back', async () => {
      const port = emulator!.port;
      const probe = startProbe(base, token, 500);
      await sleep(500);
      emulator!.process.kill('SIGKILL');
      await emulator!.process.exited;
      await sleep(4000);
      emulator = await startEmulatorProcess({ port });
      const back = Date.now();
      await sleep(RECOVERY_MS + 1000);
      const answers = await probe.stop();
      expect(violations(answers, MAX_MS, HEALTH_MAX_MS), JSON.stringify(answers.filter((a) => a.status !== 200))).to.deep.equal([]);
      expect(answers.filter((a) => a.status === 503 && a.what !== 'health').length, 'answers while down').to.be.greaterThan(0);
      const { list, write } = recovery(answers, back);
      expect(list, 'first list 200 after the restart (ms)').to.be.below(RECOVERY_MS);
      expect(write, 'first write 200 after the restart (ms)').to.be.below(RECOVERY_MS);
    });
  });
});
