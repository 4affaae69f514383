import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import winston from 'winston';
import { createRestApi, errorMiddleware, type AuthOptions, type AuthUser } from '../../../lib';

const users: Record<string, AuthUser> = {
  reader: { id: 1, roles: ['reader'] },
  writer: { id: 2, roles: ['writer'] },
  both: { id: 3, roles: ['reader', 'auditor'] },
  root: { id: 4, roles: [], is_superuser: true },
  ghost: { id: 5, roles: ['no-such-role', 'constructor', '__proto__'] },
};

const grants = {
  reader: { reports: { 'read:any': ['*'] } },
  writer: { reports: { 'read:any': ['*'], 'create:any': ['*'] } },
  auditor: { audits: { 'read:any': ['*'] } },
};

const silent = winston.createLogger({ silent: true });

/** An application's own routes behind `api.authorize()`, with two guards. */
function appWith(auth: Partial<AuthOptions> = {}) {
  const api = createRestApi({
    logger: silent,
    auth: {
      guards: {
        bearer: (req) => users[String(req.get('x-user'))] ?? null,
        session: (req) => users[String(req.get('x-session'))] ?? null,
      },
      defaultGuard: 'bearer',
      grants,
      ...auth,
    },
  });
  const app = express();
  const ok = (_req: express.Request, res: express.Response) => void res.json({ ok: true });
  app.use(api.router());
  app.get('/reports/:id', api.authorize(), ok);
  app.post('/reports', api.authorize(), ok);
  app.delete('/reports/:id', api.authorize(), ok);
  app.get('/session/reports', api.authorize({ name: 'reports.index', guard: 'session' }), ok);
  app.get('/by-param', api.authorize('session'), (_req, res) => void res.json({ ok: true }));
  app.get('/audit', api.authorize({ permissions: 'reports.view|audits.view', mode: 'all' }), ok);
  app.get('/either', api.authorize({ permissions: ['reports.create', 'audits.view'] }), ok);
  app.get('/unknown', api.authorize({ permissions: 'payroll.view' }), ok);
  app.get('/controller', api.authorize({ controller: 'ReportsController', method: 'store' }), ok);
  app.get('/', api.authorize(), ok);
  app.use(errorMiddleware(api.log));
  return { app, api };
}

