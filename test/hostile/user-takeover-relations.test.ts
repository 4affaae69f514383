import { expect } from 'chai';
import express from 'express';
import mongoose from 'mongoose';
import { DataTypes, Sequelize } from 'sequelize';
import request from 'supertest';
import { createRestApi, type AuthUser } from '../../lib';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * Decision 69 through the routes that write users as related records: a team's members (the
 * resource with grantableRoles and a superuser flag) under the relation routes (update, unlink,
 * bulk update), as nested writes of the team, and restore and force delete (members are
 * soft-deletable). An admin is refused a superuser member with a
 * 403 and nothing is written (the team's own change rolls back with it); a superuser may.
 */
type Models = { Team: unknown; Member: unknown };
interface Backend {
  models: Models;
  close(): Promise<void>;
}

const DRIVERS: Record<string, () => Promise<Backend>> = {
  mongo: async () => {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/user_takeover_relations';
    const c = await mongoose.createConnection(uri.toString()).asPromise();
    const ts = { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } };
    const Team = c.model('UtTeam', new mongoose.Schema({ name: String }, { ...ts, collection: 'ut_teams' }));
    const Member = c.model(
      'UtMember',
      new mongoose.Schema({ name: String, roles: { type: [String], default: [] }, is_superuser: { type: Boolean, default: false }, api_token: { type: String, default: null }, team_id: { type: mongoose.Schema.Types.ObjectId, ref: 'UtTeam', default: null }, deleted_at: { type: Date, default: null } }, { ...ts, collection: 'ut_members' }),
    );
    await c.dropDatabase();
    return { models: { Team, Member }, close: () => c.close() };
  },
  sql: async () => {
    const s = new Sequelize((await sharedPostgres()).uri, { logging: false });
    const o = (tableName: string) => ({ tableName, underscored: true, createdAt: 'created_at', updatedAt: 'updated_at' });
    const Team = s.define('UtTeam', { name: DataTypes.STRING }, o('ut_teams'));
    const Member = s.define(
      'UtMember',
      {
        name: DataTypes.STRING,
        roles: { type: DataTypes.ARRAY(DataTypes.STRING), defaultValue: [] },
        is_superuser: { type: DataTypes.BOOLEAN, defaultValue: false },
        api_token: { type: DataTypes.STRING, allowNull: true },
        team_id: { type: DataTypes.INTEGER, allowNull: true, references: { model: 'ut_teams', key: 'id' }, onDelete: 'SET NULL' },
        deleted_at: { type: DataTypes.DATE, allowNull: true },
      },
      o('ut_members'),
    );
    await s.query('DROP TABLE IF EXISTS "ut_members", "ut_teams" CASCADE');
    await s.sync();
    return { models: { Team, Member }, close: () => s.close() };
  },
};

const users: Record<string, AuthUser> = {
  admin: { id: 'admin-1', roles: ['admin'] },
  root: { id: 'root-1', roles: [], is_superuser: true },
  clerk: { id: 'clerk-1', roles: ['clerk'] },
};
const grants = {
  admin: {
    teams: { 'create:any': ['*'], 'read:any': ['*'], 'update:any': ['*'], 'delete:any': ['*'] },
    members: { 'create:any': ['*'], 'read:any': ['*'], 'update:any': ['*'], 'delete:any': ['*'] },
  },
  // may not read the guarded fields: the rule is judged on the stored values all the same
  clerk: { members: { 'read:any': ['*', '!roles', '!is_superuser'], 'update:any': ['*'], 'delete:any': ['*'] } },
};

