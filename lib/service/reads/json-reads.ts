import type { HiddenFields, JsonPlan, JsonReadOptions, JsonReads, JsonRows } from '../../driver/json-read';
import type { RestConfig } from '../../config';
import type { ListQuery } from '../../query/ast';
import { encodeCursor } from '../../query/cursor';
import type { CatalogView } from '../policy/catalog-view';
import { tooManyLoaded } from './loaded-size';
import type { RequestContext } from '../request-context';
import type { PlannedList, PlannedShow } from '../resource-service-types';

/**
 * The fast path of list, first and show (issue 36): the answer's JSON text built by the database
 * (drivers that offer `planJson`/`runJson`: the SQL driver) and wrapped in its envelope here, never parsed
 * or re-serialized in Node. It runs inside the service's `timed` (query log, error translation)
 * and behind the read gate (the cache stores the text), after the same pipeline (scopes,
 * ownership, soft delete, transforms, beforeList, the read policy's narrowed columns): those are
 * all in the query. Each function answers null where the usual path must run instead:
 *   - a driver without JSON reads (MongoDB);
 *   - an afterList / afterShow hook (it wants records);
 *   - a page kind changed by beforeList (the envelope follows the parsed query);
 *   - a field or pivot column whose JSON the database would write differently (json-values.ts:
 *     date arrays, HSTORE, ranges, geometry...);
 *   - an unpaginated list longer than its cap (the usual path cuts it and says `truncated`);
 *   - a show the usual path answers in one statement (JsonReadOptions.single: measured slower).
 * The read policy's hidden fields are left out by the statement itself (HiddenFields), and the
 * related records are counted in it, so REST_MAX_LOADED_RECORDS refuses the same answers.
 */
export interface JsonReadHost {
  /** The database door's JSON reads, when its driver builds JSON (service/database.ts). */
  readonly json: JsonReads | null;
  readonly config: RestConfig;
  hooksAfter(action: 'list' | 'show'): boolean;
  viewOf(ctx: RequestContext): CatalogView;
  timed<T>(action: string, query: ListQuery, work: () => Promise<T>): Promise<T>;
  notFound(rawId: string): Error;
}

const views = new WeakMap<CatalogView, HiddenFields>();

/** The caller's hidden fields per model, as stripHidden removes them; null for an open view. */
function hiddenOf(view: CatalogView): HiddenFields | null {
  if (view.open) return null;
  let hidden = views.get(view);
  if (!hidden) {
    const sets = new Map<string, ReadonlySet<string> | null>();
    const of = (model: string): ReadonlySet<string> | null => {
      if (!sets.has(model)) {
        const fields = view.model(model).fields;
        sets.set(model, view.restricted(model) ? new Set(Object.keys(fields).filter((f) => fields[f].writeOnly)) : null);
      }
      return sets.get(model) ?? null;
    };
    hidden = { key: view, of };
    views.set(view, hidden);
  }
  return hidden;
}

async function read(host: JsonReadHost, action: string, query: ListQuery, ctx: RequestContext, options: JsonReadOptions = {}): Promise<JsonRows | null> {
  const driver = host.json;
  if (!driver) return null;
  let plan: JsonPlan | null;
  try {
    plan = driver.planJson(query, hiddenOf(host.viewOf(ctx)), options);
  } catch {
    // whatever cannot be compiled fails the usual path's way, translated and logged there
    return null;
  }
  if (!plan) return null;
  const ready = plan;
  const rows = await host.timed(action, query, () => driver.runJson(ready));
  if (rows && query.relations.length > 0 && rows.loaded > host.config.maxLoadedRecords) throw tooManyLoaded(host.config.maxLoadedRecords);
  return rows;
}

/** A list's answer as JSON text, or null (the usual path answers). */
export async function listText(host: JsonReadHost, plan: PlannedList, ctx: RequestContext, action: string): Promise<string | null> {
  const { parsed, query } = plan;
  const page = parsed.page;
  if (host.hooksAfter('list') || (page?.kind ?? null) !== (query.page?.kind ?? null)) return null;
  if (!host.json) return null;
  const result = await read(host, action, query, ctx);
  if (!result) return null;
  const data = `[${result.data}]`;
  if (!page) {
    // listEnvelope's cut: one row over the cap means more matched
    const cap = parsed.limit !== null && parsed.limit > 1 ? parsed.limit - 1 : null;
    return cap !== null && result.rows > cap ? null : `{"data":${data}}`;
  }
  if (page.kind === 'cursor') {
    const hasMore = result.hasMore === true;
    const next = hasMore && result.nextAfter ? JSON.stringify(encodeCursor(result.nextAfter, parsed)) : 'null';
    return `{"data":${data},"per_page":${page.size},"next_cursor":${next},"has_more":${hasMore}}`;
  }
  const total = result.total ?? 0;
  const from = result.rows === 0 ? null : (page.page - 1) * page.size + 1;
  const to = from === null ? null : from + result.rows - 1;
  return `{"current_page":${page.page},"data":${data},"total":${total},"per_page":${page.size},"last_page":${Math.max(1, Math.ceil(total / page.size))},"from":${from},"to":${to}}`;
}

/** `/first`'s answer as JSON text, or null. */
export async function firstText(host: JsonReadHost, plan: PlannedList, ctx: RequestContext): Promise<string | null> {
  if (host.hooksAfter('list') || !host.json || plan.query.page || plan.query.limit !== 1) return null;
  const result = await read(host, 'first', plan.query, ctx);
  return result ? `{"data":${result.rows > 0 ? result.data : 'null'}}` : null;
}

/** A show's answer as JSON text (404 when the record is not visible), or null. */
export async function showText(host: JsonReadHost, plan: PlannedShow, ctx: RequestContext): Promise<string | null> {
  if (host.hooksAfter('show') || !host.json) return null;
  const result = await read(host, 'show', plan.query, ctx, { single: true });
  if (!result) return null;
  if (result.rows === 0) throw host.notFound(plan.rawId);
  // one id: one row (a by-ids read matches the key)
  return result.rows === 1 ? result.data : null;
}
