import type { RestConfig } from '../config';
import type { RouteDefinition, RouteInput } from '../http/routes';
import { withVersionTag } from '../http/version-tags';
import type { ResourceService } from '../service/resource-service';
import { historyPage } from './history-reads';
import { revertTo } from './history-revert';

/**
 * The history routes of a resource that keeps history (decision 83): its entries under the show
 * permission, and a revert under the update permission. Resources without history have none (a
 * JSON 404, as any path no route answers).
 */
export function historyRoutes(service: ResourceService, config: RestConfig): RouteDefinition[] {
  if (!service.entry.declaration.history) return [];
  const resource = service.entry.declaration.name;
  const base = { resource, model: service.name, answers: 'json' as const };
  const id = (input: RouteInput) => String(input.req.params.id);
  return [
    {
      ...base,
      name: `${resource}.history`,
      action: 'history',
      method: 'get',
      path: `/${resource}/:id/history`,
      access: 'read',
      params: ['pagination', 'soft_delete'],
      summary: "A record's history, newest first",
      handler: (input) => historyPage(service, id(input), input.params, input.ctx, config),
    },
    {
      ...base,
      name: `${resource}.revert`,
      action: 'revert',
      method: 'post',
      path: `/${resource}/:id/history/:version/revert`,
      access: 'update',
      // a revert is an update of the record: the update permission (the name alone would stand for `revert`)
      permissions: [`${resource}.update`],
      params: [],
      summary: 'Write back the fields a version changed',
      handler: async (input) => withVersionTag(input, service.entry.info.versionField, await revertTo(service, id(input), String(input.req.params.version), input.ctx, input.req.get('if-match'))),
    },
  ];
}
