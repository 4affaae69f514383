import { expect } from 'chai';
import express from 'express';
import mongoose from 'mongoose';
import { Writable } from 'node:stream';
import { DataTypes, Sequelize } from 'sequelize';
import request from 'supertest';
import winston from 'winston';
import { createExampleApp } from '../../example-app/app';
import { createRestApi, type AuthOptions, type AuthUser } from '../../lib';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * Safe defaults of the permission layer, on both drivers (decisions 63 and 68): a permission no
 * grant names is denied unless the application asks for lenient mode (then the start log names the
 * routes open to any authenticated user), and `grantableRoles` bounds the role names a caller may
 * write into a roles field. Every refusal is checked to have written nothing.
 */

const users: Record<string, AuthUser> = {
  reader: { id: 1, roles: ['reader'] },
  manager: { id: 2, roles: ['manager'] },
  lead: { id: 3, roles: ['lead'] },
  root: { id: 4, roles: [], is_superuser: true },
};

/** reader: notes read only; manager: members and teams everything; lead: members update. No grant names notes create/update/delete. */
const grants = {
  reader: { notes: { 'read:any': ['*'] } },
  manager: {
    members: { 'create:any': ['*'], 'read:any': ['*'], 'update:any': ['*'], 'delete:any': ['*'] },
    teams: { 'create:any': ['*'], 'read:any': ['*'], 'update:any': ['*'], 'delete:any': ['*'] },
  },
  lead: { members: { 'read:any': ['*'], 'update:any': ['*'] } },
};

type Models = { Note: unknown; Member: unknown; Team: unknown };
interface Backend {
  models: Models;
  count(model: keyof Models): Promise<number>;
  rolesOf(model: 'Member' | 'Team', id: string | number): Promise<string[]>;
  close(): Promise<void>;
}

const DRIVERS: Record<string, () => Promise<Backend>> = {
  mongo: async () => {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/auth_defaults_test';
    const connection = await mongoose.createConnection(uri.toString()).asPromise();
    const timestamps = { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } };
    const Note = connection.model('Note', new mongoose.Schema({ title: String }, timestamps));
    const Member = connection.model('Member', new mongoose.Schema({ name: String, roles: [String] }, timestamps));
    const Team = connection.model('Team', new mongoose.Schema({ name: String, groups: [String] }, timestamps));
    for (const m of [Note, Member, Team]) await m.deleteMany({});
    const byName = { Note, Member, Team } as unknown as Record<string, mongoose.Model<Record<string, unknown>>>;
    return {
      models: { Note, Member, Team },
      count: (model) => byName[model].countDocuments(),
      rolesOf: async (model, id) => {
        const doc = await byName[model].findById(id).lean();
        return [...((doc?.[model === 'Member' ? 'roles' : 'groups'] as string[] | undefined) ?? [])];
      },
      close: async () => {
        await connection.dropDatabase();
        await connection.close();
      },
    };
  },
  sql: async () => {
    const sequelize = new Sequelize((await sharedPostgres()).uri, { logging: false });
    const options = (tableName: string) => ({ tableName, underscored: true, createdAt: 'created_at', updatedAt: 'updated_at' });
    const Note = sequelize.define('Note', { title: DataTypes.STRING }, options('authd_notes'));
    const Member = sequelize.define('Member', { name: DataTypes.STRING, roles: { type: DataTypes.ARRAY(DataTypes.STRING), defaultValue: [] } }, options('authd_members'));
    const Team = sequelize.define('Team', { name: DataTypes.STRING, groups: { type: DataTypes.ARRAY(DataTypes.STRING), defaultValue: [] } }, options('authd_teams'));
    await sequelize.sync({ force: true });
    const byName = { Note, Member, Team };
    return {
      models: { Note, Member, Team },
      count: (model) => byName[model].count(),
      rolesOf: async (model, id) => {
        const row = (await byName[model].findByPk(id, { raw: true })) as Record<string, unknown> | null;
        return [...((row?.[model === 'Member' ? 'roles' : 'groups'] as string[] | undefined) ?? [])];
      },
      close: async () => {
        for (const table of ['authd_notes', 'authd_members', 'authd_teams']) await sequelize.getQueryInterface().dropTable(table);
        await sequelize.close();
      },
    };
  },
};

/** A winston logger whose lines land in an array. */
function memoryLogger(): { logger: winston.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: winston.createLogger({ level: 'debug', format: winston.format.json(), transports: [new winston.transports.Stream({ stream })] }), lines };
}

