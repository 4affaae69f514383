import type { RouteDefinition, RouteInput } from '../http/routes';
import type { RelationService } from '../relations/relation-service';
import { runExport, type ExportOptions } from './export-routes';

/**
 * `GET {list path}/export/excel|pdf` of one configured relation, in the same form as its list
 * route (`/{parent}/:parent_id/{segment}` or `/{prefix}/{segment}` with the authenticated user as
 * the parent), so a relation list and its exports are served, or refused, together. Every list
 * parameter, `columns`, `filename` (default export.xlsx / export.pdf) and `template`; the parent is
 * checked as the list checks it (unknown or invisible: a 404 naming it; `/me` without a user: 401).
 */
export function relationExportRoutes(relation: RelationService, form: { kind: 'explicit' } | { kind: 'implicit'; prefix: string }, options: ExportOptions): RouteDefinition[] {
  const { parent, related, segment } = relation.config;
  const parentResource = parent.entry.declaration.name;
  const base = form.kind === 'explicit' ? `/${parentResource}/:parent_id/${segment}` : `/${form.prefix}/${segment}`;
  const namePrefix = form.kind === 'explicit' ? `${parentResource}.${segment}` : `${form.prefix}.${segment}`;
  return (['excel', 'pdf'] as const).map((format): RouteDefinition => {
    const action = format === 'excel' ? 'exportExcel' : 'exportPdf';
    return {
      name: `${namePrefix}.${action}`,
      resource: form.kind === 'explicit' ? parentResource : form.prefix,
      model: related.name,
      action: `relation.${action}`,
      method: 'get',
      path: `${base}/export/${format}`,
      access: 'read',
      // listing related records needs read on the related resource
      permissions: [`${related.entry.declaration.name}.index`],
      answers: 'stream',
      summary: `Export the ${segment} of ${form.kind === 'explicit' ? `one ${parent.name}` : 'the authenticated user'} as ${format === 'excel' ? 'a spreadsheet' : 'a PDF table'}`,
      handler: async (input: RouteInput) => {
        const ref = form.kind === 'explicit' ? { kind: 'explicit' as const, rawId: String(input.req.params.parent_id) } : { kind: 'implicit' as const };
        const parentId = await relation.parentId(ref, input.ctx);
        await runExport(input, related, format, options, format === 'excel' ? 'export.xlsx' : 'export.pdf', await relation.membersFilter(parentId));
      },
    };
  });
}
