import { LRUCache } from 'lru-cache';
import type { ListQuery } from '../../lib/query/ast';
import type { Catalog } from '../../lib/resource/model-info';
import type { HiddenFields } from '../../lib/driver/json-read';
import { compileFilter } from './compile-filter';
import { pagePrepared } from './prepare-policy';
import { compileCountFilter } from './compile-count-filter';
import { compileTreeCondition } from './compile-tree';
import { compileOrder, keysetCondition, type OrderPlan } from './compile-order';
import { selectFields } from './compile-relations';
import { CompileContext } from './compile-context';
import { BUILTIN_FOLD, type CaseFold } from './case-fold';
import { NotRenderable, renderLevel } from './compile-json-loads';
import type { NativeType } from './json-values';
import { ParamBuilder, quoteIdent, type SqlStatement } from './sql-builder';
import type { ModelMap } from './model-map';

/**
 * A list or show as ONE statement whose single row holds the answer's rows as JSON text (issue
 * 36): the page is selected first (`w`, the usual filter, order, LIMIT/OFFSET), each page row's
 * loads are LATERAL subqueries rendering their records with row_to_json and string_agg, the rows are
 * joined in page order by string_agg, and an offset page's count rides along as a scalar
 * subquery. Node never parses it: the service wraps `data` in the envelope and sends the text.
 *
 *   SELECT string_agg(row_to_json(v)::text, ',' ORDER BY w.__k0) AS data, count(*) AS rows,
 *          sum(<related records>) AS loaded, (SELECT count(*) FROM ... WHERE <filter>) AS total
 *   FROM (SELECT <root fields>, <order keys> FROM products t0 ... LIMIT 25 OFFSET 50) AS w
 *   LEFT JOIN LATERAL (SELECT row_to_json(v2) AS j, 1 + ... AS c FROM categories ...) AS r1 ON TRUE
 *   LEFT JOIN LATERAL (SELECT ('[' || string_agg(x.j::text, ',' ORDER BY x.k) || ']')::json AS j, ... FROM reviews ...) AS r3 ON TRUE
 *   CROSS JOIN LATERAL (SELECT w.id AS id, ..., r1.j AS category, r3.j AS reviews) AS v
 */
export interface CompiledJson {
  model: string;
  statement: SqlStatement;
  counted: boolean;
  /** Cursor pages: the page size, and the order keys' fields (the last visible row's come back as `after`). */
  cursor: { size: number; keys: OrderPlan['keys'] } | null;
}

/** The part that depends on the query's shape only (model, select, order, loads, view), not on filter values. */
interface JsonHead {
  inner: string;
  root: string;
  order: OrderPlan;
  from: string;
  object: string;
  count: string;
  aliases: number;
}

/** Heads by query shape, per view of hidden fields; only heads that bound no value are kept. */
export class JsonHeadCache {
  private readonly open = new LRUCache<string, JsonHead>({ max: 500 });
  private readonly byView = new WeakMap<object, LRUCache<string, JsonHead>>();

  of(hidden: HiddenFields | null): LRUCache<string, JsonHead> {
    if (!hidden) return this.open;
    let cache = this.byView.get(hidden.key);
    if (!cache) {
      cache = new LRUCache<string, JsonHead>({ max: 200 });
      this.byView.set(hidden.key, cache);
    }
    return cache;
  }
}

export type NativeTypes = (model: string, field: string) => NativeType;

const W = 'w';

function compileHead(query: ListQuery, ctx: CompileContext, params: ParamBuilder, native: NativeTypes, hidden: HiddenFields | null): JsonHead {
  const model = query.model;
  const fields = selectFields(ctx, model, query.select, query.relations);
  const root = params.alias('t');
  const order = compileOrder(query.order, ctx, model, root, params);
  const columns = [...fields.map((f) => `${ctx.column(model, root, f)} AS ${quoteIdent(f)}`), ...order.selects];
  let inner = `SELECT ${columns.join(', ')} FROM ${ctx.table(model)} AS ${quoteIdent(root)}`;
  if (order.joins.length) inner += ` ${order.joins.join(' ')}`;
  const env = { ctx, params, native, hidden, cap: query.loadLimit ?? null };
  const level = renderLevel(env, model, fields, query.relations, (f) => `${quoteIdent(W)}.${quoteIdent(f)}`, true);
  return { inner, root, order, from: level.from, object: level.object, count: level.count, aliases: params.aliasCount };
}