function appOf(backend: Backend, auth: Partial<AuthOptions> = {}, logger = memoryLogger().logger) {
  const api = createRestApi({
    logger,
    auth: { authenticate: (req) => users[String(req.get('x-user'))] ?? null, grants, ...auth },
  })
    .register({ name: 'notes', MODEL: 'note', model: backend.models.Note, fillable: ['title'] })
    .register({ name: 'members', MODEL: 'member', model: backend.models.Member, fillable: ['name', 'roles'], grantableRoles: { manager: ['staff', 'manager'], lead: ['staff'] } })
    .register({ name: 'teams', MODEL: 'team', model: backend.models.Team, fillable: ['name', 'groups'], grantableRoles: { manager: ['blue'] }, rolesField: 'groups' });
  const app = express();
  app.use('/api', api.router());
  return { app, api };
}

for (const [driver, open] of Object.entries(DRIVERS)) {
  describe(`permissions: strict by default, grantable roles [${driver}]`, function () {
    this.timeout(60_000);
    let backend: Backend;

    before(async () => {
      backend = await open();
    });
    after(async () => backend?.close());

    const as = (app: express.Express, who: string) => ({
      post: (path: string, body: unknown) => request(app).post(`/api${path}`).set('x-user', who).send(body as object),
      patch: (path: string, body: unknown) => request(app).patch(`/api${path}`).set('x-user', who).send(body as object),
      put: (path: string, body: unknown) => request(app).put(`/api${path}`).set('x-user', who).send(body as object),
      del: (path: string) => request(app).delete(`/api${path}`).set('x-user', who),
      get: (path: string) => request(app).get(`/api${path}`).set('x-user', who),
    });

    describe('decision 63: strict by default', () => {
      it('a role granted only read:any gets 403 on create, update and delete; nothing is written', async () => {
        const { app } = appOf(backend, { debug: true });
        const note = await as(app, 'root').post('/notes', { title: 'kept' });
        expect(note.status, note.text).to.equal(200);
        const id = note.body.model.id;
        const reader = as(app, 'reader');
        expect((await reader.get('/notes')).status).to.equal(200);
        expect((await reader.get(`/notes/${id}`)).status).to.equal(200);
        const denied = [
          await reader.post('/notes', { title: 'new' }),
          await reader.patch(`/notes/${id}`, { title: 'changed' }),
          await reader.put(`/notes/${id}`, { title: 'changed' }),
          await reader.patch('/notes/batch', { note: [{ id, title: 'changed' }] }),
          await reader.del(`/notes/${id}`),
          await request(app).delete('/api/notes/batch').set('x-user', 'reader').send({ ids: [id] }),
        ];
        for (const res of denied) {
          expect(res.status, res.text).to.equal(403);
          expect(res.body.type).to.equal('forbidden');
          expect(res.body.message).to.match(/^Forbidden: notes\.(store|update|delete)$/);
        }
        // a role no grant at all mentions for notes: denied too
        expect((await as(app, 'manager').get('/notes')).status).to.equal(403);
        expect(await backend.count('Note')).to.equal(1);
        expect((await as(app, 'root').get(`/notes/${id}`)).body.title).to.equal('kept');
        // no user is still a 401 before any permission
        expect((await request(app).post('/api/notes').send({ title: 'x' })).status).to.equal(401);
        expect((await as(app, 'root').del(`/notes/${id}`)).status).to.equal(200);
      });

      it('strict: false (or PERMISSION_STRICT_MODE=false) lets them pass, and the start log names every open route', async () => {
        const { logger, lines } = memoryLogger();
        const { app } = appOf(backend, { permissionMap: { strict: false } }, logger);
        const created = await as(app, 'reader').post('/notes', { title: 'lenient' });
        expect(created.status, created.text).to.equal(200);
        const id = created.body.model.id;
        expect((await as(app, 'reader').patch(`/notes/${id}`, { title: 'lenient 2' })).status).to.equal(200);
        expect((await as(app, 'reader').del(`/notes/${id}`)).status).to.equal(200);
        expect(await backend.count('Note')).to.equal(0);
        // a grant that exists is still enforced: reader holds nothing on members
        expect((await as(app, 'reader').post('/members', { name: 'x' })).status).to.equal(403);

        const warning = lines.find((l) => l.level === 'warn' && Array.isArray(l.openRoutes));
        expect(warning, JSON.stringify(lines)).to.not.equal(undefined);
        const open = warning!.openRoutes as Array<{ name: string; method: string; path: string; permissions: string[] }>;
        const names = open.map((r) => r.name);
        for (const name of ['notes.store', 'notes.update', 'notes.updatePatch', 'notes.destroy', 'notes.validate', 'notes.deleteById']) expect(names).to.include(name);
        expect(names.filter((n) => !n.startsWith('notes.')), 'members and teams are named by grants').to.deep.equal([]);
        expect(names).to.not.include('notes.index');
        expect(open.find((r) => r.name === 'notes.store')).to.deep.include({ method: 'POST', path: '/notes', permissions: ['notes.store'] });
        expect(warning!.message).to.include('POST /notes (notes.store: notes.store)');

        const saved = process.env.PERMISSION_STRICT_MODE;
        try {
          process.env.PERMISSION_STRICT_MODE = 'false';
          const env = appOf(backend).app;
          const res = await as(env, 'reader').post('/notes', { title: 'env' });
          expect(res.status, res.text).to.equal(200);
          expect((await as(env, 'reader').del(`/notes/${res.body.model.id}`)).status).to.equal(200);
        } finally {
          if (saved === undefined) delete process.env.PERMISSION_STRICT_MODE;
          else process.env.PERMISSION_STRICT_MODE = saved;
        }
      });

      it('strict mode logs no open routes at start', async () => {
        const { logger, lines } = memoryLogger();
        appOf(backend, {}, logger).api.router();
        expect(lines.filter((l) => Array.isArray(l.openRoutes))).to.deep.equal([]);
      });
    });

    describe('decision 68: grantableRoles', () => {
      let app: express.Express;
      before(() => {
        app = appOf(backend, {}).app;
      });

      const expectRefused = (res: request.Response, path: string, names: string) => {
        expect(res.status, res.text).to.equal(422);
        expect(res.body.type).to.equal('validation_error');
        expect(res.body.errors).to.have.property(path);
        expect(res.body.errors[path].join(' ')).to.include(`you may not grant: ${names}`);
      };

      it('create: a role name the caller may not grant is a 422 naming the field; nothing is written', async () => {
        const before = await backend.count('Member');
        expectRefused(await as(app, 'manager').post('/members', { name: 'A', roles: ['staff', 'auditor'] }), 'roles', 'auditor');
        expectRefused(await as(app, 'manager').post('/members', { name: 'A', roles: 'auditor' }), 'roles', 'auditor');
        const bulk = await as(app, 'manager').post('/members', { member: [{ name: 'ok', roles: ['staff'] }, { name: 'bad', roles: ['manager', 'root', 'auditor'] }] });
        expectRefused(bulk, 'member.1.roles', 'root, auditor');
        expect(bulk.body.errors).to.not.have.property('member.0.roles');
        // /validate says the same and writes nothing either
        expectRefused(await as(app, 'manager').post('/members/validate', { name: 'A', roles: ['auditor'] }), 'roles', 'auditor');
        expect(await backend.count('Member')).to.equal(before);

        const ok = await as(app, 'manager').post('/members', { name: 'B', roles: ['staff', 'manager'] });
        expect(ok.status, ok.text).to.equal(200);
        expect(await backend.rolesOf('Member', ok.body.model.id)).to.deep.equal(['staff', 'manager']);
      });

      it('update, PUT, batch and update-multiple: refused per item; the record keeps its roles', async () => {
        const made = await as(app, 'root').post('/members', { name: 'C', roles: ['staff'] });
        const other = await as(app, 'root').post('/members', { name: 'D', roles: ['staff'] });
        const id = made.body.model.id;
        const id2 = other.body.model.id;
        // lead grants only staff: manager is beyond it
        expectRefused(await as(app, 'lead').patch(`/members/${id}`, { roles: ['staff', 'manager'] }), 'roles', 'manager');
        expectRefused(await as(app, 'lead').put(`/members/${id}`, { name: 'C2', roles: ['manager'] }), 'roles', 'manager');
        const batch = await as(app, 'lead').patch('/members/batch', { member: [{ id: id2, roles: ['staff'] }, { id, roles: ['manager'] }] });
        expectRefused(batch, 'member.1.roles', 'manager');
        expectRefused(await as(app, 'lead').post('/members/update-multiple', { member: [{ id, roles: ['superuser'] }] }), 'member.0.roles', 'superuser');
        expect(await backend.rolesOf('Member', id)).to.deep.equal(['staff']);
        const shown = await as(app, 'root').get(`/members/${id}`);
        expect(shown.body.name).to.equal('C');

        // within the list: accepted; removing a role is not refused
        expect((await as(app, 'lead').patch(`/members/${id}`, { roles: ['staff', 'staff'] })).status).to.equal(200);
        expect((await as(app, 'manager').patch(`/members/${id}`, { roles: ['manager'] })).status).to.equal(200);
        expect(await backend.rolesOf('Member', id)).to.deep.equal(['manager']);
        // decision 69: the lead may not change a member holding a role it could not grant (manager), not even to remove it
        const held = await as(app, 'lead').patch(`/members/${id}`, { roles: [] });
        expect(held.status, held.text).to.equal(403);
        expect(held.body.message).to.match(/only if you could grant every role it holds/);
        expect(await backend.rolesOf('Member', id)).to.deep.equal(['manager']);
        expect((await as(app, 'manager').patch(`/members/${id}`, { roles: [] })).status).to.equal(200);
        expect(await backend.rolesOf('Member', id)).to.deep.equal([]);
        // other fields are not affected
        expect((await as(app, 'lead').patch(`/members/${id}`, { name: 'C3' })).status).to.equal(200);
      });

      it('a superuser writes any role name; the caller cannot grant what it holds unless listed', async () => {
        const made = await as(app, 'root').post('/members', { name: 'E', roles: ['auditor', 'root'] });
        expect(made.status, made.text).to.equal(200);
        expect(await backend.rolesOf('Member', made.body.model.id)).to.deep.equal(['auditor', 'root']);
        const patched = await as(app, 'root').patch(`/members/${made.body.model.id}`, { roles: ['anything'] });
        expect(patched.status).to.equal(200);
        expect(await backend.rolesOf('Member', made.body.model.id)).to.deep.equal(['anything']);
        // lead holds `lead` but may grant only staff
        expectRefused(await as(app, 'lead').patch(`/members/${made.body.model.id}`, { roles: ['lead'] }), 'roles', 'lead');
      });

      it('rolesField names another field', async () => {
        const before = await backend.count('Team');
        expect((await as(app, 'root').post('/teams', { name: 'ok', groups: ['red'] })).status).to.equal(200);
        expectRefused(await as(app, 'manager').post('/teams', { name: 'T', groups: ['red'] }), 'groups', 'red');
        expect(await backend.count('Team')).to.equal(before + 1);
        const ok = await as(app, 'manager').post('/teams', { name: 'T', groups: ['blue'] });
        expect(ok.status, ok.text).to.equal(200);
        expect(await backend.rolesOf('Team', ok.body.model.id)).to.deep.equal(['blue']);
      });

      it('a misdeclared grantableRoles fails at start', async () => {
        const bad = () =>
          createRestApi({ auth: { authenticate: () => null, grants } })
            .register({ name: 'members', MODEL: 'member', model: backend.models.Member, fillable: ['name', 'roles'], grantableRoles: { manager: 'staff' as never } })
            .router();
        expect(bad).to.throw(/grantableRoles/);
        const missing = () =>
          createRestApi({ auth: { authenticate: () => null, grants } })
            .register({ name: 'notes', MODEL: 'note', model: backend.models.Note, fillable: ['title'], grantableRoles: { manager: ['staff'] } })
            .router();
        expect(missing).to.throw(/rolesField.*"roles" is not a field/);
      });
    });
  });
}

