import { expect } from 'chai';
import express from 'express';
import Module from 'node:module';
import request from 'supertest';
import winston from 'winston';
import { createRestApi, type AuthUser } from '../../../lib';

/**
 * Decision 68: the API description and the docs page hold no data and are public by default;
 * `docsRouter({authenticate: true})` serves them only to callers the API's authentication
 * accepts. Without swagger-ui-dist the page is a 501 `not_implemented` naming the package.
 */

const users: Record<string, AuthUser> = { reader: { id: 1, roles: ['reader'] } };
const silent = winston.createLogger({ silent: true });

function appWith(docs: { authenticate?: boolean } = {}) {
  const api = createRestApi({ logger: silent, auth: { authenticate: (req) => users[String(req.get('x-user'))] ?? null, grants: { reader: { reports: { 'read:any': ['*'] } } } } });
  const app = express();
  app.use('/api', api.router());
  app.use('/api', api.docsRouter({ title: 'Docs test', ...docs }));
  return app;
}

/** Runs `work` while `require('swagger-ui-dist')` fails as if the package were not installed. */
async function withoutSwaggerUi<T>(work: () => Promise<T>): Promise<T> {
  const loader = Module as unknown as { _load(request: string, ...rest: unknown[]): unknown };
  const original = loader._load;
  loader._load = function (requested: string, ...rest: unknown[]) {
    if (requested === 'swagger-ui-dist') throw Object.assign(new Error(`Cannot find module '${requested}'`), { code: 'MODULE_NOT_FOUND' });
    return original.call(this, requested, ...rest);
  };
  try {
    return await work();
  } finally {
    loader._load = original;
  }
}

describe('docs router: public by default, authenticate on demand (decision 68)', () => {
  it('/openapi.json and /docs answer without a token by default', async () => {
    const app = appWith();
    const doc = await request(app).get('/api/openapi.json');
    expect(doc.status, doc.text).to.equal(200);
    expect(doc.body.openapi).to.match(/^3\./);
    const page = await request(app).get('/api/docs');
    expect(page.status).to.equal(200);
    expect(page.headers['content-type']).to.match(/text\/html/);
    expect(page.text).to.contain('Docs test');
  });

  it('authenticate: true answers 401 in the error shape without an accepted caller, 200 with one', async () => {
    const app = appWith({ authenticate: true });
    for (const path of ['/api/openapi.json', '/api/docs']) {
      const anonymous = await request(app).get(path);
      expect(anonymous.status, path).to.equal(401);
      expect(anonymous.body).to.deep.equal({ message: 'Unauthenticated.', type: 'unauthenticated', status: 401 });
      expect((await request(app).get(path).set('x-user', 'nobody')).status, path).to.equal(401);
      expect((await request(app).get(path).set('x-user', 'reader')).status, path).to.equal(200);
    }
    // swagger-ui's own files describe nothing and stay reachable for the page to load
    expect((await request(app).get('/api/docs/assets/swagger-ui.css')).status).to.equal(200);
  });

  it('authenticate: true without the auth option is a start-up error', () => {
    const api = createRestApi({ logger: silent });
    api.router();
    expect(() => api.docsRouter({ authenticate: true })).to.throw(/needs the auth option/);
  });

  it('without swagger-ui-dist, /docs is a 501 not_implemented naming the package and its install command', async () => {
    await withoutSwaggerUi(async () => {
      const app = appWith();
      const res = await request(app).get('/api/docs');
      expect(res.status).to.equal(501);
      expect(res.headers['content-type']).to.match(/application\/json/);
      expect(res.body.type).to.equal('not_implemented');
      expect(res.body.status).to.equal(501);
      expect(res.body.message).to.include('swagger-ui-dist').and.include('npm install swagger-ui-dist');
      expect(Object.keys(res.body).sort()).to.deep.equal(['message', 'status', 'type']);
      // the description itself needs no page
      expect((await request(app).get('/api/openapi.json')).status).to.equal(200);
    });
  });
});
