import { expect } from 'chai';
import express from 'express';
import supertest from 'supertest';
import type { RestApi } from '../../lib';
import { errorMiddleware, UnauthenticatedError } from '../../lib';
import { bearerChallenge } from '../../lib/http/www-authenticate';
import { API, forEachDriver } from '../support/contract-app';

const HINT = 'error_description="A user\'s api_token: the start log prints the superuser\'s (EXAMPLE_ADMIN_TOKEN chooses it) and the demo users\' tokens"';

/**
 * Decision 78: a 401 keeps decision 26's body and says in `WWW-Authenticate` (RFC 6750) how to
 * authenticate and where a token comes from (the application's hint).
 */
forEachDriver('401: WWW-Authenticate says where a token comes from', (ctx) => {
  const BODY = { message: 'Unauthenticated.', type: 'unauthenticated', status: 401 };

  it('no credentials: the body of decision 26, a Bearer challenge with the realm and the hint, no error code', async () => {
    const res = await ctx.as(null).get(`${API}/products`);
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.equal(BODY);
    expect(res.headers['www-authenticate']).to.equal(`Bearer realm="example-shop", ${HINT}`);
  });

  it('a refused token: error="invalid_token" as well, on reads, writes, relation routes and the change feed', async () => {
    const agent = () => ctx.as('not-a-known-token');
    const product = await ctx.product();
    for (const res of [
      await agent().get(`${API}/products/${product.id}`),
      await agent().post(`${API}/products`).send({ name: 'x', sku: ctx.unique('sku'), price: 1 }),
      await agent().get(`${API}/products/${product.id}/tags`),
      await agent().get(`${API}/reviews/changes`),
    ]) {
      expect(res.status, res.text).to.equal(401);
      expect(res.headers['www-authenticate']).to.equal(`Bearer realm="example-shop", error="invalid_token", ${HINT}`);
    }
  });

  it('docs served only to authenticated callers answer their 401 with the same challenge', async () => {
    const app = express();
    app.use('/v', (ctx.app as unknown as { api: RestApi }).api.docsRouter({ authenticate: true }));
    const res = await supertest(app).get('/v/openapi.json');
    expect(res.status).to.equal(401);
    expect(res.body).to.deep.equal(BODY);
    expect(res.headers['www-authenticate']).to.equal(`Bearer realm="example-shop", ${HINT}`);
  });

  it('success answers carry no challenge', async () => {
    const res = await ctx.get('/tags');
    expect(res.status).to.equal(200);
    expect(res.headers).to.not.have.property('www-authenticate');
  });
});

describe('bearerChallenge and the exported error middleware', () => {
  it('quotes the realm, keeps error_description to the characters RFC 6750 allows', () => {
    expect(bearerChallenge({}, false)).to.equal('Bearer realm="api"');
    expect(bearerChallenge({ realm: 'a "b"' }, true)).to.equal('Bearer realm="a \\"b\\"", error="invalid_token"');
    expect(bearerChallenge({ hint: 'see "docs"\\ here\nnow é' }, false)).to.equal('Bearer realm="api", error_description="see docs here now"');
  });

  it('an application route throwing UnauthenticatedError through errorMiddleware gets a plain Bearer challenge', async () => {
    const app = express();
    app.get('/mine', () => {
      throw new UnauthenticatedError();
    });
    app.use(errorMiddleware((ctxLog as unknown) as Parameters<typeof errorMiddleware>[0]));
    const res = await supertest(app).get('/mine');
    expect(res.status).to.equal(401);
    expect(res.headers['www-authenticate']).to.equal('Bearer realm="api"');
  });
});

const noop = () => undefined;
const logger = { error: noop, warn: noop, info: noop, debug: noop };
const ctxLog = { app: logger, db: logger, query: logger, access: logger };
