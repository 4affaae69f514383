import { ForbiddenError, ApiError } from '../errors';
import type { RouteDefinition, RouteInput } from '../http/routes';
import type { RestConfig } from '../config';
import type { ResourceService } from '../service/resource-service';
import { fileDigest, openSource } from './import-source';
import { readImportOptions } from './import-options';
import { ProgressStream } from './progress-stream';
import { readCsv } from './read-csv';
import { readXlsx } from './read-xlsx';
import { runImport, type ImportSummary } from './run-import';
import { Reply } from '../http/routes';

export interface ImportRouteOptions {
  config: RestConfig;
  serviceOf(model: string): ResourceService | undefined;
}

const errorBody = (error: unknown) =>
  error instanceof ApiError ? { message: error.message, type: error.type, status: error.status, ...error.body() } : { message: 'Internal server error', type: 'internal_error', status: 500 };

/** One import request: the answer is the summary as JSON, or a progress stream ending with it. */
async function runImportRoute(input: RouteInput, service: ResourceService, options: ImportRouteOptions): Promise<unknown> {
  const { req, res, ctx, params } = input;
  const importOptions = readImportOptions(params, service, options.config.importAtomicRows);
  // decision 82: an upsert updates too, so it needs the update right as well (403 before a byte is read)
  if (importOptions.mode === 'upsert' && !service.mayUpdate(ctx)) throw new ForbiddenError(`${service.entry.declaration.name}.update`, options.config.debug);
  const source = await openSource(req, options.config.importMaxBytes, input.bodyDigest !== undefined);
  const rows = source.format === 'csv' ? readCsv(source.stream) : readXlsx(source.stream);
  const rules = service.writeRules('create', ctx, {});
  const owner = service.entry.info.owner ? (rules.stamped[service.entry.info.owner] ?? null) : null;
  const stream = /text\/event-stream/i.test(req.headers.accept ?? '') ? new ProgressStream(res) : null;
  const target = { service, serviceOf: options.serviceOf, columnRules: { prohibited: rules.prohibited, catalog: service.pipeline.viewOf(ctx) }, owner };
  let summary: ImportSummary;
  try {
    summary = await runImport(rows, target, importOptions, ctx, () => stream?.open(), (p) => stream?.update(p));
  } catch (error) {
    // the rest of the upload is not read: the client gets its answer without sending it all
    source.stream.destroy();
    if (!stream?.opened) throw error;
    const body = errorBody(error);
    // sent once the router is done (the idempotency key released, see build-router.ts)
    (res.locals as { restFinish?: () => void }).restFinish = () => stream.finish('failed', { error: body });
    return new Reply(body.status, body);
  }
  // the key's answer is stored under the whole file's digest (decision 80); a failure to read the
  // rest leaves none reported, so a repeat is a 422 rather than a second import
  if (input.bodyDigest) await source.digest().then(input.bodyDigest, () => undefined);
  if (stream?.opened) (res.locals as { restFinish?: () => void }).restFinish = () => stream.finish('done', summary);
  return summary;
}

/** `POST /{resource}/import` of a resource that opts in (`imports: true`, decision 82), before `/:id`. */
export function importRoutes(service: ResourceService, options: ImportRouteOptions): RouteDefinition[] {
  const { declaration } = service.entry;
  if (!declaration.imports) return [];
  const resource = declaration.name;
  return [
    {
      name: `${resource}.import`,
      resource,
      model: service.name,
      action: 'import',
      method: 'post',
      path: `/${resource}/import`,
      access: 'create',
      answers: 'json',
      longRunning: true,
      // an Idempotency-Key compares the file's bytes (decision 80)
      streamedBody: { digest: (req) => fileDigest(req, options.config.importMaxBytes) },
      permissions: [`${resource}.store`],
      summary: 'Import records from a CSV or XLSX file',
      handler: (input: RouteInput) => runImportRoute(input, service, options),
    },
  ];
}
