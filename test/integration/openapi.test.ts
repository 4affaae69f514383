import { expect } from 'chai';
import { asAdmin } from '../support/as-admin';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { freshPostgresDatabase, sharedMongo } from '../support/databases';

/**
 * The OpenAPI 3.1 document: valid against the official schema, every route of the table in it,
 * and the requests built from its examples answered 200 by the example app, on both drivers.
 */
for (const driver of ['mongo', 'sql'] as const) {
  describe(`OpenAPI document (${driver})`, function () {
    this.timeout(60_000);
    let shop: ExampleApp;
    let pgDatabase: { uri: string; drop(): Promise<void> } | undefined;
    let doc: { paths: Record<string, Record<string, { operationId: string; parameters?: Array<Record<string, unknown>> }>>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };

    before(async () => {
      // a database of its own: the examples are checked against the whole seeded shop, which other
      // suites sharing the default database may have changed
      const own = (base: string) => { const url = new URL(base); url.pathname = `/openapi_${process.pid}`; return url.toString(); };
      if (driver === 'sql') pgDatabase = await freshPostgresDatabase('openapi');
      const uri = driver === 'mongo' ? { mongoUri: own((await sharedMongo()).uri) } : { postgresUri: pgDatabase!.uri };
      shop = await createExampleApp({ driver, ...uri, seed: true });
      const res = await asAdmin(shop).get('/api/v1/openapi.json');
      expect(res.status).to.equal(200);
      doc = res.body;
    });
    after(async () => {
      await shop?.close();
      await pgDatabase?.drop();
    });

    it('validates against the OpenAPI 3.1 schema', async () => {
      const validator = new Validator();
      const result = await validator.validate(doc as never);
      expect(result.valid, JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).to.equal(true);
      expect(validator.version).to.equal('3.1');
    });

    it('lists every route of the route table, by name, method and path', () => {
      const described = new Map<string, string>();
      for (const [path, ops] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(ops)) described.set(op.operationId, `${method} ${path}`);
      const routes = shop.api.routes().all();
      expect(routes.length).to.be.greaterThan(40);
      for (const route of routes) {
        expect(described.get(route.name), route.name).to.equal(`${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
      }
      expect(described.size).to.equal(routes.length);
    });

    it('record schemas come from the model: write-only fields are absent', () => {
      expect(doc.components.schemas.User.properties).to.have.property('email');
      expect(doc.components.schemas.User.properties).to.not.have.property('api_token');
      expect(doc.components.schemas.ProductCreate).to.have.property('required').that.includes('name');
    });

    it('authentication is described as a bearer scheme; a role\'s document leaves out what its read policy hides', () => {
      const full = doc as unknown as { components: { securitySchemes: Record<string, unknown> }; paths: Record<string, Record<string, { security?: unknown }>> };
      expect(full.components.securitySchemes).to.deep.equal({ bearerAuth: { type: 'http', scheme: 'bearer' } });
      expect(full.paths['/products'].get.security).to.deep.equal([{ bearerAuth: [] }]);
      expect(full.paths['/products/{parent_id}/tags/attach'].post.security).to.deep.equal([{ bearerAuth: [] }]);
      expect(doc.components.schemas.Product.properties).to.have.property('cost');
      const viewer = shop.api.openapi({ roles: ['viewer'] }) as typeof doc;
      expect(viewer.components.schemas.Product.properties).to.not.have.property('cost');
      expect(viewer.components.schemas.Product.properties).to.have.property('price');
      const editor = shop.api.openapi({ roles: ['editor'] }) as typeof doc;
      expect(editor.components.schemas.Product.properties).to.have.property('cost');
    });

    it('requests built from the document\'s examples succeed, and no example narrows a list', async () => {
      const full = doc as typeof doc & { components: { parameters: Record<string, Record<string, unknown>> } };
      const resolve = (p: Record<string, unknown>) => (typeof p.$ref === 'string' ? full.components.parameters[p.$ref.split('/').pop()!] : p);
      // what a docs page pre-fills: each parameter's example
      const examplesOf = (op: { parameters?: Array<Record<string, unknown>> }) => {
        const query: Record<string, string> = {};
        for (const p of (op.parameters ?? []).map(resolve)) {
          const content = p.content as Record<string, { example?: unknown }> | undefined;
          const example = content ? content['application/json'].example : p.example;
          if (example !== undefined) query[String(p.name)] = typeof example === 'string' ? example : JSON.stringify(example);
        }
        return query;
      };
      let sent = 0;
      for (const [path, ops] of Object.entries(doc.paths)) {
        const op = ops.get;
        // exports download files and the change feed streams for as long as it is open
        if (!op || path.includes('{') || path.includes('/export/') || path.endsWith('/changes')) continue;
        const query = examplesOf(op);
        const res = await asAdmin(shop).get(`/api/v1${path}`).query(query);
        expect(res.status, `${path} ${JSON.stringify(query)}: ${res.text}`).to.equal(200);
        sent += 1;
        if (path.endsWith('/first') || path.startsWith('/me')) continue;
        // every record is there: the examples filter nothing (the page holds them all, or says how many)
        const all = await asAdmin(shop).get(`/api/v1${path}`);
        expect(all.body.data.length, path).to.be.greaterThan(0);
        const shown = res.body.total ?? res.body.data.length;
        expect(shown, `${path} with ${JSON.stringify(query)}`).to.equal(all.body.data.length);
        expect(res.body.data.length).to.equal(Math.min(all.body.data.length, res.body.per_page ?? Infinity));
        expect(Object.keys(query)).to.include.members(['oper', 'attr', 'orderby', 'pagination']);
      }
      expect(sent).to.be.greaterThan(5);
      // the first record of a list is there too
      const first = await asAdmin(shop).get('/api/v1/products/first').query(examplesOf(doc.paths['/products/first'].get));
      expect(first.body.data).to.not.equal(null);
    });

    it('filter parameters carry no example that filters', () => {
      const parameters = (doc as unknown as { components: { parameters: Record<string, { content?: Record<string, { example?: unknown }>; example?: unknown }> } }).components.parameters;
      for (const name of ['oper', 'attr', 'eq']) {
        const example = parameters[name].content?.['application/json'].example;
        expect(example === undefined || (typeof example === 'object' && example !== null && Object.keys(example).length === 0), `${name}: ${JSON.stringify(example)}`).to.equal(true);
      }
      // and no operation carries an inline parameter of its own with an example
      for (const ops of Object.values(doc.paths)) for (const op of Object.values(ops)) for (const p of op.parameters ?? []) expect(p).to.not.have.property('example');
    });

    it('the docs page and its assets are served locally', async () => {
      const page = await asAdmin(shop).get('/api/v1/docs');
      expect(page.status).to.equal(200);
      expect(page.text).to.contain('/api/v1/docs/assets/swagger-ui-bundle.js');
      const bundle = await asAdmin(shop).get('/api/v1/docs/assets/swagger-ui-bundle.js');
      expect(bundle.status).to.equal(200);
    });
  });
}
