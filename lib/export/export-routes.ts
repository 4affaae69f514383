import { ApiError, BadRequestError } from '../errors';
import type { RouteDefinition, RouteInput } from '../http/routes';
import type { Loggers } from '../log/logger';
import type { Filter } from '../query/ast';
import { parseSelect } from '../query/parse-select';
import type { RestConfig } from '../config';
import type { Catalog, ModelInfo } from '../resource/model-info';
import type { ResourceService } from '../service/resource-service';
import { cellValue, exportColumns, exportReads, type ExportColumn } from './export-columns';
import { contentDisposition, exportFilename } from './export-filename';
import type { PdfTemplate } from './pdf-templates';

export type ExportFormat = 'excel' | 'pdf';

/**
 * The writers load exceljs / pdfkit on first use: both are optional peers (spec: optional
 * dependencies), so an app that never exports does not install them.
 */
function writers(format: ExportFormat): { writeExcel: typeof import('./excel-writer').writeExcel; writePdf: typeof import('./pdf-writer').writePdf } {
  const pkg = format === 'excel' ? 'exceljs' : 'pdfkit';
  try {
    /* eslint-disable @typescript-eslint/no-require-imports */
    return {
      writeExcel: format === 'excel' ? (require('./excel-writer') as typeof import('./excel-writer')).writeExcel : (undefined as never),
      writePdf: format === 'pdf' ? (require('./pdf-writer') as typeof import('./pdf-writer')).writePdf : (undefined as never),
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
  } catch {
    throw new ApiError('not_implemented', `${format === 'excel' ? 'Excel' : 'PDF'} exports need the ${pkg} package on the server: npm install ${pkg}.`);
  }
}

const FORMAT = {
  excel: { extension: 'xlsx', type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', fallback: 'excel.xlsx' },
  pdf: { extension: 'pdf', type: 'application/pdf', fallback: 'pdf_file.pdf' },
} as const;

export interface ExportOptions {
  catalog: Catalog;
  config: RestConfig;
  log: Loggers;
  templates: ReadonlyMap<string, () => PdfTemplate>;
}

/** What an export request asks for, every part checked (a 4xx before the first byte). */
interface CheckedExport {
  info: ModelInfo;
  columns: ExportColumn[];
  template: PdfTemplate | null;
  write: ReturnType<typeof writers>;
  filename: string;
}

function checkExport(params: RouteInput['params'], view: Catalog, model: string, format: ExportFormat, options: ExportOptions, fallbackName?: string): CheckedExport {
  // the caller's view: a field they may not read cannot be a column
  const info = view.model(model);
  const columns = exportColumns(params.columns, parseSelect(params.select, info, options.config), info, view);
  const template = format === 'pdf' ? pickTemplate(params.template, options.templates) : null;
  const spec = FORMAT[format];
  return { info, columns, template, write: writers(format), filename: exportFilename(params.filename, fallbackName ?? spec.fallback, spec.extension) };
}

/**
 * One export request: every parameter is checked and the filter's count read before the first
 * byte (a problem is still a JSON 4xx); then rows stream from the database into the writer. An
 * error after the first byte aborts the response, so a cut file never looks complete.
 */
export async function runExport(input: RouteInput, service: ResourceService, format: ExportFormat, options: ExportOptions, fallbackName?: string, narrow: Filter | null = null): Promise<void> {
  const { req, res, ctx, params } = input;
  // assigned in the planning call, which runs it before it resolves
  let checked!: CheckedExport;
  // one call plans and counts the read; the columns are checked in it, after the list's parameters
  const { query, total } = await service.planExport(params, ctx, narrow, (view) => {
    checked = checkExport(params, view, service.name, format, options, fallbackName);
    return exportReads(checked.columns, checked.info);
  });
  const { info, columns, template, write, filename } = checked;
  const { writeExcel, writePdf } = write;
  const spec = FORMAT[format];

  res.status(200);
  res.setHeader('Content-Type', spec.type);
  res.setHeader('Content-Disposition', contentDisposition(filename));
  res.setHeader('X-Total-Count', String(total));
  const started = performance.now();
  const rows = (async function* () {
    for await (const batch of service.exportBatches(query, ctx)) {
      const cells = batch.map((row) => columns.map((c) => cellValue(row, c)));
      yield cells;
      // written by now: emptied so a promoted array does not keep its rows alive (row-batches.ts)
      cells.length = 0;
    }
  })();
  try {
    const written =
      format === 'excel'
        ? await writeExcel(res, columns.map((c) => ({ header: c.header, type: fieldType(options.catalog, info.name, c) })), rows, ctx.signal)
        : await writePdf(res, columns.map((c) => c.header), rows, template!, ctx.signal);
    const ms = Math.round(performance.now() - started);
    if (ms > 2000) options.log.app.info(`${req.method} ${req.originalUrl}: exported ${written} rows in ${ms} ms`, { rows: written, duration_ms: ms });
  } catch (error) {
    options.log.app.error(`${req.method} ${req.originalUrl}: export aborted`, { error: (error as Error).message });
    res.destroy(error as Error);
  }
}

function pickTemplate(raw: unknown, templates: ReadonlyMap<string, () => PdfTemplate>): PdfTemplate {
  const name = raw === undefined || raw === null || raw === '' ? 'pdf' : raw;
  const make = typeof name === 'string' ? templates.get(name) : undefined;
  if (!make) throw new BadRequestError(`Unknown PDF template "${String(name)}". Available templates: ${[...templates.keys()].join(', ')}.`, 'template');
  return make();
}

function fieldType(catalog: Catalog, model: string, column: { relation: string | null; field: string }) {
  const owner = column.relation ? catalog.model(catalog.model(model).relations[column.relation].target) : catalog.model(model);
  return owner.fields[column.field].type;
}

/** `GET /{resource}/export/excel` and `/export/pdf` (placed before `/:id` in the table). */
export function exportRoutes(service: ResourceService, options: ExportOptions): RouteDefinition[] {
  const resource = service.entry.declaration.name;
  return (['excel', 'pdf'] as const).map((format) => ({
    name: `${resource}.export${format === 'excel' ? 'Excel' : 'Pdf'}`,
    resource,
    model: service.name,
    action: format === 'excel' ? 'exportExcel' : 'exportPdf',
    method: 'get' as const,
    path: `/${resource}/export/${format}`,
    access: 'read' as const,
    answers: 'stream' as const,
    summary: format === 'excel' ? 'Export the filtered list as a spreadsheet' : 'Export the filtered list as a PDF table',
    handler: (input: RouteInput) => runExport(input, service, format, options),
  }));
}
