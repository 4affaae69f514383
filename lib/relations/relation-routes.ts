import { BadRequestError } from '../errors';
import { Reply, type HttpMethod, type RouteAccess, type RouteDefinition, type RouteInput } from '../http/routes';
import { relationBodyCheck } from './relation-body-keys';
import { PartialSuccess } from './relation-errors';
import type { ParentRef, RelationService } from './relation-service';

/** `_scenario` of a write (decision 50: it only chooses among the route's own scenarios). */
function scenarioOf(input: RouteInput): string | null {
  const raw = input.params._scenario;
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw !== 'string') throw new BadRequestError('The _scenario parameter must be a string.', '_scenario');
  return raw;
}

/** Decision 50: a collection route offers its bulk scenario (and store its single one); any other `_scenario` is a 400 naming them. */
function scenarioIn(input: RouteInput, offered: readonly string[]): string | null {
  const scenario = scenarioOf(input);
  if (scenario !== null && !offered.includes(scenario)) throw new BadRequestError(`Unknown _scenario "${scenario}" for this route; use ${offered.join(' or ')}.`, '_scenario');
  return scenario;
}

const isBulk = (input: RouteInput): boolean => scenarioIn(input, ['create', 'bulk_create']) === 'bulk_create';

function requireBulk(input: RouteInput, scenario: string, what: string): void {
  if (scenarioIn(input, [scenario]) === null) throw new BadRequestError(`${what} acts on several records: send _scenario=${scenario} (single records use /{related_id}).`, '_scenario');
}

const ATTACH_SCENARIOS = ['attach', 'bulk_attach', 'sync', 'toggle'] as const;

interface Spec {
  action: string;
  method: HttpMethod;
  path: string;
  access: RouteAccess;
  /** Rights: on the related resource, on the parent (association changes), or both (decision 54). */
  needs: Array<['related' | 'parent', 'index' | 'view' | 'store' | 'update' | 'delete']>;
  summary: string;
  handler: (input: RouteInput, parent: ParentRef) => Promise<unknown>;
}

/**
 * The relation routes of one configured relation (spec "Relation endpoints"), under an explicit
 * parent (`/{parent}/:parent_id/{segment}`) or the authenticated user (`/{prefix}/{segment}`).
 * Fixed segments (`attach`, `detach`, `pivot`) come before `/:related_id`.
 */
