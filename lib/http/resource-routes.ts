import type { RequestParams } from '../query';
import type { RequestContext } from '../service/request-context';
import type { ResourceService } from '../service/resource-service';
import { Reply, type ReadGate, type RouteDefinition, type RouteInput } from './routes';
import { Owned, ownedJson } from '../service/reads/serialize';
import { withVersionTag } from './version-tags';

export type UpdateMultipleRoute = 'batch' | 'update-multiple';

export interface ResourceRouteOptions {
  /** Which updateMultiple registrations to offer (spec: PATCH /batch and POST /update-multiple). */
  updateMultipleRoutes: UpdateMultipleRoute[];
  /** Read-through for list, first and show (the read cache); runs the read directly by default. */
  read: ReadGate;
  /** Tree reads of index and show (`hierarchy`): lib/hierarchy/hierarchy-reads.ts, handed in by the API. */
  hierarchy: TreeReads;
}

/** What the index and show routes need of tree reads; http knows no feature, it is given them. */
export interface TreeReads {
  wants(params: RequestParams): boolean;
  list(params: RequestParams, ctx: RequestContext): Promise<unknown>;
  first(params: RequestParams, ctx: RequestContext): Promise<unknown>;
  show(id: string, params: RequestParams, ctx: RequestContext): Promise<unknown>;
}

type Spec = Pick<RouteDefinition, 'action' | 'method' | 'access' | 'summary' | 'handler' | 'permissions' | 'params'> & { path: string; name?: string };

/**
 * The resource routes of one resource. Fixed segments come before `/:id` so `first`, `batch` and
 * `validate` are never taken for ids. Names follow `<resource>.<action>`.
 */
export function resourceRoutes(service: ResourceService, options: ResourceRouteOptions): RouteDefinition[] {
  const resource = service.entry.declaration.name;
  const id = (input: { req: { params: Record<string, unknown> } }) => String(input.req.params.id);
  const own = (action: Parameters<ResourceService['owned']>[0], value: unknown) => service.owned(action, value);
  // decision 81: the version ETag of versioned resources' single-record answers
  const versionField = service.entry.info.versionField;
  const tagged = (input: RouteInput, result: unknown) => withVersionTag(input, versionField, result);
  const ifMatch = (input: RouteInput) => ({ ifMatch: input.req.get('if-match') });
  const specs: Spec[] = [
    {
      action: 'index', method: 'get', path: '', access: 'read', summary: 'List records',
      handler: async (input) => {
        // trees are read without the cache: their walk reaches records the query's filter does not name
        // a tree's rows are this request's own: serialized in place, not copied (tens of thousands of nodes)
        if (options.hierarchy.wants(input.params)) return new Reply(200, null, {}, ownedJson(await options.hierarchy.list(input.params, input.ctx)));
        const plan = await service.planList(input.params, input.ctx);
        return options.read(input, { method: 'list_all', query: plan.query }, () => service.listAnswer(plan, input.ctx));
      },
    },
    {
      action: 'first', method: 'get', path: '/first', access: 'read', summary: 'The first matching record',
      handler: async (input) => {
        if (options.hierarchy.wants(input.params)) return new Reply(200, null, {}, ownedJson(await options.hierarchy.first(input.params, input.ctx)));
        const plan = await service.planList(input.params, input.ctx, { forFirst: true });
        return tagged(input, await options.read(input, { method: 'list_all', query: plan.query }, () => service.firstAnswer(plan, input.ctx)));
      },
    },
    {
      // decisions 55-57: the list's filter, then groups and functions; cached like a list
      action: 'aggregate', method: 'get', path: '/aggregate', access: 'read', summary: 'Aggregates of the matching records, grouped',
      handler: async (input) => {
        const plan = await service.planAggregate(input.params, input.ctx);
        return options.read(input, { method: 'list_all', query: plan.carrier, shape: plan.query }, async () => new Owned(await service.runAggregate(plan)));
      },
    },
    { action: 'validate', method: 'post', path: '/validate', access: 'create', summary: 'Validate a record without saving it', handler: ({ req, ctx }) => service.validate(req.body, ctx) },
  ];
  if ((service.entry.declaration.upsertKeys ?? []).length > 0) {
    // decision 79: creates and updates, so both rights are needed (403 before anything is written)
    specs.push({ action: 'upsert', method: 'post', path: '/upsert', access: 'create', summary: 'Create or update records matched by unique fields', permissions: [`${resource}.store`, `${resource}.update`], params: [], handler: async ({ req, ctx }) => own('create', await service.upsert(req.body, ctx)) });
  }
  if (options.updateMultipleRoutes.includes('batch')) {
    specs.push({ action: 'updateMultiple', method: 'patch', path: '/batch', access: 'update', summary: 'Update several records', handler: async ({ req, ctx }) => own('update', await service.updateMultiple(req.body, ctx)) });
  }
  if (options.updateMultipleRoutes.includes('update-multiple')) {
    const name = options.updateMultipleRoutes.includes('batch') ? 'updateMultipleAlias' : 'updateMultiple';
    specs.push({ action: name, method: 'post', path: '/update-multiple', access: 'update', summary: 'Update several records', handler: async ({ req, ctx }) => own('update', await service.updateMultiple(req.body, ctx)) });
  }
  specs.push(
    { action: 'deleteById', method: 'delete', path: '/batch', access: 'delete', summary: 'Delete several records', handler: async ({ req, ctx }) => {
        const { success, deleted } = await service.deleteById(req.body, ctx);
        return { success, deleted };
      } },
    {
      action: 'show', method: 'get', path: '/:id', access: 'read', summary: 'One record',
      handler: async (input) => {
        if (options.hierarchy.wants(input.params)) return new Reply(200, null, {}, ownedJson(await options.hierarchy.show(id(input), input.params, input.ctx)));
        const plan = await service.planShow(id(input), input.params, input.ctx);
        return tagged(input, await options.read(input, { method: 'get_one', query: plan.query }, () => service.showAnswer(plan, input.ctx)));
      },
    },
    { action: 'store', method: 'post', path: '', access: 'create', summary: 'Create one record or several', handler: async (input) => tagged(input, own('create', await service.store(input.req.body, input.ctx))) },
    { action: 'update', method: 'put', path: '/:id', access: 'update', summary: 'Update a record', handler: async (input) => tagged(input, own('update', await service.update(id(input), input.req.body, input.ctx, ifMatch(input)))) },
    { action: 'updatePatch', method: 'patch', path: '/:id', access: 'update', summary: 'Update a record', handler: async (input) => tagged(input, own('update', await service.update(id(input), input.req.body, input.ctx, ifMatch(input)))) },
    { action: 'destroy', method: 'delete', path: '/:id', access: 'delete', summary: 'Delete a record', handler: async (input) => tagged(input, await service.destroy(id(input), input.ctx, ifMatch(input))) },
  );
  if (service.entry.info.softDelete) {
    specs.push(
      { action: 'restore', method: 'post', path: '/:id/restore', access: 'update', summary: 'Restore a trashed record', handler: (input) => service.restore(id(input), input.ctx) },
      { action: 'forceDelete', method: 'delete', path: '/:id/force', access: 'delete', summary: 'Delete a record for good, trashed or not', handler: (input) => service.forceDelete(id(input), input.ctx) },
    );
  }
  return specs.map((spec) => ({
    ...spec,
    checkBody: service.bodyCheck(spec.action) ?? undefined,
    name: `${resource}.${spec.action}`,
    resource,
    model: service.name,
    path: `/${resource}${spec.path}`,
    answers: 'json' as const,
  }));
}