describe('permission middleware (api.authorize)', () => {
  it('401 without a user, decided before any permission; 403 Forbidden without the permission', async () => {
    const { app } = appWith();
    const anon = await request(app).delete('/reports/1');
    expect(anon.status).to.equal(401);
    expect(anon.body).to.deep.equal({ message: 'Unauthenticated.', type: 'unauthenticated', status: 401 });
    const denied = await request(app).post('/reports').set('x-user', 'reader');
    expect(denied.status).to.equal(403);
    expect(denied.body).to.deep.equal({ message: 'Forbidden', type: 'forbidden', status: 403 });
    expect((await request(app).get('/reports/1').set('x-user', 'reader')).status).to.equal(200);
    expect((await request(app).post('/reports').set('x-user', 'writer')).status).to.equal(200);
  });

  it('debug names the missing permission', async () => {
    const { app } = appWith({ debug: true });
    const denied = await request(app).post('/reports').set('x-user', 'reader');
    expect(denied.body.message).to.equal('Forbidden: report.create');
    // no role holds a delete grant on reports: denied by default (decision 63), naming it
    const unnamed = await request(app).delete('/reports/1').set('x-user', 'writer');
    expect(unnamed.status).to.equal(403);
    expect(unnamed.body.message).to.equal('Forbidden: report.delete');
  });

  it('mode all needs every permission, any needs one', async () => {
    const { app } = appWith({ debug: true });
    expect((await request(app).get('/audit').set('x-user', 'both')).status).to.equal(200);
    const partial = await request(app).get('/audit').set('x-user', 'reader');
    expect(partial.status).to.equal(403);
    expect(partial.body.message).to.equal('Forbidden: audits.view');
    expect((await request(app).get('/either').set('x-user', 'both')).status).to.equal(200);
    expect((await request(app).get('/either').set('x-user', 'writer')).status).to.equal(200);
    expect((await request(app).get('/either').set('x-user', 'reader')).status).to.equal(403);
  });

  it('guard priority: route override, then the middleware parameter, then the default guard', async () => {
    const { app } = appWith();
    // the default guard (bearer) does not read the session header
    expect((await request(app).get('/reports/1').set('x-session', 'reader')).status).to.equal(401);
    expect((await request(app).get('/session/reports').set('x-session', 'reader')).status).to.equal(200);
    expect((await request(app).get('/session/reports').set('x-user', 'reader')).status).to.equal(401);
    // the session guard found the user (no 401); `by-param.view` is named by no grant: 403 by default, 200 when lenient
    expect((await request(app).get('/by-param').set('x-session', 'reader')).status).to.equal(403);
    expect((await request(appWith({ permissionMap: { strict: false } }).app).get('/by-param').set('x-session', 'reader')).status).to.equal(200);
    expect(() => appWith().api.authorize('nope')).to.throw(/no guard named "nope"/);
  });

  it('the controller convention derives product-style names', async () => {
    const { app } = appWith({ debug: true });
    expect((await request(app).get('/controller').set('x-user', 'writer')).status).to.equal(200);
    expect((await request(app).get('/controller').set('x-user', 'reader')).body.message).to.equal('Forbidden: report.create');
  });

  it('a permission no grant mentions is denied by default; strict: false or PERMISSION_STRICT_MODE=false lets it pass (decision 63)', async () => {
    const strict = appWith().app;
    expect((await request(strict).get('/unknown').set('x-user', 'reader')).status).to.equal(403);
    expect((await request(strict).get('/reports/1').set('x-user', 'reader')).status).to.equal(200);
    expect((await request(appWith({ permissionMap: { strict: true } }).app).get('/unknown').set('x-user', 'reader')).status).to.equal(403);
    const lenient = appWith({ permissionMap: { strict: false } }).app;
    expect((await request(lenient).get('/unknown').set('x-user', 'reader')).status).to.equal(200);
    // no permission derivable at all (no name, no path segment): strict denies it, lenient lets it pass
    expect((await request(strict).get('/').set('x-user', 'reader')).status).to.equal(403);
    expect((await request(strict).get('/').set('x-user', 'root')).status).to.equal(200);
    expect((await request(lenient).get('/').set('x-user', 'reader')).status).to.equal(200);
    // lenient: a grant that exists is still enforced
    expect((await request(lenient).post('/reports').set('x-user', 'reader')).status).to.equal(403);
    const saved = process.env.PERMISSION_STRICT_MODE;
    try {
      process.env.PERMISSION_STRICT_MODE = 'false';
      expect((await request(appWith().app).get('/unknown').set('x-user', 'reader')).status).to.equal(200);
      // the option wins over the environment
      expect((await request(appWith({ permissionMap: { strict: true } }).app).get('/unknown').set('x-user', 'reader')).status).to.equal(403);
      process.env.PERMISSION_STRICT_MODE = 'true';
      expect((await request(appWith().app).get('/unknown').set('x-user', 'reader')).status).to.equal(403);
    } finally {
      if (saved === undefined) delete process.env.PERMISSION_STRICT_MODE;
      else process.env.PERMISSION_STRICT_MODE = saved;
    }
  });

  it('a superuser bypasses every check; unknown role names grant nothing', async () => {
    const { app } = appWith({ permissionMap: { strict: true } });
    for (const path of ['/unknown', '/audit', '/reports/1']) expect((await request(app).get(path).set('x-user', 'root')).status).to.equal(200);
    expect((await request(app).delete('/reports/1').set('x-user', 'root')).status).to.equal(200);
    expect((await request(app).get('/reports/1').set('x-user', 'ghost')).status).to.equal(403);
  });

  it('the team hook runs after authentication and before the check', async () => {
    const { app } = appWith({
      beforeCheck: (req, ctx) => {
        if (req.get('x-team') === 'writers') ctx.roles = ['writer'];
      },
    });
    expect((await request(app).post('/reports').set('x-user', 'reader')).status).to.equal(403);
    expect((await request(app).post('/reports').set('x-user', 'reader').set('x-team', 'writers')).status).to.equal(200);
  });

  it('grants live in memory and change with an explicit reload', async () => {
    const { app, api } = appWith();
    expect((await request(app).post('/reports').set('x-user', 'reader')).status).to.equal(403);
    api.permissions.reload({ ...grants, reader: { reports: { 'read:any': ['*'], 'create:any': ['*'] } } });
    expect((await request(app).post('/reports').set('x-user', 'reader')).status).to.equal(200);
    api.permissions.reload(grants);
    expect((await request(app).post('/reports').set('x-user', 'reader')).status).to.equal(403);
  });

  it('an authenticate function that throws or answers garbage is a 500, never a pass', async () => {
    const session = () => null;
    const broken = appWith({ guards: { bearer: () => ({ name: 'no id' }) as never, session } }).app;
    expect((await request(broken).get('/reports/1')).status).to.equal(500);
    const failing = appWith({ guards: { bearer: () => Promise.reject(new Error('directory down')), session } }).app;
    expect((await request(failing).get('/reports/1')).status).to.equal(500);
  });

  it('misconfiguration fails at start, not per request', () => {
    expect(() => createRestApi({ auth: {} })).to.throw(/authenticate function or named guards/);
    expect(() => createRestApi({ auth: { authenticate: () => null, defaultGuard: 'x' } })).to.throw(/no guard named "x"/);
    expect(() => createRestApi({ auth: { authenticate: () => null, grants: { admin: { x: { 'fly:any': ['*'] } } } } })).to.throw();
  });
});
