import { expect } from 'chai';
import { API, expectError, expectValidation, forEachDriver, type Member } from '../support/contract-app';

/**
 * Issue 43 item 1, decision 69: "an admin takes over a superuser". On users (the resource that
 * declares grantableRoles) a caller updates or deletes a record only if it could grant every role
 * the record holds, and a superuser only as a superuser: on PUT/PATCH, PATCH /batch, POST
 * /update-multiple, destroy and DELETE /batch. Each refusal is a 403 that writes nothing: the
 * stored users (read back as the superuser) and their tokens are as before.
 */
forEachDriver('hostile: who may change a user (decision 69)', (ctx) => {
  let admin: Member;
  let root: Member;
  let viewer: Member;

  before(async () => {
    await ctx.reset();
  });
  beforeEach(async () => {
    admin = await ctx.member(['admin']);
    root = await ctx.member(['admin'], { is_superuser: true });
    viewer = await ctx.member(['viewer']);
  });

  const stored = async (member: Member) => {
    const rec = await ctx.fetch('users', member.user.id);
    return { name: rec.name, email: rec.email, roles: rec.roles, is_superuser: rec.is_superuser };
  };
  /** Whether a token names a user: 401 when it names no one (a user without users grants gets a 403 here, still known). */
  const tokenWorks = async (token: string) => (await ctx.as(token).get(`${API}/users`)).status !== 401;
  const refused = (res: { status: number; body: unknown; text: string }, why: RegExp) => expectError(res, 403, 'forbidden', why);
  const SUPERUSER = /only a superuser may change or delete a user who is a superuser/;
  const ROLES = /only if you could grant every role it holds/;

  describe('an admin against a superuser', () => {
    it('PATCH {api_token} is a 403: the new token names no one, the old one still works, and the admin cannot make itself a superuser with it', async () => {
      const before = await stored(root);
      refused(await admin.agent().patch(`${API}/users/${root.user.id}`).send({ api_token: 'taken-over-1' }), SUPERUSER);
      expect(await tokenWorks('taken-over-1')).to.equal(false);
      expect(await tokenWorks(root.token)).to.equal(true);
      expect(await stored(root)).to.deep.equal(before);
      // the takeover's second step stays refused
      expectValidation(await admin.agent().patch(`${API}/users/${admin.user.id}`).send({ is_superuser: true }), 'is_superuser');
      expect((await stored(admin)).is_superuser).to.equal(false);
    });

    it('PUT and PATCH of email, name or roles are 403s; nothing written', async () => {
      const before = await stored(root);
      const self = `${API}/users/${root.user.id}`;
      refused(await admin.agent().put(self).send({ name: 'Mine now', email: 'mine@example.test' }), SUPERUSER);
      refused(await admin.agent().patch(self).send({ roles: ['viewer'] }), SUPERUSER);
      refused(await admin.agent().patch(self).send({}), SUPERUSER);
      expect(await stored(root)).to.deep.equal(before);
    });

    it('PATCH /users/batch and POST /users/update-multiple with a superuser among the items: 403, no item written', async () => {
      const beforeRoot = await stored(root);
      const beforeViewer = await stored(viewer);
      const items = [{ id: viewer.user.id, name: 'Renamed viewer' }, { id: root.user.id, api_token: 'taken-over-2' }];
      refused(await admin.agent().patch(`${API}/users/batch`).send({ user: items }), SUPERUSER);
      refused(await admin.agent().post(`${API}/users/update-multiple`).send({ user: items }), SUPERUSER);
      expect(await stored(viewer)).to.deep.equal(beforeViewer);
      expect(await stored(root)).to.deep.equal(beforeRoot);
      expect(await tokenWorks('taken-over-2')).to.equal(false);
    });

    it('DELETE /users/{id} and DELETE /users/batch: 403, both users remain', async () => {
      refused(await admin.agent().delete(`${API}/users/${root.user.id}`), SUPERUSER);
      refused(await admin.agent().delete(`${API}/users/batch`).send({ ids: [viewer.user.id, root.user.id] }), SUPERUSER);
      expect(await stored(root)).to.include({ is_superuser: true });
      expect(await stored(viewer)).to.include({ name: viewer.user.name });
      expect(await tokenWorks(root.token)).to.equal(true);
    });

    it('a missing id in the same batch is still the 404 listing it (absence is answered before rights)', async () => {
      const absent = await ctx.absentId('users');
      const res = await admin.agent().delete(`${API}/users/batch`).send({ ids: [root.user.id, absent] });
      expectError(res, 404, 'not_found');
      expect(await stored(root)).to.include({ is_superuser: true });
    });
  });

  describe('roles the caller cannot grant', () => {
    it('a user holding a role outside the admin\'s grantable list (written before the rule) is neither changed nor deleted by an admin', async () => {
      const legacy = await ctx.member(['viewer']);
      await ctx.rawSetRoles(legacy.user, ['viewer', 'auditor']);
      refused(await admin.agent().patch(`${API}/users/${legacy.user.id}`).send({ api_token: 'taken-over-3' }), ROLES);
      refused(await admin.agent().patch(`${API}/users/batch`).send({ user: [{ id: legacy.user.id, name: 'x' }] }), ROLES);
      refused(await admin.agent().delete(`${API}/users/${legacy.user.id}`), ROLES);
      expect(await stored(legacy)).to.deep.include({ roles: ['viewer', 'auditor'], name: legacy.user.name });
      expect(await tokenWorks('taken-over-3')).to.equal(false);
      expect(await tokenWorks(legacy.token)).to.equal(true);
      // the superuser may
      const ok = await root.agent().patch(`${API}/users/${legacy.user.id}`).send({ name: 'Kept by root' });
      expect(ok.status, ok.text).to.equal(200);
      expect(await stored(legacy)).to.deep.include({ roles: ['viewer', 'auditor'], name: 'Kept by root' });
    });
  });

  describe('what stays allowed', () => {
    it('an admin rotates another admin\'s, a viewer\'s and its own token: 200, the new tokens work, the old ones no longer', async () => {
      const other = await ctx.member(['admin', 'editor']);
      for (const target of [other, viewer, admin]) {
        const fresh = `rotated-${ctx.unique()}`;
        const res = await admin.agent().patch(`${API}/users/${target.user.id}`).send({ api_token: fresh });
        expect(res.status, res.text).to.equal(200);
        expect(res.body.model).to.not.have.property('api_token');
        expect(await tokenWorks(fresh)).to.equal(true);
        expect(await tokenWorks(target.token)).to.equal(false);
      }
    });

    it('an admin updates and deletes users whose roles it could grant, in bulk too', async () => {
      const a = await ctx.member(['customer']);
      const b = await ctx.member(['editor', 'viewer']);
      const batch = await admin.agent().patch(`${API}/users/batch`).send({ user: [{ id: a.user.id, name: 'A2' }, { id: b.user.id, name: 'B2' }] });
      expect(batch.status, batch.text).to.equal(200);
      expect([(await stored(a)).name, (await stored(b)).name]).to.deep.equal(['A2', 'B2']);
      const del = await admin.agent().delete(`${API}/users/batch`).send({ ids: [a.user.id, b.user.id] });
      expect(del.status, del.text).to.equal(200);
      expect(del.body.deleted).to.equal(2);
      expect((await ctx.get(`/users/${a.user.id}`)).status).to.equal(404);
    });

    it('a superuser updates, rotates the token of and deletes another superuser', async () => {
      const other = await ctx.member(['admin'], { is_superuser: true });
      const fresh = `root-rotated-${ctx.unique()}`;
      const res = await root.agent().patch(`${API}/users/${other.user.id}`).send({ api_token: fresh, name: 'Other root' });
      expect(res.status, res.text).to.equal(200);
      expect(await tokenWorks(fresh)).to.equal(true);
      expect(await tokenWorks(other.token)).to.equal(false);
      const del = await root.agent().delete(`${API}/users/${other.user.id}`);
      expect(del.status, del.text).to.equal(200);
      expect((await ctx.get(`/users/${other.user.id}`)).status).to.equal(404);
    });
  });

  describe('roles without users grants', () => {
    it('an editor or a viewer is refused before any record is read (403), whatever the target', async () => {
      const editor = await ctx.member(['editor']);
      for (const member of [editor, viewer]) {
        expectError(await member.agent().patch(`${API}/users/${root.user.id}`).send({ api_token: 'x-takeover' }), 403, 'forbidden');
        expectError(await member.agent().delete(`${API}/users/${admin.user.id}`), 403, 'forbidden');
      }
      expect(await tokenWorks(root.token)).to.equal(true);
      expect(await tokenWorks(admin.token)).to.equal(true);
    });
  });
});
