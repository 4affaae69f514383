import { expect } from 'chai';
import { changeGuard, rolesRule } from '../../../lib/service/declarations/grantable-roles';
import { createContext } from '../../../lib/service/request-context';
import type { ModelInfo } from '../../../lib/resource/model-info';

/** Decisions 68 and 69 as pure rules: what a caller may write into roles, and which users it may change. */
describe('grantable roles: the write rule and the change guard', () => {
  const grantable = { admin: ['viewer', 'customer', 'editor', 'admin'] };
  const users = { name: 'user', key: 'id', fields: { id: {}, roles: {}, is_superuser: {} } } as unknown as ModelInfo;
  const noFlag = { name: 'member', key: 'id', fields: { id: {}, roles: {} } } as unknown as ModelInfo;
  const caller = (roles: string[], is_superuser = false, id: string | number = 1) => createContext({ user: { id, roles, is_superuser } });

  it('rolesRule: names outside the caller\'s grantable list are refused; a string counts as one name; a superuser is unchecked', () => {
    const rule = rolesRule(grantable, undefined, caller(['admin']))!;
    expect(rule.check(['viewer', 'admin'])).to.equal(null);
    expect(rule.check('superuser')).to.equal('The roles field contains a role you may not grant: superuser.');
    expect(rolesRule(grantable, undefined, caller(['admin'], true))).to.equal(null);
  });

  it('changeGuard: a superuser record only as a superuser, a record only if every role it holds is grantable, one\'s own record always', () => {
    const guard = changeGuard({ grantableRoles: grantable }, users, caller(['admin']))!;
    expect(guard.fields).to.deep.equal(['roles', 'is_superuser']);
    expect(guard.refusal({ id: 2, roles: ['admin'], is_superuser: false })).to.equal(null);
    expect(guard.refusal({ id: 2, roles: [], is_superuser: false })).to.equal(null);
    expect(guard.refusal({ id: 2, roles: ['admin'], is_superuser: true })).to.match(/only a superuser may change or delete a user who is a superuser/);
    expect(guard.refusal({ id: 2, roles: ['viewer', 'auditor'], is_superuser: false })).to.match(/only if you could grant every role it holds/);
    expect(guard.refusal({ id: 1, roles: ['auditor'], is_superuser: false })).to.equal(null);
    // an editor grants nothing: any role held refuses it
    expect(changeGuard({ grantableRoles: grantable }, users, caller(['editor']))!.refusal({ id: 2, roles: ['viewer'] })).to.not.equal(null);
  });

  it('changeGuard: null for a superuser and without grantableRoles; no superuser field unless the model has one or the declaration names it', () => {
    expect(changeGuard({ grantableRoles: grantable }, users, caller(['admin'], true))).to.equal(null);
    expect(changeGuard({}, users, caller(['admin']))).to.equal(null);
    expect(changeGuard({ grantableRoles: grantable }, noFlag, caller(['admin']))!.fields).to.deep.equal(['roles']);
    expect(changeGuard({ grantableRoles: grantable, rolesField: 'groups', superuserField: 'root' }, noFlag, caller(['admin']))!.fields).to.deep.equal(['groups', 'root']);
  });
});