const headKey = (query: ListQuery): string =>
  `${query.model}\u0000${JSON.stringify(query.select)}\u0000${JSON.stringify(query.order)}\u0000${JSON.stringify(query.relations)}\u0000${query.loadLimit ?? ''}`;

/** The JSON statement of a list/show, or null when some part cannot be rendered as the usual path answers (NotRenderable). */
export function compileJson(query: ListQuery, catalog: Catalog, tables: ModelMap, native: NativeTypes, hidden: HiddenFields | null, heads: JsonHeadCache, caseFold: CaseFold = BUILTIN_FOLD): CompiledJson | null {
  const ctx = new CompileContext(catalog, tables, caseFold);
  const model = query.model;
  const params = new ParamBuilder();
  const cache = heads.of(hidden);
  const key = headKey(query);
  let head = cache.get(key);
  if (head) params.skipAliases(head.aliases);
  else {
    try {
      head = compileHead(query, ctx, params, native, hidden);
    } catch (error) {
      if (error instanceof NotRenderable) return null;
      throw error;
    }
    if (params.bind.length === 0) cache.set(key, head);
  }
  const headBound = params.bind.length > 0;
  const where: string[] = [];
  if (query.tree) where.push(compileTreeCondition(query.tree, ctx, model, head.root, params));
  if (query.filter) where.push(compileFilter(query.filter, ctx, model, head.root, params));
  const page = query.page;
  if (page?.kind === 'cursor' && page.after) where.push(keysetCondition(head.order.keys, page.after, params));
  let tail = where.length ? ` WHERE ${where.join(' AND ')}` : '';
  if (head.order.orderBy) tail += ` ORDER BY ${head.order.orderBy}`;
  if (page?.kind === 'offset') tail += ` LIMIT ${params.param(page.size)} OFFSET ${params.param((page.page - 1) * page.size)}`;
  else if (page?.kind === 'cursor') tail += ` LIMIT ${params.param(page.size + 1)}`;
  else if (query.limit !== null) tail += ` LIMIT ${params.param(query.limit)}`;
  const outer = head.order.outerOrderBy(W);
  const ordered = outer ? ` ORDER BY ${outer}` : '';
  // a cursor page reads one row more (has_more): numbered, the extra one is left out of data and counts
  const visible = page?.kind === 'cursor' ? ` FILTER (WHERE ${quoteIdent(W)}."__n" <= ${Math.floor(page.size)})` : '';
  let sql = `SELECT string_agg(${head.object}::text, ','${ordered})${visible} AS "data", count(*) AS "rows", coalesce(sum(${head.count})${visible}, 0) AS "loaded"`;
  if (page?.kind === 'cursor') {
    const keys = head.order.keys.map((k) => `${quoteIdent(W)}.${quoteIdent(k.alias)}`).join(', ');
    sql += `, string_agg(json_build_array(${keys})::text, '') FILTER (WHERE ${quoteIdent(W)}."__n" = ${Math.floor(page.size)}) AS "after"`;
  }
  if (page?.kind === 'offset') {
    const c = params.alias('c');
    const conditions = [
      ...(query.tree ? [compileTreeCondition(query.tree, ctx, model, c, params)] : []),
      ...(query.filter ? [compileCountFilter(query.filter, ctx, model, c, params)] : []),
    ];
    sql += `, (SELECT count(*) FROM ${ctx.table(model)} AS ${quoteIdent(c)}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''}) AS "total"`;
  }
  const pageRows = `(${head.inner}${tail})`;
  const from = page?.kind === 'cursor' ? `(SELECT "n".*, row_number() OVER (${head.order.outerOrderBy('n') ? `ORDER BY ${head.order.outerOrderBy('n')}` : ''}) AS "__n" FROM ${pageRows} AS "n")` : pageRows;
  sql += ` FROM ${from} AS ${quoteIdent(W)} ${head.from}`;
  const prepare = pagePrepared(query, ctx, model, headBound);
  const cursor = page?.kind === 'cursor' ? { size: page.size, keys: head.order.keys } : null;
  return { model, statement: { sql, bind: params.bind, prepare }, counted: page?.kind === 'offset', cursor };
}
