import type { RelationLoad } from '../../lib/query/ast';
import type { HiddenFields } from '../../lib/driver/json-read';
import { compileFilter } from './compile-filter';
import { selectFields } from './compile-relations';
import type { CompileContext } from './compile-context';
import { jsonValue, pivotJsonValue, type NativeType } from './json-values';
import { quoteIdent, quoteLiteral, type ParamBuilder } from './sql-builder';

/** Why a query cannot be rendered by PostgreSQL as the usual path answers it. */
export class NotRenderable extends Error {}

/** What rendering needs beyond the compile context. */
export interface JsonEnv {
  ctx: CompileContext;
  params: ParamBuilder;
  native(model: string, field: string): NativeType;
  hidden: HiddenFields | null;
  /** The query's loadLimit: at most cap + 1 records per parent and to-many load are read. */
  cap: number | null;
}

/**
 * One record level: LATERAL joins for its loads, then `CROSS JOIN LATERAL (SELECT <values> AS
 * "<field>", ...) AS v`, so `row_to_json(v)` is the record as the usual path writes it: the
 * selected fields less hidden ones, then `pivot`, then the loads in the order the usual path
 * attaches them (joined to-one loads first where it joins them: `joined`), and `count` the
 * related records below it (the service's checkLoadedSize counts the same).
 */
export interface RenderedLevel {
  from: string;
  object: string;
  count: string;
}

export function renderLevel(
  env: JsonEnv,
  model: string,
  fields: string[],
  loads: RelationLoad[],
  col: (field: string) => string,
  joined: boolean,
  pivot: { name: string; expr: string; type: string }[] | null = null,
): RenderedLevel {
  const { ctx, params } = env;
  const hidden = env.hidden?.of(model) ?? null;
  const values: string[] = [];
  for (const field of fields) {
    if (hidden?.has(field) && field !== ctx.model(model).key) continue;
    const value = jsonValue(col(field), env.native(model, field));
    if (value === null) throw new NotRenderable(`${model}.${field}`);
    values.push(`${value} AS ${quoteIdent(field)}`);
  }
  if (pivot) {
    const entries = pivot.map((p) => {
      const value = pivotJsonValue(p.expr, p.type);
      if (value === null) throw new NotRenderable(`pivot ${p.name}`);
      return `${value} AS ${quoteIdent(p.name)}`;
    });
    values.push(`(SELECT row_to_json(q) FROM (SELECT ${entries.join(', ')}) AS q) AS "pivot"`);
  }
  const ordered = joined ? [...loads.filter((l) => ctx.relation(model, l.name).kind === 'belongsTo'), ...loads.filter((l) => ctx.relation(model, l.name).kind !== 'belongsTo')] : loads;
  const joins: string[] = [];
  const counts: string[] = [];
  for (const load of ordered) {
    const r = params.alias('r');
    joins.push(`LEFT JOIN LATERAL (${renderLoad(env, model, load, col, joined)}) AS ${quoteIdent(r)} ON TRUE`);
    values.push(`${quoteIdent(r)}."j" AS ${quoteIdent(load.name)}`);
    counts.push(`coalesce(${quoteIdent(r)}."c", 0)`);
  }
  if (values.length === 0) throw new NotRenderable('empty record');
  const v = params.alias('v');
  joins.push(`CROSS JOIN LATERAL (SELECT ${values.join(', ')}) AS ${quoteIdent(v)}`);
  return { from: joins.join(' '), object: `row_to_json(${quoteIdent(v)})`, count: counts.length ? counts.join(' + ') : '0' };
}

/** A load as a subquery of one row: `j` its JSON (object, null or array), `c` the records it holds. */
function renderLoad(env: JsonEnv, parent: string, load: RelationLoad, parentCol: (field: string) => string, parentJoined: boolean): string {
  const { ctx, params } = env;
  const rel = ctx.relation(parent, load.name);
  const target = rel.target;
  const a = params.alias('a');
  const aq = quoteIdent(a);
  const targetKey = ctx.model(target).key;
  const toMany = rel.kind === 'hasMany' || rel.kind === 'hasOne';
  const fields = selectFields(ctx, target, load.columns, load.children, toMany ? [rel.foreignKey] : []);
  const where: string[] = [];
  let from = `${ctx.table(target)} AS ${aq}`;
  let columns = `${aq}.*`;
  let pivot: { name: string; expr: string; type: string }[] | null = null;
  switch (rel.kind) {
    case 'belongsTo':
      where.push(`${ctx.column(target, a, targetKey)} = ${parentCol(rel.foreignKey)}`);
      break;
    case 'hasOne':
    case 'hasMany':
      where.push(`${ctx.column(target, a, rel.foreignKey)} = ${parentCol(rel.localKey ?? ctx.model(parent).key)}`);
      break;
    case 'belongsToMany': {
      const info = rel.pivot;
      if (!info) throw new NotRenderable(`${parent}.${rel.name} has no pivot`);
      const p = quoteIdent(params.alias('p'));
      from = `${quoteIdent(info.table)} AS ${p} JOIN ${from} ON ${ctx.column(target, a, targetKey)} = ${p}.${quoteIdent(info.relatedKey)}`;
      where.push(`${p}.${quoteIdent(info.parentKey)} = ${parentCol(ctx.model(parent).key)}`);
      const names = [info.parentKey, info.relatedKey, ...info.columns.filter((c) => c !== info.parentKey && c !== info.relatedKey)];
      columns += names.map((name, i) => `, ${p}.${quoteIdent(name)} AS ${quoteIdent(`__pivot${i}`)}`).join('');
      pivot = names.map((name, i) => ({ name, expr: `${aq}.${quoteIdent(`__pivot${i}`)}`, type: i < 2 ? 'id' : (info.columnTypes[name] ?? 'string') }));
      break;
    }
  }
  if (load.filter) where.push(compileFilter(load.filter, ctx, target, a, params));
  const key = ctx.column(target, a, targetKey);
  const many = rel.kind === 'hasMany' || rel.kind === 'belongsToMany';
  // the related rows are picked (and capped) before anything is rendered for them; PostgreSQL
  // flattens the subquery when it has no LIMIT
  const limit = rel.kind === 'hasOne' ? ' LIMIT 1' : many && env.cap !== null ? ` LIMIT ${Math.floor(env.cap) + 1}` : '';
  const order = rel.kind === 'belongsTo' ? '' : ` ORDER BY ${key}`;
  const base = `(SELECT ${columns} FROM ${from} WHERE ${where.join(' AND ')}${order}${limit}) AS ${aq}`;
  const level = renderLevel(env, target, fields, load.children, (f) => ctx.column(target, a, f), parentJoined && rel.kind === 'belongsTo', pivot);
  if (!many) return `SELECT ${level.object} AS "j", 1 + ${level.count} AS "c" FROM ${base} ${level.from}`;
  return (
    // joined by ',' rather than json_agg, whose ', ' between elements would make these bytes differ
    // from the usual path's and MongoDB's (JSON.stringify): the drivers answer the same bytes
    `SELECT coalesce(('[' || string_agg(x."j"::text, ',' ORDER BY x."k") || ']')::json, ${quoteLiteral('[]')}::json) AS "j", (count(*) + coalesce(sum(x."c"), 0))::bigint AS "c" ` +
    `FROM (SELECT ${level.object} AS "j", ${key} AS "k", ${level.count} AS "c" FROM ${base} ${level.from}) AS x`
  );
}
