import { expect } from 'chai';
import { API, expectError, expectValidation, forEachDriver, type Member } from '../support/contract-app';

/**
 * Issue 28 item 1, decision 68: an admin of the example shop tries to make itself (or anyone) a
 * superuser, through every write route of users. Roles are data a caller can write; the users
 * resource declares `grantableRoles: {admin: ['viewer', 'customer', 'editor', 'admin']}` and only
 * a superuser writes `is_superuser`. Each refusal is a 422 naming the field, and the stored user is
 * unchanged afterwards (read back as the superuser).
 */
forEachDriver('hostile: role escalation through users', (ctx) => {
  let admin: Member;
  let editor: Member;

  before(async () => {
    await ctx.reset();
    admin = await ctx.member(['admin']);
    editor = await ctx.member(['editor']);
  });

  const stored = async (member: Member) => {
    const rec = await ctx.fetch('users', member.user.id);
    return { roles: rec.roles, is_superuser: rec.is_superuser };
  };

  it('PATCH /users/{own id} with roles [admin, superuser] is a 422 naming roles; the admin stays an admin', async () => {
    const res = await admin.agent().patch(`${API}/users/${admin.user.id}`).send({ roles: ['admin', 'superuser'] });
    const errors = expectValidation(res, 'roles');
    expect(errors.roles.join(' ')).to.include('you may not grant: superuser');
    expect(Object.keys(errors)).to.deep.equal(['roles']);
    expect(await stored(admin)).to.deep.equal({ roles: ['admin'], is_superuser: false });
  });

  it('is_superuser is written by no one but a superuser: 422 prohibited on PATCH, PUT, create and bulk', async () => {
    const self = `${API}/users/${admin.user.id}`;
    expect(expectValidation(await admin.agent().patch(self).send({ is_superuser: true }), 'is_superuser').is_superuser).to.deep.equal(['The is_superuser field is prohibited.']);
    expectValidation(await admin.agent().put(self).send({ name: 'Me', is_superuser: true }), 'is_superuser');
    expectValidation(await admin.agent().patch(self).send({ roles: ['admin', 'superuser'], is_superuser: true }), 'roles', 'is_superuser');
    const before = await ctx.count('users');
    expectValidation(await admin.agent().post(`${API}/users`).send({ name: 'Root 2', email: `${ctx.unique('r')}@example.test`, is_superuser: true }), 'is_superuser');
    expect(await ctx.count('users')).to.equal(before);
    expect(await stored(admin)).to.deep.equal({ roles: ['admin'], is_superuser: false });
    // still an admin, not a superuser: a superuser-only write stays refused
    expectValidation(await admin.agent().patch(self).send({ is_superuser: true }), 'is_superuser');
  });

  it('bulk routes: PATCH /users/batch and POST /users/update-multiple refuse the item; nothing is written', async () => {
    const other = await ctx.member(['viewer']);
    const batch = await admin
      .agent()
      .patch(`${API}/users/batch`)
      .send({ user: [{ id: other.user.id, roles: ['editor'] }, { id: admin.user.id, roles: ['admin', 'superuser'] }] });
    const errors = expectValidation(batch, 'user.1.roles');
    expect(errors).to.not.have.property('user.0.roles');
    const multi = await admin.agent().post(`${API}/users/update-multiple`).send({ user: [{ id: admin.user.id, roles: ['superuser'], is_superuser: true }] });
    expectValidation(multi, 'user.0.roles', 'user.0.is_superuser');
    expect(await stored(other)).to.deep.equal({ roles: ['viewer'], is_superuser: false });
    expect(await stored(admin)).to.deep.equal({ roles: ['admin'], is_superuser: false });
  });

  it('create, one or many: a role outside the grantable list is a 422 and no user is created', async () => {
    const before = await ctx.count('users');
    const email = () => `${ctx.unique('g')}@example.test`;
    expectValidation(await admin.agent().post(`${API}/users`).send({ name: 'S', email: email(), roles: ['superuser'] }), 'roles');
    const many = await admin.agent().post(`${API}/users`).send({ user: [{ name: 'A', email: email(), roles: ['viewer'] }, { name: 'B', email: email(), roles: ['customer', 'superuser'] }] });
    expectValidation(many, 'user.1.roles');
    expect(await ctx.count('users')).to.equal(before);
    // the four roles of the shop are the admin's to grant
    const ok = await admin.agent().post(`${API}/users`).send({ name: 'Staff', email: email(), roles: ['viewer', 'customer', 'editor', 'admin'] });
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.body.model.roles).to.deep.equal(['viewer', 'customer', 'editor', 'admin']);
    expect(await ctx.count('users')).to.equal(before + 1);
  });

  it('a superuser writes roles and is_superuser; `superuser` is still no role name of the shop', async () => {
    const target = await ctx.member(['viewer']);
    const res = await ctx.request().patch(`${API}/users/${target.user.id}`).send({ roles: ['editor', 'admin'], is_superuser: true });
    expect(res.status, res.text).to.equal(200);
    expect(await stored(target)).to.deep.equal({ roles: ['editor', 'admin'], is_superuser: true });
    const named = await ctx.request().patch(`${API}/users/${target.user.id}`).send({ roles: ['superuser'] });
    expect(expectValidation(named, 'roles').roles.join(' ')).to.include('must be among viewer, customer, editor, admin');
    expect(await stored(target)).to.deep.equal({ roles: ['editor', 'admin'], is_superuser: true });
  });

  it('roles sent as a string ("admin") is one 422 message under roles, not the same one twice; nothing written', async () => {
    const target = await ctx.member(['viewer']);
    for (const agent of [admin.agent(), ctx.request()]) {
      const errors = expectValidation(await agent.patch(`${API}/users/${target.user.id}`).send({ roles: 'admin' }), 'roles');
      expect(errors.roles).to.deep.equal(['The roles must be an array.']);
    }
    const created = await admin.agent().post(`${API}/users`).send({ name: 'S', email: `${ctx.unique('s')}@example.test`, roles: 'viewer' });
    expect(expectValidation(created, 'roles').roles).to.deep.equal(['The roles must be an array.']);
    expect(await stored(target)).to.deep.equal({ roles: ['viewer'], is_superuser: false });
  });

  it('a role without users grants cannot try: 403 before any field is read', async () => {
    const res = await editor.agent().patch(`${API}/users/${editor.user.id}`).send({ roles: ['admin'] });
    expectError(res, 403, 'forbidden');
    expect(await stored(editor)).to.deep.equal({ roles: ['editor'], is_superuser: false });
  });
});
