import { ResourceServiceBase } from './resource-service-base';
import type { Row } from '../../driver';
import type { RequestParams } from '../../query';
import { parseListQuery, parseReadOptions, withTrashed } from '../../query/parse-list-query';
import type { Filter, ListQuery } from '../../query/ast';
import { allOf } from '../../query/walk';
import { listEnvelope, type ListEnvelope } from './envelopes';
import { aggregateEnvelope, planAggregate, runAggregateOn, type AggregateEnvelope, type PlannedAggregate } from './aggregate';
import { runHook } from '../hooks';
import { byIdsQuery, inIdOrder } from './read-by-ids';
import type { RequestContext } from '../request-context';
import type { PlannedList, PlannedShow } from '../resource-service-types';
import { rowBatches } from './row-batches';
import { stripHidden, type CatalogView } from '../policy/catalog-view';
import { firstText, listText, showText, type JsonReadHost } from './json-reads';
import { JsonText } from './json-text';

/** The read paths of a resource: list, first, count, aggregate and show. */
export class ResourceReads extends ResourceServiceBase {
  /**
   * The parsed list query of a request, before the pipeline (cursors are bound to it). Parsed
   * against the caller's view: a field they may not read is unknown in every position.
   */
  parseList(params: RequestParams, ctx: RequestContext, options: { forFirst?: boolean } = {}): ListQuery {
    const view = this.pipeline.viewOf(ctx);
    return parseListQuery(params, view.model(this.name), view, this.config, options);
  }

  /** The query as the driver will run it: scopes and transforms applied, then the beforeList hook. */
  async prepareList(parsed: ListQuery, ctx: RequestContext): Promise<ListQuery> {
    return runHook(this.hooks.beforeList, this.pipeline.apply(parsed, ctx), ctx);
  }

  /** A list read, planned: the parsed query (cursors are bound to it) and the query the driver will run. */
  async planList(params: RequestParams, ctx: RequestContext, options: { forFirst?: boolean } = {}): Promise<PlannedList> {
    const parsed = this.parseList(params, ctx, options);
    return { parsed, query: await this.prepareList(parsed, ctx) };
  }

  async runList(plan: PlannedList, ctx: RequestContext, action = 'index'): Promise<ListEnvelope> {
    const result = await this.timed(action, plan.query, () => this.database.list(plan.query));
    result.rows = await runHook(this.hooks.afterList, this.shape(result.rows, plan.query, ctx), ctx);
    return listEnvelope(plan.parsed, result);
  }

  async list(params: RequestParams, ctx: RequestContext, action = 'index'): Promise<ListEnvelope> {
    return this.runList(await this.planList(params, ctx), ctx, action);
  }

  /** Every row of a prepared query, as the caller may see it (hierarchy reads assemble them). */
  async runRows(query: ListQuery, ctx: RequestContext, action: string): Promise<Row[]> {
    const result = await this.timed(action, query, () => this.database.list(query));
    return runHook(this.hooks.afterList, this.shape(result.rows, query, ctx), ctx);
  }

  async runFirst(plan: PlannedList, ctx: RequestContext): Promise<{ data: Row | null }> {
    const result = await this.timed('first', plan.query, () => this.database.list(plan.query));
    const rows = await runHook(this.hooks.afterList, this.shape(result.rows, plan.query, ctx), ctx);
    return { data: rows[0] ?? null };
  }

  async first(params: RequestParams, ctx: RequestContext): Promise<{ data: Row | null }> {
    return this.runFirst(await this.planList(params, ctx, { forFirst: true }), ctx);
  }

  /** How many records a query matches (one count; the query's page and loads are ignored). */
  async count(query: ListQuery): Promise<number> {
    const key = this.entry.info.key;
    const probe: ListQuery = { ...query, select: [key], relations: [], page: { kind: 'offset', page: 1, size: 1 }, limit: null };
    const { total } = await this.timed('count', probe, () => this.database.list(probe));
    return total ?? 0;
  }

  /** GET /aggregate (decisions 55-57), planned: parsed against the caller's view, its filter through the list's pipeline. */
  planAggregate(params: RequestParams, ctx: RequestContext): Promise<PlannedAggregate> {
    const view = this.pipeline.viewOf(ctx);
    return planAggregate(params, view.model(this.name), view, this.config, (carrier) => this.prepareList(carrier, ctx));
  }

