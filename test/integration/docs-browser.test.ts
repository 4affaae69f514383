import { expect } from 'chai';
import { execFile, spawnSync } from 'node:child_process';
import express from 'express';
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
      expect(new Set(tags)).to.deep.equal(new Set(['categories', 'products', 'reviews', 'tags', 'orders', 'users', 'me']));
      expect(stdout).to.contain('Example shop API');
    } finally {
      rmSync(profile, { recursive: true, force: true });
    }
  });

  it('"Try it out" under another prefix reaches the API: Swagger UI resolves the document\'s server against its URL (issue 44)', async () => {
    // the API and its docs under /shop/v2, as an application other than the example mounts them
    const app = express();
    app.use('/shop/v2', shop.api.router());
    app.use('/shop/v2', shop.api.docsRouter({ title: 'Shop' }));
    // the docs page's own bundle and document URL (init.js's form), then the request "Try it out" makes for the list
    app.get('/probe', (_req, res) => {
      res.type('html').send(`<!doctype html><html><head><meta charset="utf-8"></head><body><div id="swagger-ui"></div>
<script src="/shop/v2/docs/assets/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: '/shop/v2/openapi.json', dom_id: '#swagger-ui',
  requestInterceptor: (req) => { if (!req.url.endsWith('openapi.json')) req.headers.Authorization = 'Bearer ${shop.info.adminToken}'; return req; },
  onComplete: () => {
    document.body.setAttribute('data-started', 'yes');
    try {
    // what the Execute button dispatches; the answer lands in the UI's state
    const operation = window.ui.specSelectors.specJson().getIn(['paths', '/products', 'get']);
    window.ui.specActions.execute({ operation, path: '/products', method: 'get' });
    const poll = setInterval(() => {
      const request = window.ui.specSelectors.requestFor('/products', 'get');
      if (request) document.body.setAttribute('data-url', String(request.get('url')));
      const answer = window.ui.specSelectors.responseFor('/products', 'get');
      if (!answer) return;
      clearInterval(poll);
      document.body.setAttribute('data-url', String(window.ui.specSelectors.requestFor('/products', 'get').get('url')));
      document.body.setAttribute('data-status', String(answer.get('status')));
      document.body.setAttribute('data-json', String(/json/.test(String(answer.getIn(['headers', 'content-type'])))));
    }, 50);
    } catch (error) { document.body.setAttribute('data-error', String(error && error.stack || error)); }
  } });
window.addEventListener('error', (e) => document.body.setAttribute('data-error', String(e.message)));
window.addEventListener('unhandledrejection', (e) => document.body.setAttribute('data-error', String(e.reason && e.reason.stack || e.reason)));
</script></body></html>`);
    });
    const prefixed = app.listen(0);
    await new Promise((r) => prefixed.once('listening', r));
    const profile = mkdtempSync(join(tmpdir(), 'grr-chromium-'));
    try {
      const origin = `http://127.0.0.1:${(prefixed.address() as AddressInfo).port}`;
      const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, '--virtual-time-budget=10000'];
      const { stdout } = await run(chromium!, [...flags, '--dump-dom', `${origin}/probe`], { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
      const body = /<body([^>]*)>/.exec(stdout)?.[1] ?? '';
      expect(body, 'no error while executing').to.not.contain('data-error');
      expect(body).to.contain(`data-url="${origin}/shop/v2/products"`);
      expect(body).to.contain('data-status="200"');
      expect(body).to.contain('data-json="true"');
    } finally {
      prefixed.close();
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
