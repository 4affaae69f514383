import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateTypes } from '../../../lib/client/generate-types';
import { runCli, USAGE } from '../../../lib/cli/main';

/** A small API description as api.openapi() writes it (what the command reads). */
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'Notes', version: '1.0.0' },
  paths: {},
  'x-resources': { notes: 'Note' },
  components: {
    schemas: {
      Note: { type: 'object', properties: { id: { type: 'string' }, title: { type: 'string' }, stars: { type: ['integer', 'null'] } }, required: ['id'] },
      NoteCreate: { type: 'object', properties: { title: { type: 'string' }, stars: { type: 'integer' } }, required: ['title'] },
      NoteUpdate: { type: 'object', properties: { title: { type: 'string' }, stars: { type: 'integer' } } },
    },
  },
};

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

/** `generic-resource-rest` (lib/cli): the typed client's types from an OpenAPI document (decision 66). */
describe('the generic-resource-rest command', () => {
  let dir: string;
  let server: Server;
  let base: string;
  let seenHeaders: Record<string, string | string[] | undefined> = {};

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'grr-cli-'));
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(DOCUMENT));
    server = createServer((req, res) => {
      seenHeaders = req.headers;
      if (req.url === '/api/openapi.json') return void res.setHeader('content-type', 'application/json').end(JSON.stringify(DOCUMENT));
      if (req.url === '/private/openapi.json') {
        if (req.headers.authorization !== 'Bearer t0k') return void res.writeHead(401).end('{}');
        return void res.setHeader('content-type', 'application/json').end(JSON.stringify(DOCUMENT));
      }
      if (req.url === '/html') return void res.setHeader('content-type', 'text/html').end('<html></html>');
      if (req.url === '/other.json') return void res.setHeader('content-type', 'application/json').end(JSON.stringify({ openapi: '3.1.0', info: { title: 'x' }, paths: {} }));
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('client --url <file> --out <file.ts> writes what generateTypes writes, creating the folder', async () => {
    const out = join(dir, 'src', 'deep', 'api-types.ts');
    const r = await cli('client', '--url', join(dir, 'openapi.json'), '--out', out);
    expect(r.code, r.err).to.equal(0);
    expect(readFileSync(out, 'utf8')).to.equal(generateTypes(DOCUMENT));
    expect(r.out).to.match(/^wrote .*api-types\.ts: types of 1 resource \(notes\)\n$/);
    expect(r.err).to.equal('');
  });

  it('reads a file: URL and an http URL the same, sending --header values', async () => {
    const fromFileUrl = join(dir, 'a.ts');
    expect((await cli('client', '--url', pathToFileURL(join(dir, 'openapi.json')).href, '--out', fromFileUrl)).code).to.equal(0);
    const fromHttp = join(dir, 'b.ts');
    const r = await cli('client', '--url', `${base}/private/openapi.json`, '--out', fromHttp, '--header', 'Authorization: Bearer t0k', '--header', 'x-extra:1');
    expect(r.code, r.err).to.equal(0);
    expect(seenHeaders['x-extra']).to.equal('1');
    expect(readFileSync(fromHttp, 'utf8')).to.equal(readFileSync(fromFileUrl, 'utf8'));
  });

  it('--help (and -h, help, client --help) prints the usage and exits 0', async () => {
    for (const argv of [['--help'], ['-h'], ['help'], ['client', '--help']]) {
      const r = await cli(...argv);
      expect(r.code, argv.join(' ')).to.equal(0);
      expect(r.out).to.equal(USAGE);
      expect(USAGE).to.contain('client --url <openapi.json URL or file> --out <file.ts>');
    }
  });

  it('a bad command line exits 2 with a message naming the problem, then the usage', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /a command is missing/],
      [['serve'], /unknown command "serve"/],
      [['client'], /--url <openapi\.json URL or file> is missing/],
      [['client', '--url', 'x.json'], /--out <file\.ts> is missing/],
      [['client', '--out', 'x.ts'], /--url .* is missing/],
      [['client', '--url', 'x.json', '--out', 'x.ts', '--bogus'], /Unknown option '--bogus'/],
      [['client', '--url'], /--url/],
      [['client', 'x.json', 'x.ts'], /unexpected argument "x\.json"/],
      [['client', '--url', 'x.json', '--out', 'types.json'], /--out types\.json should be a TypeScript file/],
      [['client', '--url', 'x.json', '--out', 'x.ts', '--header', 'nocolon'], /--header "nocolon": expected "name: value"/],
      [['client', '--url', 'x.json', '--out', 'x.ts', '--timeout', 'soon'], /--timeout soon is not a positive number/],
      [['client', '--url', 'ftp://host/openapi.json', '--out', join(dir, 'never.ts')], /only http\(s\) URLs, file: URLs and file paths/],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(...argv);
      expect(r.code, argv.join(' ')).to.equal(2);
      expect(r.err, argv.join(' ')).to.match(message);
      expect(r.err).to.match(/^generic-resource-rest: /);
      expect(r.err).to.contain(USAGE);
      expect(r.out).to.equal('');
    }
    expect(existsSync(join(dir, 'never.ts'))).to.equal(false);
  });

  it('a document that cannot be had exits 1 with a clear message and writes nothing', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const out = join(dir, 'failed.ts');
    const cases: Array<[string, RegExp]> = [
      [`http://127.0.0.1:${port}/api/openapi.json`, /Could not fetch the OpenAPI document from http:\/\/127\.0\.0\.1:\d+\/api\/openapi\.json: ECONNREFUSED.*Is the API running and the URL right\?/],
      [`${base}/missing.json`, /the server answered 404 Not Found\./],
      [`${base}/private/openapi.json`, /the server answered 401 Unauthorized \(the docs router asks for credentials: pass them with --header "authorization: Bearer <token>"\)/],
      [`${base}/html`, /is not JSON/],
      [`${base}/other.json`, /has no "x-resources"/],
      [join(dir, 'nope.json'), /Could not read the OpenAPI document .*nope\.json: no such file/],
    ];
    for (const [url, message] of cases) {
      const r = await cli('client', '--url', url, '--out', out);
      expect(r.code, url).to.equal(1);
      expect(r.err, url).to.match(message);
      expect(r.err).to.not.contain('Usage:');
    }
    expect(existsSync(out)).to.equal(false);
  });

  it('--timeout gives up on a server that never answers', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const r = await cli('client', '--url', `http://127.0.0.1:${(silent.address() as AddressInfo).port}/openapi.json`, '--out', join(dir, 't.ts'), '--timeout', '0.3');
      expect(r.code).to.equal(1);
      expect(r.err).to.match(/no answer in time/);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('npm run generate-client (scripts/generate-client.ts) runs the same command: positional arguments, process exit codes', function () {
    this.timeout(30_000);
    const root = resolve(__dirname, '..', '..', '..');
    const tsx = join(root, 'node_modules', '.bin', 'tsx');
    const out = join(dir, 'script.ts');
    const ok = spawnSync(tsx, ['scripts/generate-client.ts', join(dir, 'openapi.json'), out], { cwd: root, encoding: 'utf8' });
    expect(ok.status, ok.stderr).to.equal(0);
    expect(readFileSync(out, 'utf8')).to.equal(generateTypes(DOCUMENT));
    const bad = spawnSync(tsx, ['lib/cli/main.ts', 'client', '--url', join(dir, 'openapi.json')], { cwd: root, encoding: 'utf8' });
    expect(bad.status).to.equal(2);
    expect(bad.stderr).to.contain('--out <file.ts> is missing');
  });
});
