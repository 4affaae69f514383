import { NotFoundError } from '../errors';
import type { RouteDefinition, RouteInput } from '../http/routes';
import type { Filter } from '../query/ast';
import type { RelationInfo } from '../resource/model-info';
import type { ResourceService } from '../service/resource-service';
import { runExport, type ExportOptions } from './export-routes';

/**
 * The filter that selects the records of a to-many relation of one parent, on the related model:
 * hasMany by its foreign key; belongsToMany through the inverse relation the related model
 * declares over the same pivot (none: the relation has no export route).
 */
function relatedFilter(parent: ResourceService, rel: RelationInfo, related: ResourceService): ((parentId: string | number) => Filter) | null {
  if (rel.kind === 'hasMany') return (parentId) => ({ kind: 'condition', field: rel.foreignKey, operator: '=', value: parentId });
  if (rel.kind !== 'belongsToMany' || !rel.pivot) return null;
  const target = related.entry.info;
  const inverse = [...Object.values(target.relations), ...Object.values(target.hiddenRelations)].find(
    (r) => r.kind === 'belongsToMany' && r.target === parent.name && r.pivot?.table === rel.pivot?.table && r.pivot?.parentKey === rel.pivot?.relatedKey,
  );
  if (!inverse) return null;
  return (parentId) => ({ kind: 'related', relation: inverse.name, filter: { kind: 'condition', field: parent.entry.info.key, operator: '=', value: parentId } });
}

/**
 * `GET /{parent}/{parent_id}/{relation}/export/excel|pdf` for the to-many relations of a resource:
 * the related records of one parent, with every list parameter, `columns`, `filename` (default
 * export.xlsx / export.pdf) and `template`. An unknown or invisible parent is a 404 naming it.
 */
export function relationExportRoutes(parent: ResourceService, serviceOf: (model: string) => ResourceService | undefined, options: ExportOptions): RouteDefinition[] {
  const routes: RouteDefinition[] = [];
  const resource = parent.entry.declaration.name;
  for (const rel of Object.values(parent.entry.info.relations)) {
    const related = serviceOf(rel.target);
    if (!related) continue;
    const narrow = relatedFilter(parent, rel, related);
    if (!narrow) continue;
    for (const format of ['excel', 'pdf'] as const) {
      const action = format === 'excel' ? 'exportExcel' : 'exportPdf';
      routes.push({
        name: `${resource}.${rel.name}.${action}`,
        resource,
        model: related.name,
        action: `relation.${action}`,
        method: 'get',
        path: `/${resource}/:parent_id/${rel.name}/export/${format}`,
        access: 'read',
        // listing related records needs read on the related resource
        permissions: [`${related.entry.declaration.name}.index`],
        answers: 'stream',
        summary: `Export the ${rel.name} of one ${parent.name} as ${format === 'excel' ? 'a spreadsheet' : 'a PDF table'}`,
        handler: async (input: RouteInput) => {
          const raw = String(input.req.params.parent_id);
          const id = parent.entry.driver.parseId(parent.name, raw);
          const visible = id === null ? [] : await parent.visibleIds([id], input.ctx);
          if (id === null || visible.length === 0) throw new NotFoundError(`No ${parent.name} found with id ${raw}.`);
          await runExport(input, related, format, options, format === 'excel' ? 'export.xlsx' : 'export.pdf', narrow(id));
        },
      });
    }
  }
  return routes;
}
