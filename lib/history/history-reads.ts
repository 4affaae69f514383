import type { HistoryEntry, Id } from '../driver';
import { NotFoundError } from '../errors';
import type { ListQuery } from '../query/ast';
import type { RequestParams } from '../query';
import { parsePagination } from '../query/parse-pagination';
import { parseSoftDelete } from '../query/parse-soft-delete';
import type { RestConfig } from '../config';
import { matchesFilter } from '../changes/match-filter';
import type { RequestContext } from '../service/request-context';
import type { ResourceService } from '../service/resource-service';
import { formatDate } from '../service/reads/serialize';
import { readableFields } from '../resource/model-lookup';
import type { ModelInfo } from '../resource/model-info';
import { historyValue } from './entry-changes';
import { retainOf } from './retention';

/** One entry as the API shows it (decision 83), `changes` narrowed to the fields the caller may read. */
export function renderEntry(entry: HistoryEntry, readable: Set<string>, info: ModelInfo): Record<string, unknown> {
  const changes: Record<string, [unknown, unknown]> = {};
  // values as the API renders them (an UPDATE's own append stores dates as PostgreSQL writes them)
  for (const [field, [before, after]] of Object.entries(entry.changes)) if (readable.has(field)) changes[field] = [historyValue(info, field, before), historyValue(info, field, after)];
  return { version: entry.version, op: entry.op, at: formatDate(entry.at instanceof Date ? entry.at : new Date(entry.at)), actor: { id: entry.actor?.id ?? null, roles: entry.actor?.roles ?? [] }, request_id: entry.requestId, changes };
}

/** The fields the caller may read on the resource (the read policy's view). */
export function readableFieldsOf(service: ResourceService, ctx: RequestContext): Set<string> {
  return new Set(readableFields(service.viewOf(ctx).model(service.name)));
}

/**
 * Whether the caller may read the record's history (decision 83): the show permission is the
 * route's; the record must be one their show would find (`soft_delete=with` for a trashed one).
 * A record deleted for good is judged on its last stored values, the `deleted` or
 * `force_deleted` entry on top, against the caller's read scope.
 */
export async function assertHistoryReadable(service: ResourceService, rawId: string, id: Id, params: RequestParams, ctx: RequestContext): Promise<void> {
  const trashed = parseSoftDelete(params);
  try {
    await service.show(rawId, trashed ? { soft_delete: trashed } : {}, ctx);
    return;
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    const missing = error;
    if ((await service.database.guarded(() => service.database.existingIds(service.name, [id]))).length > 0) throw missing;
    const store = service.database.history!;
    const [top] = (await store.read(service.name, id, 0, 1, retainOf(service.entry.declaration.history))).entries;
    if (!top || (top.op !== 'deleted' && top.op !== 'force_deleted')) throw missing;
    const info = service.entry.info;
    const last: Record<string, unknown> = { [info.key]: id };
    for (const [field, [before]] of Object.entries(top.changes)) last[field] = before;
    const root: ListQuery = { model: service.name, filter: null, select: null, relations: [], order: [], page: null, limit: null, trashed: 'with' };
    if (!matchesFilter(service.rootScope(root, ctx), last, info)) throw missing;
  }
}

/** `GET /{resource}/{id}/history`: the record's entries newest first, in the offset list envelope. */
export async function historyPage(service: ResourceService, rawId: string, params: RequestParams, ctx: RequestContext, config: RestConfig): Promise<unknown> {
  const store = service.database.history;
  const id = service.database.parseId(service.name, rawId);
  if (!store || id === null) throw new NotFoundError(`No ${service.entry.declaration.name} record with id ${rawId}.`);
  await assertHistoryReadable(service, rawId, id, params, ctx);
  const page = parsePagination(params.pagination, config, () => []);
  const size = page?.size ?? config.defaultPageSize;
  const number = page?.kind === 'offset' ? page.page : 1;
  const { entries, total } = await store.read(service.name, id, (number - 1) * size, size, retainOf(service.entry.declaration.history));
  const readable = readableFieldsOf(service, ctx);
  const from = entries.length === 0 ? null : (number - 1) * size + 1;
  return { current_page: number, data: entries.map((e) => renderEntry(e, readable, service.entry.info)), per_page: size, total, last_page: Math.max(1, Math.ceil(total / size)), from, to: from === null ? null : from + entries.length - 1 };
}