describe('the example app under strict permissions', function () {
  this.timeout(60_000);

  it('its grants name every generated route: lenient mode would open none (so strict denies none of its roles\' rights); its docs are public', async () => {
    const { logger, lines } = memoryLogger();
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/auth_defaults_example';
    const saved = process.env.PERMISSION_STRICT_MODE;
    process.env.PERMISSION_STRICT_MODE = 'false';
    let shop: Awaited<ReturnType<typeof createExampleApp>> | undefined;
    try {
      shop = await createExampleApp({ driver: 'mongo', mongoUri: uri.toString(), logger });
      expect(shop.api.routes().all().length).to.be.greaterThan(50);
      expect(lines.filter((l) => Array.isArray(l.openRoutes)).map((l) => l.openRoutes)).to.deep.equal([]);
      // decision 68: its API description and docs page answer without a token
      const doc = await request(shop.app).get('/api/v1/openapi.json');
      expect(doc.status, doc.text).to.equal(200);
      expect(doc.body.paths).to.have.property('/users');
      expect((await request(shop.app).get('/api/v1/docs')).status).to.equal(200);
      expect((await request(shop.app).get('/api/v1/users')).status).to.equal(401);
    } finally {
      if (saved === undefined) delete process.env.PERMISSION_STRICT_MODE;
      else process.env.PERMISSION_STRICT_MODE = saved;
      await shop?.close();
    }
  });
});
