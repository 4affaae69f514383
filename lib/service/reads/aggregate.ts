import { ValidationError } from '../../errors';
import type { Database } from '../database';
import type { RestConfig } from '../../config';
import type { AggregateQuery, AggregateResult } from '../../query/aggregate-ast';
import type { ListQuery } from '../../query/ast';
import type { RequestParams } from '../../query/merge-params';
import { parseAggregate } from '../../query/parse-aggregate';
import type { Catalog, ModelInfo } from '../../resource/model-info';
import type { OffsetEnvelope } from './envelopes';

/** An aggregate read, planned: the query the driver runs and its carrier (what the pipeline and the cache saw). */
export interface PlannedAggregate {
  query: AggregateQuery;
  /**
   * The list query the aggregate's filter travelled in through the query pipeline (scopes,
   * transforms, the beforeList hook): its group keys ride as sort keys, so scopes reach their
   * relations and the cache versions cover every model the answer reads.
   */
  carrier: ListQuery;
}

/** One answer item (decision 56): the group's values and only the functions asked. */
export type AggregateItem = Record<string, unknown> & { group: Record<string, unknown> };

export interface AggregateEnvelope extends Omit<OffsetEnvelope, 'data'> {
  data: AggregateItem[];
}

/**
 * Parses the request against the caller's view (a field they may not read is unknown in every
 * position) and passes the filter through `prepare` (the list's pipeline and beforeList hook).
 */
export async function planAggregate(
  params: RequestParams,
  model: ModelInfo,
  view: Catalog,
  config: RestConfig,
  prepare: (carrier: ListQuery) => Promise<ListQuery>,
): Promise<PlannedAggregate> {
  const parsed = parseAggregate(params, model, view, config);
  const { query } = parsed;
  const carrier: ListQuery = {
    model: query.model,
    filter: query.filter,
    select: [model.key],
    relations: [],
    order: query.groups.map((g) => ({ relations: g.relations, field: g.field, direction: 'asc' as const })),
    page: null,
    limit: null,
    ...(parsed.trashed ? { trashed: parsed.trashed } : {}),
  };
  const prepared = await prepare(carrier);
  const groups = query.groups.map((g, i) => {
    const scopes = prepared.order[i]?.scopes;
    return scopes ? { ...g, scopes } : g;
  });
  return { query: { ...query, filter: prepared.filter, groups }, carrier: prepared };
}

/** Runs a planned aggregate on a driver that has the capability. */
export function runAggregateOn(database: Database, plan: PlannedAggregate): Promise<AggregateResult> {
  if (!database.canAggregate) throw new Error(`The ${database.kind} driver cannot run aggregates.`);
  return database.aggregate(plan.query);
}

/** What the driver answered, as the answer items in the list envelope (decision 56). */
export function aggregateEnvelope(query: AggregateQuery, result: AggregateResult): AggregateEnvelope {
  const rows = result.rows.length === 0 && query.groups.length === 0 && query.page.page === 1 ? [emptyRow(query)] : result.rows;
  const total = query.groups.length === 0 ? 1 : result.total;
  const data = rows.map((row) => {
    const item: AggregateItem = { group: {} };
    query.groups.forEach((g, i) => (item.group[g.name] = row.group[i] ?? null));
    // a fixed key order: group, count, sum, avg, min, max, count_distinct
    for (const fn of ['count', 'sum', 'avg', 'min', 'max', 'count_distinct'] as const) {
      query.measures.forEach((m, i) => {
        if (m.fn !== fn) return;
        const value = row.values[i] ?? null;
        if (typeof value === 'number' && !Number.isFinite(value)) throw notFinite(fn, m.field);
        if (m.field === null) item.count = value;
        else ((item[fn] ??= {}) as Record<string, unknown>)[m.field] = value;
      });
    }
    return item;
  });
  const { page, size } = query.page;
  const from = data.length === 0 ? null : (page - 1) * size + 1;
  return {
    current_page: page,
    data,
    per_page: size,
    total,
    last_page: Math.max(1, Math.ceil(total / size)),
    from,
    to: from === null ? null : from + data.length - 1,
  };
}

/**
 * Decision 74: a sum or average that overflows a double is not an answer (JSON would render it as
 * null, a value it is not): a 422 naming the aggregate as orderby names it (`sum.price`).
 */
function notFinite(fn: string, field: string | null): ValidationError {
  const name = `${fn}.${field ?? '*'}`;
  const what = fn === 'avg' ? 'average' : fn;
  return new ValidationError({ [name]: [`The ${what} of ${field ?? 'the records'} (${name}) is not a finite number: it overflows a double-precision number.`] });
}

/** Without group_by, nothing matched: counts are 0, the other functions null. */
function emptyRow(query: AggregateQuery): AggregateResult['rows'][number] {
  return { group: [], values: query.measures.map((m) => (m.fn === 'count' || m.fn === 'count_distinct' ? 0 : null)) };
}
