import { LRUCache } from 'lru-cache';
import type { ListQuery, Page, RelationLoad } from '../../lib/query/ast';
import type { Catalog, FieldInfo } from '../../lib/resource/model-info';
import { compileFilter } from './compile-filter';
import { pagePrepared } from './prepare-policy';
import { compileCountFilter } from './compile-count-filter';
import { compileTreeCondition } from './compile-tree';
import { compileOrder, keysetCondition, type OrderPlan } from './compile-order';
import { compileRelationLoads, selectFields, type RelationPlan } from './compile-relations';
import { compileJoins, type CompiledJoins, type JoinPlan } from './compile-joins';
import { compileEmbed, type EmbedPlan } from './compile-embeds';
import { CompileContext } from './compile-context';
import { BUILTIN_FOLD, type CaseFold } from './case-fold';
import { ParamBuilder, quoteIdent, type SqlStatement } from './sql-builder';
import type { ModelMap } from './model-map';

export interface CompiledList {
  model: string;
  /** The page of root rows (size + 1 rows for cursor pages). */
  rows: SqlStatement;
  /** Offset pages: count on the root table, relation filters as EXISTS. */
  count: SqlStatement | null;
  /** Root output fields. */
  fields: string[];
  /** Helper aliases holding the order-key values, and their fields (for cursors). */
  keys: { alias: string; field: FieldInfo }[];
  /** Root relation loads needing their own statement (to-many, many-to-many). */
  relations: RelationPlan[];
  /** Root to-one loads joined into `rows` (compile-joins.ts). */
  joins: JoinPlan[];
  /**
   * The root's other loads in request order: embedded into `rows` as JSON (compile-embeds.ts)
   * or, with `embed` null, loaded by their statement in `relations`.
   */
  rest: { name: string; embed: EmbedPlan | null }[];
  page: Page | null;
  /** Every statement (relation ones with $1 = the parent keys), for the query log. */
  statements: SqlStatement[];
}

/**
 * Compiled parts that depend on the query's shape only, never on a client value: relation plans
 * by their load tree, and statement heads (below). Bounded; entries are never mutated by their users.
 */
export class RelationPlanCache {
  private readonly plans = new LRUCache<string, RelationPlan[]>({ max: 500 });
  /** Statement heads by model, select, order and eager loads; only heads that bound no value. */
  readonly heads = new LRUCache<string, Head>({ max: 500 });

  get(model: string, loads: RelationLoad[], compile: () => RelationPlan[]): RelationPlan[] {
    if (loads.length === 0) return [];
    const key = `${model}\u0000${JSON.stringify(loads)}`;
    let plans = this.plans.get(key);
    if (!plans) {
      plans = compile();
      this.plans.set(key, plans);
    }
    return plans;
  }
}

/**
 * The part of a list/show statement before WHERE: `SELECT <columns> FROM <table> <joins>`, the
 * ORDER BY, the output fields, joined to-one loads and relation plans. It depends on the model,
 * the select, the order and the eager loads, not on the filter's values or the page: a show by
 * another id or a list with other filter values reuses it (the profiles had compiling at a tenth
 * of the library's time on a show). A head whose joined loads bound filter values is not cached.
 */
interface Head {
  sql: string;
  /** The root table's alias. */
  root: string;
  orderBy: string;
  order: OrderPlan;
  fields: string[];
  joined: CompiledJoins;
  rest: CompiledList['rest'];
  /** Embedded loads: the page is selected as `alias`, their subqueries run over it, in `orderBy`. */
  wrap: { alias: string; columns: string; orderBy: string } | null;
  relations: RelationPlan[];
  /** Table aliases the head numbered (t0, j1, ...): the WHERE clause's continue after them. */
  aliases: number;
}

function compileHead(query: ListQuery, ctx: CompileContext, params: ParamBuilder, plansOf: (target: string, loads: RelationLoad[]) => RelationPlan[]): Head {
  const model = query.model;
  const fields = selectFields(ctx, model, query.select, query.relations);
  const root = params.alias('t');
  const order = compileOrder(query.order, ctx, model, root, params);
  const joined = compileJoins(query.relations, ctx, model, root, params, plansOf);
  const rest: CompiledList['rest'] = [];
  const embedColumns: string[] = [];
  const separate: RelationLoad[] = [];
  const outer = joined.rest.length ? params.alias('w') : '';
  for (const load of joined.rest) {
    const embedded = compileEmbed(load, ctx, model, `${quoteIdent(outer)}.${quoteIdent(ctx.model(model).key)}`, params, query.loadLimit ?? null);
    rest.push({ name: load.name, embed: embedded?.plan ?? null });
    if (embedded) embedColumns.push(embedded.column);
    else separate.push(load);
  }
  const relations = plansOf(model, separate);
  const columns = [...fields.map((f) => `${ctx.column(model, root, f)} AS ${quoteIdent(f)}`), ...order.selects, ...joined.columns];
  const wrap = embedColumns.length ? { alias: outer, columns: embedColumns.join(', '), orderBy: order.outerOrderBy(outer) } : null;
  let sql = `SELECT ${columns.join(', ')} FROM ${ctx.table(model)} AS ${quoteIdent(root)}`;
  if (order.joins.length) sql += ` ${order.joins.join(' ')}`;
  if (joined.sql.length) sql += ` ${joined.sql.join(' ')}`;
  return { sql, root, orderBy: order.orderBy, order, fields, joined, rest, wrap, relations, aliases: params.aliasCount };
}

