import { expect } from 'chai';
import mongoose from 'mongoose';
import { DataTypes, Sequelize } from 'sequelize';
import { createRestApi, type RestApi, type RestApiOptions } from '../../lib';
import { generateTypes } from '../../lib/client';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { sharedMongo, sharedPostgres } from '../support/databases';
import { redoclyLint, spectralLint, type LintReport } from '../support/openapi-lint';

/**
 * Decision 66: the OpenAPI document passes Redocly's `recommended` and Spectral's `spectral:oas`
 * rulesets with no error, for the example app on each driver (with authentication) and for a
 * small app without authentication. Warnings are printed, not failed.
 */
type Doc = Record<string, unknown>;

async function expectClean(name: string, doc: Doc): Promise<void> {
  const reports: Array<[string, LintReport]> = [
    ['Redocly', await redoclyLint(doc)],
    ['Spectral', await spectralLint(doc)],
  ];
  for (const [linter, report] of reports) {
    console.log(`      ${linter} on ${name}: ${report.errors.length} errors, ${report.warnings.length} warnings${report.warnings.length ? ` (${report.warnings.slice(0, 3).join('; ')})` : ''}`);
    expect(report.errors, `${linter} errors on ${name}:\n${report.errors.slice(0, 20).join('\n')}`).to.deep.equal([]);
  }
}

/** A two-resource app without authentication: authors and their posts. */
async function smallApp(driver: 'mongo' | 'sql', auth?: RestApiOptions['auth']): Promise<{ api: RestApi; close(): Promise<void> }> {
  const relations = (api: RestApi, author: unknown, post: unknown, extra: string[] = []) =>
    api
      .register({ name: 'authors', MODEL: 'author', model: author, fillable: ['name'], RELATIONS: ['posts'], relations: { posts: { kind: 'hasMany', target: 'post', foreignKey: 'author_id' } } })
      .register({ name: 'posts', MODEL: 'post', model: post, fillable: ['title', 'tags', 'author_id', ...extra], RELATIONS: ['author', ...extra], relations: { author: { kind: 'belongsTo', target: 'author', foreignKey: 'author_id' } } });
  if (driver === 'mongo') {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/openapi_lint_small';
    const connection = await mongoose.createConnection(uri.toString()).asPromise();
    const Author = connection.model('Author', new mongoose.Schema({ name: String }));
    // `editor`: a ref path named like its relation (the id, or the record once loaded)
    const Post = connection.model('Post', new mongoose.Schema({ title: String, tags: [String], author_id: { type: mongoose.Schema.Types.ObjectId, ref: 'Author' }, editor: { type: mongoose.Schema.Types.ObjectId, ref: 'Author' } }));
    const api = relations(createRestApi({ auth }), Author, Post, ['editor']);
    api.router();
    return { api, close: async () => (await api.close(), await connection.close()) };
  }
  const sequelize = new Sequelize((await sharedPostgres()).uri, { logging: false });
  const Author = sequelize.define('Author', { name: DataTypes.STRING }, { tableName: 'openapi_lint_authors', underscored: true });
  const Post = sequelize.define('Post', { title: DataTypes.STRING, tags: DataTypes.ARRAY(DataTypes.STRING), author_id: DataTypes.INTEGER }, { tableName: 'openapi_lint_posts', underscored: true });
  const api = relations(createRestApi({ auth }), Author, Post);
  api.router();
  return { api, close: async () => (await api.close(), await sequelize.close()) };
}