for (const [driver, open] of Object.entries(DRIVERS)) {
  describe(`hostile: decision 69 through relation routes and nested writes [${driver}]`, function () {
    this.timeout(60_000);
    let backend: Backend;
    let app: express.Express;
    const as = (who: string) => ({
      get: (path: string) => request(app).get(`/api${path}`).set('x-user', who),
      post: (path: string, body: object) => request(app).post(`/api${path}`).set('x-user', who).send(body),
      put: (path: string, body: object, query: Record<string, string> = {}) => request(app).put(`/api${path}`).query(query).set('x-user', who).send(body),
      patch: (path: string, body: object) => request(app).patch(`/api${path}`).set('x-user', who).send(body),
      del: (path: string) => request(app).delete(`/api${path}`).set('x-user', who),
    });
    const make = async (path: string, body: object) => {
      const res = await as('root').post(path, body);
      expect(res.status, res.text).to.equal(200);
      return res.body.model as Record<string, unknown> & { id: string | number };
    };
    const member = async (id: unknown) => (await as('root').get(`/members/${id}`)).body as Record<string, unknown>;
    const forbidden = (res: request.Response) => {
      expect(res.status, res.text).to.equal(403);
      expect(res.body.type).to.equal('forbidden');
      expect(res.body.message).to.match(/only a superuser may change or delete a member who is a superuser/);
    };

    before(async () => {
      backend = await open();
      const api = createRestApi({ auth: { authenticate: (req) => users[String(req.get('x-user'))] ?? null, grants } })
        .register(
          { name: 'teams', MODEL: 'team', model: backend.models.Team as never, fillable: ['name'], RELATIONS: ['members'], relations: { members: { kind: 'hasMany', target: 'member', foreignKey: 'team_id' } }, nestedWrites: ['members'] },
          { relationRoutes: { oneToMany: { members: { relationship: 'members', foreignKey: 'team_id', mutation: { dataKey: 'members' } } } } },
        )
        .register({
          name: 'members',
          MODEL: 'member',
          model: backend.models.Member as never,
          fillable: ['name', 'roles', 'is_superuser', 'api_token', 'team_id'],
          writeOnly: ['api_token'],
          relations: { team: { kind: 'belongsTo', target: 'team', foreignKey: 'team_id', onDelete: 'setNull' } },
          fieldsByRole: { superuser: ['is_superuser'] },
          grantableRoles: { admin: ['staff', 'admin'] },
          softDelete: true,
        });
      app = express();
      app.use('/api', api.router());
    });
    after(async () => backend.close());

    it('PUT /teams/{id}/members/{superuser}: 403, the token and name unchanged; a staff member is updated', async () => {
      const team = await make('/teams', { name: 'T1' });
      const boss = await make('/members', { name: 'Boss', roles: ['admin'], is_superuser: true, api_token: 'boss-token', team_id: team.id });
      const staff = await make('/members', { name: 'Staff', roles: ['staff'], team_id: team.id });
      forbidden(await as('admin').put(`/teams/${team.id}/members/${boss.id}`, { api_token: 'mine', name: 'Taken' }));
      expect(await member(boss.id)).to.deep.include({ name: 'Boss', is_superuser: true });
      const ok = await as('admin').put(`/teams/${team.id}/members/${staff.id}`, { name: 'Staff 2' });
      expect(ok.status, ok.text).to.equal(200);
      expect((await member(staff.id)).name).to.equal('Staff 2');
    });

    it('PUT /teams/{id}/members (bulk) and DELETE /teams/{id}/members/{superuser} (deletes the related record): 403, nothing written', async () => {
      const team = await make('/teams', { name: 'T2' });
      const boss = await make('/members', { name: 'Boss', roles: [], is_superuser: true, team_id: team.id });
      const staff = await make('/members', { name: 'Staff', roles: ['staff'], team_id: team.id });
      forbidden(await as('admin').put(`/teams/${team.id}/members`, { members: [{ id: staff.id, name: 'S2' }, { id: boss.id, name: 'B2' }] }, { _scenario: 'bulk_update' }));
      forbidden(await as('admin').del(`/teams/${team.id}/members/${boss.id}`));
      expect(await member(boss.id)).to.deep.include({ name: 'Boss', team_id: team.id });
      expect((await member(staff.id)).name).to.equal('Staff');
    });

    it('nested writes: PATCH /teams/{id} updating or deleting a superuser member is a 403 that rolls the team back too', async () => {
      const team = await make('/teams', { name: 'T3' });
      const boss = await make('/members', { name: 'Boss', roles: [], is_superuser: true, team_id: team.id });
      forbidden(await as('admin').patch(`/teams/${team.id}`, { name: 'T3 renamed', members: { update: [{ id: boss.id, api_token: 'nested-token' }] } }));
      forbidden(await as('admin').patch(`/teams/${team.id}`, { name: 'T3 renamed', members: { delete: [boss.id] } }));
      expect((await as('root').get(`/teams/${team.id}`)).body.name).to.equal('T3');
      expect(await member(boss.id)).to.deep.include({ name: 'Boss', is_superuser: true, team_id: team.id });
    });

    it('DELETE /members/{superuser}, POST /members/{id}/restore and DELETE /members/{id}/force of a trashed superuser: 403; the superuser may', async () => {
      const boss = await make('/members', { name: 'Trashed boss', roles: [], is_superuser: true });
      forbidden(await as('admin').del(`/members/${boss.id}`));
      expect((await as('root').get(`/members/${boss.id}`)).status).to.equal(200);
      expect((await as('root').del(`/members/${boss.id}`)).status).to.equal(200);
      forbidden(await as('admin').post(`/members/${boss.id}/restore`, {}));
      forbidden(await as('admin').del(`/members/${boss.id}/force`));
      const trashed = await as('root').get(`/members/${boss.id}`).query({ soft_delete: 'with' });
      expect(trashed.status, trashed.text).to.equal(200);
      expect(trashed.body.deleted_at).to.be.a('string');
      expect((await as('root').post(`/members/${boss.id}/restore`, {})).status).to.equal(200);
      expect((await as('root').get(`/members/${boss.id}`)).status).to.equal(200);
      expect((await as('root').del(`/members/${boss.id}/force`)).status).to.equal(200);
      expect((await as('root').get(`/members/${boss.id}`).query({ soft_delete: 'with' })).status).to.equal(404);
      // a staff member: the admin may trash, restore and force-delete it
      const staff = await make('/members', { name: 'Staff', roles: ['staff'] });
      expect((await as('admin').del(`/members/${staff.id}`)).status).to.equal(200);
      expect((await as('admin').post(`/members/${staff.id}/restore`, {})).status).to.equal(200);
      expect((await as('admin').del(`/members/${staff.id}/force`)).status).to.equal(200);
    });

    it('a caller who may not read roles nor the superuser flag is judged on the stored values: 403 for a superuser, for a member holding a role; a member holding none may be changed', async () => {
      const boss = await make('/members', { name: 'Hidden boss', roles: [], is_superuser: true });
      const staff = await make('/members', { name: 'Hidden staff', roles: ['staff'] });
      const plain = await make('/members', { name: 'Plain', roles: [] });
      const shown = await as('clerk').get(`/members/${boss.id}`);
      expect(shown.body).to.not.have.property('is_superuser');
      forbidden(await as('clerk').del(`/members/${boss.id}`));
      forbidden(await as('clerk').patch(`/members/${boss.id}`, { name: 'x' }));
      const held = await as('clerk').del(`/members/${staff.id}`);
      expect([held.status, held.body.message]).to.deep.equal([403, 'Forbidden: you may change or delete a member only if you could grant every role it holds.']);
      expect((await member(boss.id)).name).to.equal('Hidden boss');
      expect((await as('root').get(`/members/${staff.id}`)).status).to.equal(200);
      expect((await as('clerk').patch(`/members/${plain.id}`, { name: 'Plain 2' })).status).to.equal(200);
      expect((await as('clerk').del(`/members/${plain.id}`)).status).to.equal(200);
    });

    it('the superuser may do all of it', async () => {
      const team = await make('/teams', { name: 'T4' });
      const boss = await make('/members', { name: 'Boss', roles: [], is_superuser: true, team_id: team.id });
      expect((await as('root').put(`/teams/${team.id}/members/${boss.id}`, { name: 'Boss 2' })).status).to.equal(200);
      const nested = await as('root').patch(`/teams/${team.id}`, { members: { update: [{ id: boss.id, name: 'Boss 3' }] } });
      expect(nested.status, nested.text).to.equal(200);
      expect((await member(boss.id)).name).to.equal('Boss 3');
      expect((await as('root').del(`/teams/${team.id}/members/${boss.id}`)).status).to.equal(200);
      expect((await as('root').get(`/members/${boss.id}`)).status).to.equal(404);
    });
  });
}
