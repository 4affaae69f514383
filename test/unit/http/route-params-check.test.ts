import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import winston from 'winston';
import { buildRouter } from '../../../lib/http/build-router';
import { contextMiddleware } from '../../../lib/http/request-context-middleware';
import { errorMiddleware } from '../../../lib/http/error-middleware';
import { RouteTable, type RouteDefinition } from '../../../lib/http/routes';
import { unmatchedRoutes } from '../../../lib/http/unmatched-route';
import { createLoggers } from '../../../lib/log/logger';

/** The dispatcher's parameter check (decision 64): by action, by a route's own `params`, plus allowParams. */
function appWith(routes: RouteDefinition[], allow: string[] = []): express.Express {
  const table = new RouteTable();
  table.add(...routes);
  const app = express();
  const log = createLoggers(winston.createLogger({ silent: true }));
  app.use('/api', contextMiddleware(null), buildRouter(table, [], { allowParams: () => allow }), unmatchedRoutes(table), errorMiddleware(log));
  return app;
}

const route = (over: Partial<RouteDefinition>): RouteDefinition => ({
  name: 'items.index', resource: 'items', model: 'item', action: 'index', method: 'get', path: '/items', access: 'read', answers: 'json', summary: '',
  handler: async ({ params }) => ({ params: { ...params } }),
  ...over,
});

describe('router: accepted parameters per route', () => {
  it('a known action is checked; its parameters arrive nested from bracket notation', async () => {
    const app = appWith([route({})], ['token']);
    const ok = await request(app).get('/api/items?attr[status]=a&select[]=name&token=t').expect(200);
    expect(ok.body.params).to.deep.equal({ attr: { status: 'a' }, select: ['name'], token: 't' });
    const bad = await request(app).get('/api/items?limit=2').expect(400);
    expect(bad.body.message).to.match(/^Unknown parameter "limit"\. Accepted: oper, .*cache_ttl, token\.$/);
  });

  it('a route declaring params is checked against them; an unknown action is not checked', async () => {
    const app = appWith([route({ name: 'items.feed', action: 'feed', path: '/items/feed', params: ['since'] }), route({ name: 'items.other', action: 'other', path: '/items/other' })]);
    await request(app).get('/api/items/feed?since=1').expect(200);
    expect((await request(app).get('/api/items/feed?until=1').expect(400)).body.message).to.equal('Unknown parameter "until". Accepted: since.');
    await request(app).get('/api/items/other?anything=1').expect(200);
  });

  it('a write checks its query string only, never its body', async () => {
    const app = appWith([route({ name: 'items.store', action: 'store', method: 'post', access: 'create' })]);
    await request(app).post('/api/items').send({ anything: 1 }).expect(200);
    expect((await request(app).post('/api/items?anything=1').send({}).expect(400)).body.message).to.equal('Unknown parameter "anything". This route takes no query parameters.');
  });
});