for (const driver of ['mongo', 'sql'] as const) {
  describe(`OpenAPI lint: Redocly and Spectral rulesets (${driver})`, function () {
    this.timeout(120_000);
    let shop: ExampleApp;
    let doc: Doc;

    before(async () => {
      const uri = driver === 'mongo' ? { mongoUri: (await sharedMongo()).uri } : { postgresUri: (await sharedPostgres()).uri };
      shop = await createExampleApp({ driver, ...uri });
      doc = shop.api.openapi({ title: 'Example shop API', serverUrl: '/api/v1' });
    });
    after(async () => shop?.close());

    it('the example app (bearer authentication) lints with no error', async () => {
      const security = doc as { security?: unknown; components: { securitySchemes?: unknown } };
      expect(security.security).to.deep.equal([{ bearerAuth: [] }]);
      expect(security.components.securitySchemes).to.deep.equal({ bearerAuth: { type: 'http', scheme: 'bearer' } });
      await expectClean(`the ${driver} example app`, doc);
    });

    it('a small app without authentication lints with no error, and says it needs no credential', async () => {
      const small = await smallApp(driver);
      try {
        const plain = small.api.openapi() as { security?: unknown; components: { securitySchemes?: unknown; responses: Record<string, unknown> } };
        expect(plain.security).to.deep.equal([]);
        expect(plain.components.securitySchemes).to.equal(undefined);
        expect(plain.components.responses).to.not.have.property('Error401');
        if (driver === 'mongo') {
          const editor = (plain.components as unknown as { schemas: { Post: { properties: { editor: { anyOf: unknown[] } } } } }).schemas.Post.properties.editor;
          expect(editor.anyOf).to.deep.equal([{ type: ['string', 'null'], pattern: '^[0-9a-f]{24}$' }, { $ref: '#/components/schemas/Author' }, { type: 'null' }]);
          expect(generateTypes(plain as never)).to.contain('"editor": string | null | Author;');
        }
        await expectClean(`a small ${driver} app without auth`, plain);
      } finally {
        await small.close();
      }
    });

    it('a public route of an authenticated API takes a credential but needs none', () => {
      const security = { schemes: { bearerAuth: { type: 'http', scheme: 'bearer' } }, requirement: [{ bearerAuth: [] }], isPublic: (name: string) => name === 'products.index' };
      const described = shop.api.openapi({ security }) as { paths: Record<string, Record<string, { security: unknown; responses: Record<string, unknown> }>> };
      expect(described.paths['/products'].get.security).to.deep.equal([{}, { bearerAuth: [] }]);
      expect(described.paths['/products'].get.responses).to.not.have.property('403');
      expect(described.paths['/products'].post.security).to.deep.equal([{ bearerAuth: [] }]);
      expect(described.paths['/products'].post.responses).to.have.property('403');
    });

    it('a route opened by auth.routes is described so, and the document still lints clean', async () => {
      const small = await smallApp(driver, { authenticate: async () => null, grants: {}, routes: { 'posts.index': false } });
      try {
        const described = small.api.openapi() as { paths: Record<string, Record<string, { security: unknown; responses: Record<string, unknown> }>> };
        expect(described.paths['/posts'].get.security).to.deep.equal([{}, { bearerAuth: [] }]);
        expect(described.paths['/posts'].post.security).to.deep.equal([{ bearerAuth: [] }]);
        await expectClean(`a small ${driver} app with one public route`, described);
      } finally {
        await small.close();
      }
    });

    it('every array schema says what it holds', () => {
      const missing: string[] = [];
      const walk = (node: unknown, path: string): void => {
        if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${path}/${i}`));
        if (!node || typeof node !== 'object') return;
        const schema = node as Record<string, unknown>;
        const types = Array.isArray(schema.type) ? schema.type : [schema.type];
        if (types.includes('array') && !('items' in schema)) missing.push(path);
        for (const [key, value] of Object.entries(schema)) walk(value, `${path}/${key}`);
      };
      walk(doc, '#');
      expect(missing).to.deep.equal([]);
    });

    it('path ids are typed like the records\' ids; structured parameters are JSON content with a schema', () => {
      const full = doc as { paths: Record<string, Record<string, { parameters: Array<Record<string, unknown>> }>>; components: { parameters: Record<string, { content?: Record<string, { schema: unknown }> }>; schemas: Record<string, { properties: Record<string, unknown> }> } };
      const id = driver === 'sql' ? { type: 'integer' } : { type: 'string', pattern: '^[0-9a-f]{24}$' };
      const pathIds = full.paths['/products/{parent_id}/tags/{related_id}'].get.parameters.filter((p) => p.in === 'path');
      expect(pathIds.map((p) => [p.name, p.schema])).to.deep.equal([['parent_id', id], ['related_id', id]]);
      expect(full.paths['/products/{id}'].get.parameters[0].schema).to.deep.equal(id);
      expect(full.components.schemas.Product.properties.id).to.deep.equal(id);
      for (const name of ['oper', 'attr', 'eq', 'select', 'relations', 'orderby', 'pagination', 'hierarchy', 'columns']) {
        expect(full.components.parameters[name].content?.['application/json'].schema, name).to.be.an('object');
      }
    });

    it('record schemas hold the relations a client may load, as optional properties', () => {
      const schemas = (doc as { components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>>; required: string[] }> } }).components.schemas;
      const product = schemas.Product;
      expect(product.properties.category.anyOf).to.deep.equal([{ $ref: '#/components/schemas/Category' }, { type: 'null' }]);
      expect(product.properties.reviews).to.include({ type: 'array' });
      expect(product.properties.reviews.items).to.deep.equal({ $ref: '#/components/schemas/Review' });
      expect((product.properties.tags.items as { allOf: unknown[] }).allOf[0]).to.deep.equal({ $ref: '#/components/schemas/Tag' });
      expect(product.required).to.not.include.members(['category', 'reviews', 'tags']);
      expect(schemas.Category.properties).to.have.property('products');
    });
  });
}
