import type { ResourceService } from '../service/resource-service';
import type { RouteDefinition } from './routes';

export type UpdateMultipleRoute = 'batch' | 'update-multiple';

export interface ResourceRouteOptions {
  /** Which updateMultiple registrations to offer (spec: PATCH /batch and POST /update-multiple). */
  updateMultipleRoutes: UpdateMultipleRoute[];
}

type Spec = Pick<RouteDefinition, 'action' | 'method' | 'access' | 'summary' | 'handler'> & { path: string; name?: string };

/**
 * The resource routes of one resource. Fixed segments come before `/:id` so `first`, `batch` and
 * `validate` are never taken for ids. Names follow `<resource>.<action>`.
 */
export function resourceRoutes(service: ResourceService, options: ResourceRouteOptions): RouteDefinition[] {
  const resource = service.entry.declaration.name;
  const id = (input: { req: { params: Record<string, unknown> } }) => String(input.req.params.id);
  const specs: Spec[] = [
    { action: 'index', method: 'get', path: '', access: 'read', summary: 'List records', handler: ({ params, ctx }) => service.list(params, ctx) },
    { action: 'first', method: 'get', path: '/first', access: 'read', summary: 'The first matching record', handler: ({ params, ctx }) => service.first(params, ctx) },
    { action: 'validate', method: 'post', path: '/validate', access: 'create', summary: 'Validate a record without saving it', handler: ({ req, ctx }) => service.validate(req.body, ctx) },
  ];
  if (options.updateMultipleRoutes.includes('batch')) {
    specs.push({ action: 'updateMultiple', method: 'patch', path: '/batch', access: 'update', summary: 'Update several records', handler: ({ req, ctx }) => service.updateMultiple(req.body, ctx) });
  }
  if (options.updateMultipleRoutes.includes('update-multiple')) {
    const name = options.updateMultipleRoutes.includes('batch') ? 'updateMultipleAlias' : 'updateMultiple';
    specs.push({ action: name, method: 'post', path: '/update-multiple', access: 'update', summary: 'Update several records', handler: ({ req, ctx }) => service.updateMultiple(req.body, ctx) });
  }
  specs.push(
    { action: 'deleteById', method: 'delete', path: '/batch', access: 'delete', summary: 'Delete several records', handler: ({ req, ctx }) => service.deleteById(req.body, ctx) },
    { action: 'show', method: 'get', path: '/:id', access: 'read', summary: 'One record', handler: (input) => service.show(id(input), input.params, input.ctx) },
    { action: 'store', method: 'post', path: '', access: 'create', summary: 'Create one record or several', handler: ({ req, ctx }) => service.store(req.body, ctx) },
    { action: 'update', method: 'put', path: '/:id', access: 'update', summary: 'Update a record', handler: (input) => service.update(id(input), input.req.body, input.ctx) },
    { action: 'updatePatch', method: 'patch', path: '/:id', access: 'update', summary: 'Update a record', handler: (input) => service.update(id(input), input.req.body, input.ctx) },
    { action: 'destroy', method: 'delete', path: '/:id', access: 'delete', summary: 'Delete a record', handler: (input) => service.destroy(id(input), input.ctx) },
  );
  return specs.map((spec) => ({
    ...spec,
    name: `${resource}.${spec.action}`,
    resource,
    model: service.name,
    path: `/${resource}${spec.path}`,
    answers: 'json' as const,
  }));
}