/** Whole statement texts per cached head, by what follows the head (WHERE, ORDER BY, LIMIT); bounded per head. */
const texts = new WeakMap<Head, Map<string, string>>();
const TEXTS_PER_HEAD = 50;

/**
 * head + tail, wrapped when loads are embedded (their subqueries run over the page only, not over
 * rows an OFFSET skips). For a cached head the same text object comes back for the same tail: a
 * prepared statement is then found by a text whose hash V8 already holds, instead of a new
 * 1-2 KB string built, flattened and hashed on every request.
 */
function statementText(head: Head, tail: string, fresh: boolean): string {
  const known = fresh ? undefined : texts.get(head);
  const hit = known?.get(tail);
  if (hit !== undefined) return hit;
  const { wrap } = head;
  const inner = head.sql + tail;
  const sql = wrap ? `SELECT ${quoteIdent(wrap.alias)}.*, ${wrap.columns} FROM (${inner}) AS ${quoteIdent(wrap.alias)}${wrap.orderBy ? ` ORDER BY ${wrap.orderBy}` : ''}` : inner;
  if (fresh) return sql;
  const map = known ?? new Map<string, string>();
  if (!known) texts.set(head, map);
  if (map.size < TEXTS_PER_HEAD) map.set(tail, sql);
  return sql;
}

const headKey = (query: ListQuery): string =>
  `${query.model}\u0000${JSON.stringify(query.select)}\u0000${JSON.stringify(query.order)}\u0000${JSON.stringify(query.relations)}\u0000${query.loadLimit ?? ''}`;

/** ListQuery -> SQL statements with bound parameters. Pure: no connection, no Sequelize; `caseFold`: the server's (server-facts.ts). */
export function compileList(query: ListQuery, catalog: Catalog, tables: ModelMap, plans?: RelationPlanCache, caseFold: CaseFold = BUILTIN_FOLD): CompiledList {
  const ctx = new CompileContext(catalog, tables, caseFold);
  const model = query.model;
  const plansOf = (target: string, loads: RelationLoad[]) => (plans ? plans.get(target, loads, () => compileRelationLoads(loads, ctx, target)) : compileRelationLoads(loads, ctx, target));

  const params = new ParamBuilder();
  let head: Head;
  const key = plans ? headKey(query) : '';
  const cached = plans?.heads.get(key);
  if (cached) {
    head = cached;
    params.skipAliases(head.aliases);
  } else {
    head = compileHead(query, ctx, params, plansOf);
    if (plans && params.bind.length === 0) plans.heads.set(key, head);
  }
  const { order, fields, joined, relations, root, rest } = head;
  const headBound = params.bind.length > 0;
  const where: string[] = [];
  if (query.tree) where.push(compileTreeCondition(query.tree, ctx, model, root, params));
  if (query.filter) where.push(compileFilter(query.filter, ctx, model, root, params));
  const page = query.page;
  if (page?.kind === 'cursor' && page.after) where.push(keysetCondition(order.keys, page.after, params));
  let tail = where.length ? ` WHERE ${where.join(' AND ')}` : '';
  if (head.orderBy) tail += ` ORDER BY ${head.orderBy}`;
  if (page?.kind === 'offset') tail += ` LIMIT ${params.param(page.size)} OFFSET ${params.param((page.page - 1) * page.size)}`;
  else if (page?.kind === 'cursor') tail += ` LIMIT ${params.param(page.size + 1)}`;
  else if (query.limit !== null) tail += ` LIMIT ${params.param(query.limit)}`;
  const sql = statementText(head, tail, !cached);
  const prepare = pagePrepared(query, ctx, model, headBound);
  const rows: SqlStatement = { sql, bind: params.bind, prepare };

  let count: SqlStatement | null = null;
  if (page?.kind === 'offset') {
    const countParams = new ParamBuilder();
    const c = countParams.alias('t');
    const conditions = [
      ...(query.tree ? [compileTreeCondition(query.tree, ctx, model, c, countParams)] : []),
      ...(query.filter ? [compileCountFilter(query.filter, ctx, model, c, countParams)] : []),
    ];
    const filter = conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '';
    count = { sql: `SELECT count(*) AS "total" FROM ${ctx.table(model)} AS ${quoteIdent(c)}${filter}`, bind: countParams.bind, prepare };
  }

  const statements = [rows, ...(count ? [count] : [])];
  const collect = (list: RelationPlan[]): void => {
    for (const plan of list) {
      statements.push(plan.statement);
      collect(plan.children);
    }
  };
  const collectJoined = (list: JoinPlan[]): void => {
    for (const join of list) {
      collect(join.relations);
      collectJoined(join.joins);
    }
  };
  collect(relations);
  collectJoined(joined.joins);
  return {
    model,
    rows,
    count,
    fields,
    keys: order.keys.map((k) => ({ alias: k.alias, field: k.field })),
    relations,
    joins: joined.joins,
    rest,
    page,
    statements,
  };
}
