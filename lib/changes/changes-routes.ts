import type { Request } from 'express';
import type { ChangeFeed } from './change-feed';
import type { SubscriberRules } from './subscriber';
import type { RestConfig } from '../config';
import { BadRequestError } from '../errors';
import { parseReadOptions } from '../query/parse-list-query';
import type { Filter, ListQuery } from '../query/ast';
import { parseAttr } from '../query/parse-attr';
import { combine, parseFilter } from '../query/parse-filter';
import type { QueryPipeline } from '../service/policy/query-pipeline';
import type { RequestContext } from '../service/request-context';
import type { ResourceService } from '../service/resource-service';
import type { RouteDefinition } from '../http/routes';

/** What a subscription reads (decision 61): own-field filters and `select`. */
export const CHANGES_PARAMS = ['oper', 'attr', 'eq', 'select'] as const;

function relationIn(filter: Filter | null): string | null {
  if (!filter) return null;
  if (filter.kind === 'related') return filter.relation;
  if (filter.kind === 'and' || filter.kind === 'or') for (const inner of filter.filters) {
    const found = relationIn(inner);
    if (found) return found;
  }
  return null;
}

/**
 * Authenticates a request again and checks the route's permission, on a fresh context (the
 * application's authentication and grants as a new request would meet them): throws the 401 or
 * 403 such a request would get. `memo` shares authentications between the re-checks of one turn.
 */
export type Reauthenticate = (route: RouteDefinition, req: Request, memo?: Map<string, Promise<unknown>>) => Promise<RequestContext>;

/**
 * `GET /{resource}/changes` (decisions 60-62): a Server-Sent Events stream of the resource's
 * committed writes, as this subscriber may see them. Needs the list permission (route name
 * `<resource>.changes`); parameters are checked and parsed before the stream opens, so a bad
 * filter is a 400 and a 401/403 comes from the permission middleware in front of it.
 */
export function changesRoute(service: ResourceService, feed: ChangeFeed, pipeline: QueryPipeline, config: RestConfig, reauthenticate: Reauthenticate): RouteDefinition {
  const resource = service.entry.declaration.name;
  const route: RouteDefinition = {
    name: `${resource}.changes`,
    resource,
    model: service.name,
    action: 'changes',
    method: 'get',
    path: `/${resource}/changes`,
    access: 'read',
    answers: 'stream',
    summary: 'A stream of committed writes (Server-Sent Events)',
    params: CHANGES_PARAMS,
    async handler({ req, res, ctx, params }) {
      /** The subscription's rules under `ctx`'s rights: a filter or select naming a field they hide is a 400. */
      const plan = (ctx: RequestContext): SubscriberRules => {
        const view = service.viewOf(ctx);
        const model = view.model(service.name);
        const parsed = parseFilter(params.oper, model, view, config);
        const relation = relationIn(parsed.filter);
        if (relation) throw new BadRequestError(`The change feed filters on the resource's own fields only; "${relation}" is a relation.`, 'oper');
        const filter = combine('and', [...(parsed.filter ? [parsed.filter] : []), ...parseAttr(params.attr, params.eq, model)]);
        const { select } = parseReadOptions({ select: params.select }, model, view, config);
        // the records this caller may see, trashed ones included (a soft delete's event carries deleted_at)
        const root: ListQuery = { model: service.name, filter: null, select: null, relations: [], order: [], page: null, limit: null, trashed: 'with' };
        const scope = service.rootScope(root, ctx);
        const renderKey = `${pipeline.policy.viewKey(ctx)}\u0000${JSON.stringify(select)}`;
        return { info: service.entry.info, filter, scope, view, select, renderKey, userId: ctx.user ? String(ctx.user.id) : null };
      };
      const rules = plan(ctx);
      const header = req.get('last-event-id');
      const lastEventId = header === undefined || header === '' ? null : header;
      // a caller is its user; without authentication, its address (the per-caller share of the stream bound)
      const caller = ctx.user ? `user:${String(ctx.user.id)}` : `address:${req.ip ?? req.socket.remoteAddress ?? ''}`;
      // decision 70: the same authentication, permission and read rules, again, on a fresh context
      const recheck = async (memo?: Map<string, Promise<unknown>>) => plan(await reauthenticate(route, req, memo));
      await feed.open(service.name, rules, recheck, res, lastEventId, caller);
    },
  };
  return route;
}
