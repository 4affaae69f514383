import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import winston from 'winston';
import { apiFront } from '../../../lib/http/api-front';
import { contextOf } from '../../../lib/http/request-context-middleware';
import { errorMiddleware } from '../../../lib/http/error-middleware';
import { createLoggers } from '../../../lib/log/logger';

/** apiFront: access log, context and JSON body in one middleware in front of the routes. */
describe('apiFront', () => {
  const log = createLoggers(winston.createLogger({ silent: true }));
  const app = express();
  app.use(
    apiFront({ log, bodyLimit: '1kb' }, (req, res, next) => {
      if (req.path === '/fall') return next();
      res.json({ body: req.body ?? null, hasContext: !!contextOf(res) });
    }),
    (_req, res) => void res.status(404).json({ fellThrough: true, hasContext: !!res.locals.restContext }),
  );
  app.use(errorMiddleware(log));

  it('a request without a body reaches the route with a context and no body', async () => {
    expect((await request(app).get('/x').expect(200)).body).to.deep.equal({ body: null, hasContext: true });
  });

  it('a JSON body is parsed before the route', async () => {
    expect((await request(app).post('/x').send({ a: 1 }).expect(200)).body.body).to.deep.equal({ a: 1 });
    expect((await request(app).delete('/x').send({ ids: [1] }).expect(200)).body.body).to.deep.equal({ ids: [1] });
  });

  it('malformed and oversized bodies are 400 and 413 from the error middleware', async () => {
    const bad = await request(app).post('/x').set('Content-Type', 'application/json').send('{"a":').expect(400);
    expect(bad.body.message).to.equal('Malformed JSON in the request body.');
    expect((await request(app).post('/x').send({ big: 'x'.repeat(2000) }).expect(413)).body.type).to.equal('payload_too_large');
  });

  it('what no route answers goes on with its context', async () => {
    expect((await request(app).get('/fall').expect(404)).body).to.deep.equal({ fellThrough: true, hasContext: true });
  });
});
