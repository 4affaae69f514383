import { expect } from 'chai';
import http from 'node:http';
import express, { type RequestHandler } from 'express';
import request from 'supertest';
import winston from 'winston';
import { buildRouter } from '../../../lib/http/build-router';
import { contextMiddleware, contextOf } from '../../../lib/http/request-context-middleware';
import { sendJson } from '../../../lib/http/send-json';
import { errorMiddleware } from '../../../lib/http/error-middleware';
import { RouteTable, type HttpMethod, type RouteDefinition } from '../../../lib/http/routes';
import { createLoggers } from '../../../lib/log/logger';

function route(name: string, method: HttpMethod, path: string, answer?: (params: Record<string, string>) => unknown): RouteDefinition {
  return {
    name, resource: path.split('/')[1], model: 'm', action: name, method, path, access: 'read', answers: 'json', summary: name,
    handler: async ({ req, ctx }) => answer?.(req.params as Record<string, string>) ?? { route: ctx.route, params: req.params },
  };
}

/** The generated routes' dispatcher behind the router-level middleware api.router() installs. */
function appWith(routes: RouteDefinition[], middleware: (r: RouteDefinition) => RequestHandler | null = () => null): express.Express {
  const table = new RouteTable();
  table.add(...routes);
  const app = express();
  const log = createLoggers(winston.createLogger({ silent: true }));
  app.use('/api', contextMiddleware(null), buildRouter(table, [middleware]), errorMiddleware(log));
  app.use((_req, res) => void res.status(404).json({ fellThrough: true }));
  return app;
}

describe('buildRouter: the generated routes as one dispatcher', () => {
  const routes = [
    route('items.first', 'get', '/items/first'),
    route('items.show', 'get', '/items/:id'),
    route('items.update', 'put', '/items/:id'),
    route('items.tags.show', 'get', '/items/:parent_id/tags/:related_id'),
  ];

  it('matches in table order, with decoded params and the route name in the context', async () => {
    const first = await request(appWith(routes)).get('/api/items/first').expect(200);
    expect(first.body).to.deep.equal({ route: 'items.first', params: {} });
    const show = await request(appWith(routes)).get('/api/items/a%20b').expect(200);
    expect(show.body).to.deep.equal({ route: 'items.show', params: { id: 'a b' } });
    const nested = await request(appWith(routes)).get('/api/items/7/tags/9').expect(200);
    expect(nested.body).to.deep.equal({ route: 'items.tags.show', params: { parent_id: '7', related_id: '9' } });
  });

  it('keeps Express defaults: literals case-insensitive, one trailing slash allowed, HEAD runs GET', async () => {
    const app = appWith(routes);
    expect((await request(app).get('/api/ITEMS/First').expect(200)).body.route).to.equal('items.first');
    expect((await request(app).get('/api/items/5/').expect(200)).body.params).to.deep.equal({ id: '5' });
    const head = await request(app).head('/api/items/5').expect(200);
    expect(head.headers['content-type']).to.match(/application\/json/);
  });

  it('falls through to the application when no route matches path and method', async () => {
    const app = appWith(routes);
    expect((await request(app).get('/api/other/1').expect(404)).body).to.deep.equal({ fellThrough: true });
    expect((await request(app).delete('/api/items/1').expect(404)).body).to.deep.equal({ fellThrough: true });
    expect((await request(app).get('/api/items/1/tags').expect(404)).body).to.deep.equal({ fellThrough: true });
  });

  it('answers OPTIONS with the methods of the matching routes', async () => {
    const res = await request(appWith(routes)).options('/api/items/5').expect(200);
    expect(res.headers.allow).to.equal('GET, HEAD, PUT');
  });

  it('a malformed percent-encoding in a param is a 400 naming the segment', async () => {
    const res = await request(appWith(routes)).get('/api/items/%E0%A4%A').expect(400);
    expect(res.body.message).to.include('%E0%A4%A');
    expect(res.body.type).to.equal('bad_request');
  });

  it("runs each route's middleware chain; next('route') tries the next match, errors reach the error middleware", async () => {
    const skipFirst = (r: RouteDefinition): RequestHandler | null => (r.name === 'items.first' ? (_req, _res, next) => next('route') : null);
    expect((await request(appWith(routes, skipFirst)).get('/api/items/first').expect(200)).body).to.deep.equal({ route: 'items.show', params: { id: 'first' } });
    const failing = (): RequestHandler => async () => {
      throw Object.assign(new Error('boom'), {});
    };
    const res = await request(appWith(routes, failing)).get('/api/items/1').expect(500);
    expect(res.body.type).to.equal('internal_error');
    const thrower = (): RequestHandler => () => {
      throw new Error('sync boom');
    };
    expect((await request(appWith(routes, thrower)).get('/api/items/1').expect(500)).body.type).to.equal('internal_error');
  });

  it('answers the handler result as JSON and keeps contextOf working for handlers', async () => {
    const app = appWith([route('things.show', 'get', '/things/:id', (p) => ({ id: Number(p.id) }))]);
    expect((await request(app).get('/api/things/3').expect(200)).body).to.deep.equal({ id: 3 });
    expect(contextOf).to.be.a('function');
  });

  it('refuses at build time a path segment Express syntax would be needed for', () => {
    const table = new RouteTable();
    table.add(route('odd.show', 'get', '/odd/:id{/*rest}'));
    expect(() => buildRouter(table, [])).to.throw(/unsupported path segment/);
  });
});

