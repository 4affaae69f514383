import { expect } from 'chai';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { sharedMongo } from '../support/databases';

const run = promisify(execFile);

function chromiumPath(): string | null {
  const candidate = process.env.CHROMIUM_PATH ?? 'chromium';
  const found = spawnSync('sh', ['-c', `command -v ${candidate}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
}

/** The API page in a real browser (headless Chromium from Debian), offline: it lists every resource. */
describe('API docs page in headless Chromium', function () {
  this.timeout(90_000);
  let shop: ExampleApp;
  let server: Server;
  let chromium: string | null;

  before(async function () {
    chromium = chromiumPath();
    if (!chromium) {
      if (process.env.CI === 'true') throw new Error('CI requires chromium (.ci/run installs it)');
      console.log('      (pending: no chromium on PATH; set CHROMIUM_PATH or install Debian\'s chromium)');
      this.skip();
    }
    shop = await createExampleApp({ driver: 'mongo', mongoUri: (await sharedMongo()).uri });
    server = shop.app.listen(0);
    await new Promise((r) => server.once('listening', r));
  });
  after(async () => {
    server?.close();
    await shop?.close();
  });

  it('renders /api/v1/docs with a section per resource', async () => {
    const profile = mkdtempSync(join(tmpdir(), 'grr-chromium-'));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/docs`;
      const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, '--virtual-time-budget=10000'];
      const { stdout } = await run(chromium!, [...flags, '--dump-dom', url], { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
      const tags = [...stdout.matchAll(/data-tag="([^"]+)"/g)].map((m) => m[1]);
      // one section per resource, and one for the caller's own records (/me)
      expect(new Set(tags)).to.deep.equal(new Set(['categories', 'products', 'reviews', 'tags', 'users', 'me']));
      expect(stdout).to.contain('Example shop API');
    } finally {
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
