import { DriverFailure, type Row } from '../../lib/driver';
import { loadLimitMessage } from '../../lib/query/load-limit';
import type { Catalog, FieldInfo } from '../../lib/resource/model-info';
import type { CompiledList } from './compile-list';
import type { JoinPlan } from './compile-joins';
import type { EmbedPlan } from './compile-embeds';
import type { RelationPlan } from './compile-relations';
import { convertValue } from './convert-value';
import type { RunStatement } from './advisory-locks';
import type { Target } from './run-statement';

/** What loading related records needs of the driver. */
export interface LoadContext {
  catalog(): Catalog;
  run: RunStatement;
}

/** The to-one records joined into the page: an object per row (its own), null when absent. */
export function attachJoins(ctx: LoadContext, joins: JoinPlan[], row: Row, raw: Record<string, unknown>): void {
  for (const join of joins) {
    const key = raw[join.keyAlias];
    if (key === null || key === undefined) {
      row[join.name] = null;
      continue;
    }
    const info = ctx.catalog().model(join.target).fields;
    const related: Row = {};
    for (const c of join.columns) related[c.field] = convertValue(raw[c.alias], info[c.field]?.type, info[c.field]?.itemType);
    attachJoins(ctx, join.joins, related, raw);
    row[join.name] = related;
  }
}

/**
 * The root's other loads, in request order: embedded ones from their JSON column, the others
 * left null for their statement to fill (loadRelation always sets them).
 */
export function attachRest(ctx: LoadContext, rest: CompiledList['rest'], row: Row, raw: Record<string, unknown>): void {
  for (const { name, embed } of rest) row[name] = embed ? embedded(ctx, embed, raw[embed.alias]) : null;
}

/** An embedded load's JSON (arrays of values in `fields` order, key order) -> typed rows of its own. */
function embedded(ctx: LoadContext, embed: EmbedPlan, json: unknown): Row[] | Row | null {
  const list = (typeof json === 'string' ? JSON.parse(json) : json) as unknown[][] | null;
  const info = ctx.catalog().model(embed.target).fields;
  const rows: Row[] = [];
  for (const values of list ?? []) {
    const row: Row = {};
    for (let i = 0; i < embed.fields.length; i += 1) {
      const field = info[embed.fields[i]];
      row[embed.fields[i]] = convertValue(values[i], field?.type, field?.itemType);
    }
    rows.push(row);
  }
  return embed.kind === 'hasMany' ? rows : (rows[0] ?? null);
}

/** The loads below joined records (their to-many relations): a statement per level, as usual. */
export async function loadJoinedRelations(ctx: LoadContext, joins: JoinPlan[], parents: Row[], t: Target, budget: LoadBudget | null): Promise<void> {
  await Promise.all(
    joins.map((join) => {
      const records = parents.map((p) => p[join.name]).filter((r): r is Row => r !== null && typeof r === 'object');
      return Promise.all([loadRelations(ctx, join.relations, records, t, budget), loadJoinedRelations(ctx, join.joins, records, t, budget)]);
    }),
  );
}

/** One statement per relation level, whatever the number of parent rows; siblings load in parallel. */
export async function loadRelations(ctx: LoadContext, plans: RelationPlan[], parents: Row[], t: Target, budget: LoadBudget | null): Promise<void> {
  await Promise.all(plans.map((plan) => loadRelation(ctx, plan, parents, t, budget)));
}

/**
 * One level: its statement (at most limit + 1 rows under a load budget: every row it returns is
 * attached to a parent, so more is over the limit whatever follows), its children, then the
 * rows attached to the parents. The records attached (copies included) are taken from the
 * budget before any copy is made, so a fan-out is refused before it is built.
 */
async function loadRelation(ctx: LoadContext, plan: RelationPlan, parents: Row[], t: Target, budget: LoadBudget | null): Promise<void> {
  const keys = [...new Set(parents.map((p) => p[plan.parentField]).filter((v) => v !== null && v !== undefined))];
  const sql = budget ? `${plan.statement.sql} LIMIT ${budget.limit + 1}` : plan.statement.sql;
  const loaded = keys.length ? await ctx.run({ sql, bind: [keys, ...plan.statement.bind.slice(1)] }, t) : [];
  if (budget && loaded.length > budget.left) throw overLoadLimit(budget);
  const related = loaded.map((raw) => {
    const row = shapeRow(ctx, plan.target, plan.fields, raw);
    if (plan.pivot) {
      const pivot: Row = {};
      for (const col of plan.pivot) pivot[col.name] = convertValue(raw[col.alias], col.type);
      row.pivot = pivot;
    }
    return { match: String(plan.pivot ? raw[plan.matchKey] : row[plan.matchKey]), row };
  });
  await loadRelations(ctx, plan.children, related.map((r) => r.row), t, budget);
  const groups = new Map<string, Row[]>();
  for (const { match, row } of related) {
    const list = groups.get(match);
    if (list) list.push(row);
    else groups.set(match, [row]);
  }
  const many = plan.kind === 'hasMany' || plan.kind === 'belongsToMany';
  if (budget) {
    for (const parent of parents) {
      const value = parent[plan.parentField];
      const group = value === null || value === undefined ? undefined : groups.get(String(value));
      if (group) budget.left -= many ? group.length : 1;
    }
    if (budget.left < 0) throw overLoadLimit(budget);
  }
  const given = new Set<Row[]>();
  for (const parent of parents) {
    const value = parent[plan.parentField];
    const group = value === null || value === undefined ? undefined : groups.get(String(value));
    // every parent gets records of its own: a to-many group goes as is to the first parent with
    // that key (usually the only one) and as copies to any other; a to-one record is copied
    if (!many) parent[plan.name] = group?.[0] ? { ...group[0] } : null;
    else if (!group) parent[plan.name] = [];
    else if (given.has(group)) parent[plan.name] = group.map((r) => ({ ...r }));
    else {
      given.add(group);
      parent[plan.name] = group;
    }
  }
}

/** A raw row -> output row: the selected fields, typed. */
export function shapeRow(ctx: LoadContext, model: string, fields: string[], raw: Record<string, unknown>): Row {
  const info = ctx.catalog().model(model).fields;
  const row: Row = {};
  for (const f of fields) {
    const field: FieldInfo | undefined = info[f];
    row[f] = convertValue(raw[f], field?.type, field?.itemType);
  }
  return row;
}

/** REST_MAX_LOADED_RECORDS for one read: the related records it may still attach. */
export interface LoadBudget {
  limit: number;
  left: number;
}

function overLoadLimit(budget: LoadBudget): DriverFailure {
  return new DriverFailure({ type: 'bad_request', message: loadLimitMessage(budget.limit) });
}
