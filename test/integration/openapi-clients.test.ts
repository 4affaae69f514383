import { expect } from 'chai';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { generateTypes } from '../../lib/client';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * Clients generated from the document compile against it under `--strict`: openapi-typescript's
 * types with openapi-fetch, and the library's own typed client. On PostgreSQL ids are numbers
 * (`{params: {path: {id: 1}}}` without String(id)), on MongoDB 24-hex strings; eager-loaded
 * relations are part of the record types.
 */
const repo = resolve(__dirname, '..', '..');

/** Type-checks `files` (name -> source) in a fresh directory that sees the repository's node_modules. */
function compile(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'grr-openapi-client-'));
  try {
    symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
    for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source);
    const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, skipLibCheck: true, types: [], lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'] };
    const program = ts.createProgram(Object.keys(files).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f)), options);
    return ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** openapi-typescript (an ES module) on a document. */
async function openapiTypes(doc: Record<string, unknown>): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  return astToString(await openapiTS(doc as never));
}

function fetchProgram(driver: 'mongo' | 'sql'): string {
  const id = driver === 'sql' ? '1' : "'65a1b2c3d4e5f60718293a4b'";
  const other = driver === 'sql' ? "'1'" : '1';
  const idType = driver === 'sql' ? 'number' : 'string';
  return `import createClient from 'openapi-fetch';
import type { paths } from './schema';

const client = createClient<paths>({ baseUrl: 'http://localhost:3000/api/v1' });

export async function run(): Promise<void> {
  const shown = await client.GET('/products/{id}', { params: { path: { id: ${id} }, query: { relations: JSON.stringify(['category', 'tags']) } } });
  if (shown.data) {
    const id: ${idType} = shown.data.id;
    const category: string | undefined = shown.data.category?.name;
    const position: number | undefined = shown.data.tags?.[0]?.pivot?.position;
    const reviews: Array<{ rating?: number }> | undefined = shown.data.reviews;
    void [id, category, position, reviews];
  }
  await client.GET('/products/{parent_id}/tags/{related_id}', { params: { path: { parent_id: ${id}, related_id: ${id} } } });
  await client.PATCH('/products/{id}', { params: { path: { id: ${id} } }, body: { price: 10 } });
  await client.DELETE('/products/batch', { body: { ids: [${id}] } });
  // JSON-content parameters travel as their JSON text (openapi-typescript types them as strings)
  const list = await client.GET('/products', { params: { query: { oper: JSON.stringify({ and: ['price|>=|10'] }), attr: JSON.stringify({ status: 'active' }), orderby: JSON.stringify([{ price: 'desc' }]), select: 'name,price', pagination: JSON.stringify({ page: 1, pageSize: 2 }), cache: false } } });
  void list;
  // @ts-expect-error an id of the other type is refused
  await client.GET('/products/{id}', { params: { path: { id: ${other} } } });
}
`;
}

function ownClientProgram(driver: 'mongo' | 'sql'): string {
  const id = driver === 'sql' ? '1' : "'65a1b2c3d4e5f60718293a4b'";
  const other = driver === 'sql' ? "'1'" : '1';
  return `import { createClient } from ${JSON.stringify(join(repo, 'lib', 'client'))};
import type { Api } from './api-types';

const api = createClient<Api>({ baseUrl: 'http://localhost:3000/api/v1' });

export async function run(): Promise<void> {
  const product = await api.products.show(${id}, { relations: ['category', 'tags'] });
  const name: string | undefined = product.category?.name;
  const position: number | undefined = product.tags?.[0]?.pivot?.position;
  const price: number = product.price;
  void [name, position, price];
  await api.products.update(product.id, { price: 3 });
  await api.products.relation(product.id, 'tags').attach(${id}, { position: 1 });
  // @ts-expect-error an id of the other type is refused
  await api.products.destroy(${other});
}
`;
}

for (const driver of ['mongo', 'sql'] as const) {
  describe(`generated clients compile against the document (${driver})`, function () {
    this.timeout(120_000);
    let shop: ExampleApp;
    let doc: Record<string, unknown>;

    before(async () => {
      const uri = driver === 'mongo' ? { mongoUri: (await sharedMongo()).uri } : { postgresUri: (await sharedPostgres()).uri };
      shop = await createExampleApp({ driver, ...uri, seed: true });
      doc = shop.api.openapi({ title: 'Example shop API', serverUrl: '/api/v1' });
    });
    after(async () => shop?.close());

    it(`openapi-typescript + openapi-fetch: ${driver === 'sql' ? 'numeric' : 'string'} path ids and eager relations type-check under --strict`, async () => {
      const schema = await openapiTypes(doc);
      expect(schema).to.match(driver === 'sql' ? /"\/products\/\{id\}"[\s\S]*?path: \{[\s\S]*?id: number;/ : /id: string;/);
      const errors = compile({ 'schema.ts': schema, 'program.ts': fetchProgram(driver) });
      expect(errors, errors.join('\n')).to.deep.equal([]);
    });

    it('openapi-fetch at run time: the path id as the record has it, JSON parameters as their text', async () => {
      const server: Server = shop.app.listen(0);
      await new Promise((r) => server.once('listening', r));
      try {
        const { default: createFetchClient } = await import('openapi-fetch');
        const client = createFetchClient<never>({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, headers: { Authorization: `Bearer ${shop.info.adminToken}` } });
        const get = client.GET as unknown as (path: string, init: unknown) => Promise<{ data?: Record<string, unknown> & { data?: Array<Record<string, unknown>> }; response: Response }>;
        const page = await get('/products', { params: { query: { oper: JSON.stringify({ and: ['price|>=|0'] }), orderby: JSON.stringify([{ price: 'desc' }]), pagination: JSON.stringify({ page: 1, pageSize: 2 }) } } });
        expect(page.response.status).to.equal(200);
        const first = page.data!.data![0];
        expect(typeof first.id).to.equal(driver === 'sql' ? 'number' : 'string');
        const shown = await get('/products/{id}', { params: { path: { id: first.id }, query: { relations: JSON.stringify(['category', 'tags']) } } });
        expect(shown.response.status).to.equal(200);
        expect(shown.data).to.include({ id: first.id }).and.to.have.property('tags').that.is.an('array');
      } finally {
        server.close();
      }
    });

    it('the library\'s typed client: record types with relations, ids typed like the records\'', () => {
      const types = generateTypes(doc);
      expect(types).to.contain(`"id": ${driver === 'sql' ? 'number' : 'string'};`);
      expect(types).to.contain('"category"?: Category | null;');
      const errors = compile({ 'api-types.ts': types, 'program.ts': ownClientProgram(driver) });
      expect(errors, errors.join('\n')).to.deep.equal([]);
    });
  });
}