export function relationRoutes(service: RelationService, form: { kind: 'explicit' } | { kind: 'implicit'; prefix: string }): RouteDefinition[] {
  const { config } = service;
  const parentResource = config.parent.entry.declaration.name;
  const relatedResource = config.related.entry.declaration.name;
  const base = form.kind === 'explicit' ? `/${parentResource}/:parent_id/${config.segment}` : `/${form.prefix}/${config.segment}`;
  const namePrefix = form.kind === 'explicit' ? `${parentResource}.${config.segment}` : `${form.prefix}.${config.segment}`;
  const related = (input: RouteInput) => String(input.req.params.related_id);
  const many = config.kind === 'manyToMany';
  const unlinkNeeds: Spec['needs'] = config.deleteRelated ? (many ? [['related', 'delete'], ['parent', 'update']] : [['related', 'delete']]) : many ? [['parent', 'update']] : [['related', 'update']];

  const specs: Spec[] = [];
  if (many) {
    specs.push(
      {
        action: 'attach', method: 'post', path: '/attach', access: 'update', needs: [['parent', 'update']],
        summary: `Attach ${config.segment} (_scenario attach, bulk_attach, sync or toggle)`,
        handler: (input, parent) => {
          const scenario = scenarioOf(input) ?? 'attach';
          if (!(ATTACH_SCENARIOS as readonly string[]).includes(scenario)) throw new BadRequestError(`Unknown _scenario "${scenario}" for attach; use one of ${ATTACH_SCENARIOS.join(', ')}.`, '_scenario');
          return service.attach(parent, input.req.body, scenario as (typeof ATTACH_SCENARIOS)[number], input.ctx);
        },
      },
      {
        action: 'detachMany', method: 'delete', path: '/detach', access: 'update', needs: [['parent', 'update']],
        summary: `Detach several ${config.segment} (_scenario=bulk_detach)`,
        handler: (input, parent) => {
          requireBulk(input, 'bulk_detach', 'This detach');
          return service.detach(parent, service.idList(input.req.body), input.ctx);
        },
      },
      {
        action: 'updatePivotMany', method: 'put', path: '/pivot', access: 'update', needs: [['parent', 'update']],
        summary: `Update the pivot data of several ${config.segment} (_scenario=bulk_update_pivot)`,
        handler: (input, parent) => {
          requireBulk(input, 'bulk_update_pivot', 'This pivot update');
          return service.updatePivotMany(parent, input.req.body, input.ctx);
        },
      },
      {
        action: 'detach', method: 'delete', path: '/:related_id/detach', access: 'update', needs: [['parent', 'update']],
        summary: `Detach one of the ${config.segment}`,
        handler: (input, parent) => service.detach(parent, [related(input)], input.ctx),
      },
      {
        action: 'updatePivot', method: 'put', path: '/:related_id/pivot', access: 'update', needs: [['parent', 'update']],
        summary: `Update the pivot data of one of the ${config.segment}`,
        handler: (input, parent) => service.updatePivot(parent, related(input), input.req.body, input.ctx),
      },
    );
  }
  specs.push(
    {
      action: 'index', method: 'get', path: '', access: 'read', needs: [['related', 'index']],
      summary: `List the ${config.segment} of one ${config.parent.name}`,
      handler: (input, parent) => service.list(parent, input.params, input.ctx),
    },
    {
      action: 'store', method: 'post', path: '', access: 'create', needs: many ? [['related', 'store'], ['parent', 'update']] : [['related', 'store']],
      summary: `Create ${config.segment} of one ${config.parent.name} (_scenario=bulk_create for several)`,
      handler: async (input, parent) => new Reply(201, await service.create(parent, input.req.body, isBulk(input), input.ctx)),
    },
    {
      action: 'updateMany', method: 'put', path: '', access: 'update', needs: [['related', 'update']],
      summary: `Update several ${config.segment} (_scenario=bulk_update)`,
      handler: (input, parent) => {
        requireBulk(input, 'bulk_update', 'PUT on the collection');
        return service.updateMany(parent, input.req.body, input.ctx);
      },
    },
    {
      action: 'destroyMany', method: 'delete', path: '', access: 'delete', needs: unlinkNeeds,
      summary: `Delete several ${config.segment} (_scenario=bulk_delete)`,
      handler: (input, parent) => {
        requireBulk(input, 'bulk_delete', 'DELETE on the collection');
        return service.destroyMany(parent, input.req.body, input.ctx);
      },
    },
    {
      action: 'show', method: 'get', path: '/:related_id', access: 'read', needs: [['related', 'view']],
      summary: `One of the ${config.segment} of one ${config.parent.name}`,
      handler: (input, parent) => service.show(parent, related(input), input.params, input.ctx),
    },
    {
      action: 'update', method: 'put', path: '/:related_id', access: 'update', needs: [['related', 'update']],
      summary: `Update one of the ${config.segment}`,
      handler: (input, parent) => service.update(parent, related(input), input.req.body, input.ctx),
    },
    {
      action: 'destroy', method: 'delete', path: '/:related_id', access: 'delete', needs: unlinkNeeds,
      summary: config.deleteRelated ? `Delete one of the ${config.segment}` : `Unlink one of the ${config.segment}`,
      handler: (input, parent) => service.destroy(parent, related(input), input.ctx),
    },
  );

  return specs.map((spec) => ({
    name: `${namePrefix}.${spec.action}`,
    resource: form.kind === 'explicit' ? parentResource : form.prefix,
    model: config.related.name,
    action: `relation.${spec.action}`,
    method: spec.method,
    path: `${base}${spec.path}`,
    access: spec.access,
    permissions: spec.needs.map(([who, verb]) => `${who === 'related' ? relatedResource : parentResource}.${verb}`),
    answers: 'json' as const,
    summary: spec.summary,
    checkBody: relationBodyCheck(config, spec.action) ?? undefined,
    handler: async (input: RouteInput) => statusOf(await spec.handler(input, form.kind === 'explicit' ? { kind: 'explicit', rawId: String(input.req.params.parent_id) } : { kind: 'implicit' })),
  }));
}

/** The service answers data; the route chooses the status: a partial success is a 207 (decision 48). */
function statusOf(answer: unknown): unknown {
  return answer instanceof PartialSuccess ? new Reply(207, answer.body) : answer;
}