  /** Runs a planned aggregate; the query log shows the aggregate query (its driver form is not a list's). */
  async runAggregate(plan: PlannedAggregate): Promise<AggregateEnvelope> {
    const started = performance.now();
    try {
      return aggregateEnvelope(plan.query, await runAggregateOn(this.database, plan));
    } catch (err) {
      throw this.translated(err);
    } finally {
      this.logQuery('aggregate', { aggregate: plan.query }, Math.round((performance.now() - started) * 10) / 10);
    }
  }

  /** A show, planned: the id (404 when it cannot be one) and the scoped by-id query. */
  async planShow(rawId: string, params: RequestParams, ctx: RequestContext): Promise<PlannedShow> {
    const id = this.parseIdOr404(rawId);
    if (this.hooks.beforeShow) await this.hooks.beforeShow(id, ctx);
    const view = this.pipeline.viewOf(ctx);
    const options = parseReadOptions(params, view.model(this.name), view, this.config);
    const loadLimit = options.relations.length > 0 ? { loadLimit: this.config.maxLoadedRecords } : {};
    return { rawId, id, query: this.pipeline.apply({ ...byIdsQuery(this.entry.info, [id], options), ...withTrashed(params, this.entry.info), ...loadLimit }, ctx) };
  }

  async runShow(plan: PlannedShow, ctx: RequestContext): Promise<Row> {
    const { rows } = await this.timed('show', plan.query, () => this.database.list(plan.query));
    const row = inIdOrder(this.shape(rows, plan.query, ctx), [plan.id], this.entry.info.key)[0];
    if (!row) throw this.notFound(plan.rawId);
    return runHook(this.hooks.afterShow, row, ctx);
  }

  async show(rawId: string, params: RequestParams, ctx: RequestContext): Promise<Row> {
    return this.runShow(await this.planShow(rawId, params, ctx), ctx);
  }

  /**
   * An export's read, planned and counted before its first byte (a problem is still a JSON 4xx):
   * the list's query parsed against the caller's view, narrowed (a relation's members), its page
   * and limit dropped, reading what `reads` picks from that view (the export's columns, checked
   * there), then through the list's pipeline.
   */
  async planExport(params: RequestParams, ctx: RequestContext, narrow: Filter | null, reads: (view: CatalogView) => Pick<ListQuery, 'select' | 'relations'>): Promise<{ query: ListQuery; total: number }> {
    const parsed = this.parseList(params, ctx);
    const picked = reads(this.pipeline.viewOf(ctx));
    const query = await this.prepareList({ ...parsed, filter: narrow ? allOf(parsed.filter, narrow) : parsed.filter, ...picked, page: null, limit: null }, ctx);
    return { query, total: await this.count(query) };
  }

  /**
   * Every row of an export query in bounded batches, through the database door like any read: the
   * read policy's hidden fields removed and `afterList` hooks run on each batch.
   */
  async *exportBatches(query: ListQuery, ctx: RequestContext): AsyncGenerator<Row[]> {
    this.logQuery('export', query);
    const view = this.pipeline.viewOf(ctx);
    for await (const batch of rowBatches(this.database, query, ctx.signal)) {
      yield runHook(this.hooks.afterList, stripHidden(batch, query.model, query.relations, view), ctx);
    }
  }

  /**
   * The answers of the list, first and show routes, in one call each: JSON text built by the
   * database where it can (issue 36's fast path, json-reads.ts), else the envelope or record (serialized in place when
   * no after hook has seen it).
   */
  async listAnswer(plan: PlannedList, ctx: RequestContext): Promise<unknown> {
    return JsonText.of(await listText(this.jsonHost, plan, ctx, 'index')) ?? this.owned('list', await this.runList(plan, ctx));
  }

  async firstAnswer(plan: PlannedList, ctx: RequestContext): Promise<unknown> {
    return JsonText.of(await firstText(this.jsonHost, plan, ctx)) ?? this.owned('list', await this.runFirst(plan, ctx));
  }

  async showAnswer(plan: PlannedShow, ctx: RequestContext): Promise<unknown> {
    return JsonText.of(await showText(this.jsonHost, plan, ctx)) ?? this.owned('show', await this.runShow(plan, ctx));
  }

  private host: JsonReadHost | null = null;

  private get jsonHost(): JsonReadHost {
    const self = this;
    return (this.host ??= {
      get json() {
        return self.database.jsonReads;
      },
      config: this.config,
      hooksAfter: (action) => this.hooksAfter(action),
      viewOf: (ctx) => this.viewOf(ctx),
      timed: (action, query, work) => this.timed(action, query, work),
      notFound: (rawId) => this.notFound(rawId),
    });
  }
}