describe('the request context signal', () => {
  /** A route that never answers and reports, once its client is gone, whether the signal aborted. */
  async function signalWhenClientLeaves(askFirst: boolean): Promise<boolean> {
    const app = express();
    let report: (aborted: boolean) => void = () => undefined;
    const reported = new Promise<boolean>((resolve) => (report = resolve));
    app.use(contextMiddleware(null), (_req, res) => {
      const ctx = contextOf(res);
      if (askFirst) ctx.signal.addEventListener('abort', () => report(true));
      else res.on('close', () => setImmediate(() => report(ctx.signal.aborted)));
    });
    const server = app.listen(0);
    try {
      const { port } = server.address() as { port: number };
      const client = http.get(`http://127.0.0.1:${port}/`);
      client.on('error', () => undefined);
      setTimeout(() => client.destroy(), 50);
      return await reported;
    } finally {
      server.close();
    }
  }

  it('aborts when the client goes away, whether it was asked for before or after', async () => {
    expect(await signalWhenClientLeaves(true)).to.equal(true);
    expect(await signalWhenClientLeaves(false)).to.equal(true);
  });

  it('is not aborted for an answered request', async () => {
    const app = express();
    let signal: AbortSignal | null = null;
    app.use(contextMiddleware(null), (_req, res) => {
      res.json({ ok: true });
      res.on('finish', () => setImmediate(() => (signal = contextOf(res).signal)));
    });
    await request(app).get('/').expect(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(signal).to.not.equal(null);
    expect(signal!.aborted).to.equal(false);
  });
});

describe('sendJson: a JSON answer as res.send gives it', () => {
  const appSending = (configure?: (app: express.Express) => void): express.Express => {
    const app = express();
    configure?.(app);
    app.get('/lib', (req, res) => sendJson(req, res, '{"a":"é"}'));
    app.post('/lib', (req, res) => sendJson(req, res, '{"a":"é"}'));
    app.get('/express', (_req, res) => void res.type('application/json').send('{"a":"é"}'));
    return app;
  };

  it('same status, type, length, ETag and body as Express', async () => {
    const app = appSending();
    const ours = await request(app).get('/lib').expect(200);
    const theirs = await request(app).get('/express').expect(200);
    for (const header of ['content-type', 'content-length', 'etag']) expect(ours.headers[header], header).to.equal(theirs.headers[header]);
    expect(ours.text).to.equal('{"a":"é"}');
  });

  it('304 without a body when the ETag matches, no body for HEAD, no ETag when the app turns it off', async () => {
    const app = appSending();
    const { headers } = await request(app).get('/lib').expect(200);
    const fresh = await request(app).get('/lib').set('If-None-Match', headers.etag).expect(304);
    expect(fresh.text).to.equal('');
    const head = await request(app).head('/lib').expect(200);
    expect(head.headers['content-length']).to.equal(headers['content-length']);
    expect(head.text).to.equal(undefined);
    const off = await request(appSending((a) => a.set('etag', false))).get('/lib').expect(200);
    expect(off.headers.etag).to.equal(undefined);
    expect(off.text).to.equal('{"a":"é"}');
  });

  it('no ETag on a write\'s answer (only a GET or HEAD can be revalidated): same length and body', async () => {
    const app = appSending();
    const written = await request(app).post('/lib').expect(200);
    expect(written.headers.etag).to.equal(undefined);
    expect(written.headers['content-length']).to.equal(String(Buffer.byteLength('{"a":"é"}')));
    expect(written.text).to.equal('{"a":"é"}');
  });
});
