import { expect } from 'chai';
import express from 'express';
import supertest from 'supertest';
import type { RestApi } from '../../lib';
import { API, forEachDriver } from '../support/contract-app';

type Doc = { servers: Array<{ url: string }>; paths: Record<string, unknown> };

/** Where "Try it out" sends a request: the server URL resolved against the document's URL, as Swagger UI does (no trailing slash). */
function apiBase(doc: Doc, documentPath: string): string {
  const resolved = new URL(doc.servers[0].url, `http://docs.test${documentPath}`);
  expect(resolved.origin).to.equal('http://docs.test');
  return resolved.pathname.replace(/\/$/, '');
}

/**
 * Issue 44: the docs page of an application that mounts the API elsewhere than the example app
 * calls the API, without any option: the document's server URL is relative to the document.
 */
forEachDriver('API description under any prefix', (ctx) => {
  const api = () => (ctx.app as unknown as { api: RestApi }).api;

  it('the example app: servers resolve from /api/v1/openapi.json to /api/v1', async () => {
    const doc = (await ctx.request().get(`${API}/openapi.json`)).body as Doc;
    expect(doc.servers).to.deep.equal([{ url: '.' }]);
    expect(apiBase(doc, `${API}/openapi.json`)).to.equal(API);
  });

  it('the API and its docs mounted under /shop/v2: the document\'s server is the API there, and the page loads that document', async () => {
    const app = express();
    app.use('/shop/v2', api().router());
    app.use('/shop/v2', api().docsRouter({ title: 'Shop' }));
    const agent = supertest.agent(app).set('Authorization', `Bearer ${ctx.app.info.adminToken}`);
    const doc = (await agent.get('/shop/v2/openapi.json').expect(200)).body as Doc;
    const base = apiBase(doc, '/shop/v2/openapi.json');
    expect(base).to.equal('/shop/v2');
    // the request "Try it out" makes for the list operation answers JSON from the API
    expect(doc.paths).to.have.property('/products');
    const list = await agent.get(`${base}/products`).query({ pagination: JSON.stringify({ page: 1, pageSize: 1 }) });
    expect(list.status).to.equal(200);
    expect(list.type).to.equal('application/json');
    expect(list.body).to.have.property('current_page', 1);
    const init = await agent.get('/shop/v2/docs/init.js').expect(200);
    expect(init.text).to.contain('"/shop/v2/openapi.json"');
  });

  it('docs mounted apart from the API: serverUrl (relative to the document, or absolute) says where the API is', async () => {
    const app = express();
    app.use('/backend/api', api().router());
    app.use('/backend/docs', api().docsRouter({ serverUrl: '../api' }));
    const agent = supertest.agent(app).set('Authorization', `Bearer ${ctx.app.info.adminToken}`);
    const doc = (await agent.get('/backend/docs/openapi.json').expect(200)).body as Doc;
    const base = apiBase(doc, '/backend/docs/openapi.json');
    expect(base).to.equal('/backend/api');
    expect((await agent.get(`${base}/tags`)).status).to.equal(200);
  });
});
