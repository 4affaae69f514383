import { expect } from 'chai';
import type { Request } from 'express';
import { Authorizer } from '../../../lib/auth/authorizer';
import { createLoggers } from '../../../lib/log/logger';
import { ForbiddenError, UnauthenticatedError } from '../../../lib/errors';
import { createContext } from '../../../lib/service/request-context';
import winston from 'winston';

const log = createLoggers(winston.createLogger({ silent: true }), {} as never);
const route = { name: 'reports.changes', method: 'get', path: '/reports/changes' };
const request = (headers: Record<string, string>) => ({ headers, get: (name: string) => headers[name.toLowerCase()] }) as unknown as Request;

/** Decision 70: a change stream's authentication and permission run again on a fresh context. */
describe('auth: Authorizer.recheck', () => {
  const calls: string[] = [];
  const roles: Record<string, string[]> = { tok: ['reader'] };
  const authorizer = new Authorizer(
    {
      authenticate: (req) => {
        const token = String(req.headers.authorization ?? '').replace('Bearer ', '');
        calls.push(token);
        return roles[token] ? { id: token, roles: roles[token] } : null;
      },
      grants: { reader: { reports: { 'read:any': ['*'] } }, nobody: { reports: { 'create:any': ['*'] } } },
    },
    (name) => name,
    (model) => model.name,
    log,
  );

  it('answers with the user and roles of now; 401 without a user, 403 without the permission', async () => {
    const ctx = createContext();
    await authorizer.recheck(request({ authorization: 'Bearer tok' }), ctx, route);
    expect([ctx.user?.id, ctx.roles]).to.deep.equal(['tok', ['reader']]);
    roles.tok = ['nobody'];
    const denied = await authorizer.recheck(request({ authorization: 'Bearer tok' }), createContext(), route).catch((e: unknown) => e);
    expect(denied).to.be.instanceOf(ForbiddenError);
    delete roles.tok;
    const gone = await authorizer.recheck(request({ authorization: 'Bearer tok' }), createContext(), route).catch((e: unknown) => e);
    expect(gone).to.be.instanceOf(UnauthenticatedError);
    roles.tok = ['reader'];
  });

  it('re-checks of one turn sending the same Authorization and Cookie authenticate once; others (or none of both) alone', async () => {
    calls.length = 0;
    const memo = new Map<string, Promise<unknown>>();
    await Promise.all([
      authorizer.recheck(request({ authorization: 'Bearer tok' }), createContext(), route, memo),
      authorizer.recheck(request({ authorization: 'Bearer tok' }), createContext(), route, memo),
      authorizer.recheck(request({ authorization: 'Bearer tok', cookie: 'a=1' }), createContext(), route, memo),
      authorizer.recheck(request({}), createContext(), route, memo).catch(() => undefined),
      authorizer.recheck(request({}), createContext(), route, memo).catch(() => undefined),
    ]);
    expect(calls).to.deep.equal(['tok', 'tok', '', '']);
  });
});
