import type { RelationLoad } from '../../lib/query/ast';
import type { FieldType, RelationKind } from '../../lib/resource/model-info';
import { compileFilter } from './compile-filter';
import { equalityOnly } from './prepare-policy';
import { ParamBuilder, quoteIdent, type SqlStatement } from './sql-builder';
import type { CompileContext } from './compile-context';

export interface PivotColumnPlan {
  /** Helper alias in the loaded rows. */
  alias: string;
  /** Key in the `pivot` object. */
  name: string;
  type: FieldType;
}

/**
 * One relation level: ONE statement for every parent row at once (`... = ANY($1)`, $1 being the
 * parent keys bound at run time), then the rows are attached in memory.
 */
export interface RelationPlan {
  name: string;
  kind: RelationKind;
  target: string;
  /** Field of the parent rows whose values make up $1. */
  parentField: string;
  /** Field (or helper alias) of the loaded rows matched against the parent's value. */
  matchKey: string;
  /** bind[0] is a placeholder for the key list. */
  statement: SqlStatement;
  /** Target fields in the output. */
  fields: string[];
  /** belongsToMany: the pivot object (parent key, related key, pivot columns). */
  pivot: PivotColumnPlan[] | null;
  children: RelationPlan[];
}

/** Output fields of a model: the same rule on every driver (lib/driver/select-fields.ts). */
import { selectFields } from '../../lib/driver/select-fields';

export { selectFields };

export function compileRelationLoads(loads: RelationLoad[], ctx: CompileContext, parent: string): RelationPlan[] {
  return loads.map((load) => compileRelationLoad(load, ctx, parent));
}

function compileRelationLoad(load: RelationLoad, ctx: CompileContext, parent: string): RelationPlan {
  const rel = ctx.relation(parent, load.name);
  const target = rel.target;
  const params = new ParamBuilder([null]);
  const l = params.alias('l');
  const lq = quoteIdent(l);
  const targetKey = ctx.model(target).key;
  const toMany = rel.kind === 'hasOne' || rel.kind === 'hasMany';
  const fields = selectFields(ctx, target, load.columns, load.children, toMany ? [rel.foreignKey] : []);
  const columns = fields.map((f) => `${ctx.column(target, l, f)} AS ${quoteIdent(f)}`);
  const where: string[] = [];
  let from = `${ctx.table(target)} AS ${lq}`;
  let pivot: PivotColumnPlan[] | null = null;
  let parentField: string;
  let matchKey: string;
  switch (rel.kind) {
    case 'belongsTo':
      where.push(`${ctx.column(target, l, targetKey)} = ANY($1)`);
      parentField = rel.foreignKey;
      matchKey = targetKey;
      break;
    case 'hasOne':
    case 'hasMany':
      where.push(`${ctx.column(target, l, rel.foreignKey)} = ANY($1)`);
      parentField = rel.localKey ?? ctx.model(parent).key;
      matchKey = rel.foreignKey;
      break;
    case 'belongsToMany': {
      const info = rel.pivot;
      if (!info) throw new Error(`Relation ${parent}.${rel.name} has no pivot`);
      const p = quoteIdent(params.alias('p'));
      from = `${quoteIdent(info.table)} AS ${p} JOIN ${from} ON ${ctx.column(target, l, targetKey)} = ${p}.${quoteIdent(info.relatedKey)}`;
      where.push(`${p}.${quoteIdent(info.parentKey)} = ANY($1)`);
      const names = [info.parentKey, info.relatedKey, ...info.columns.filter((c) => c !== info.parentKey && c !== info.relatedKey)];
      pivot = names.map((name, i) => ({
        alias: `__pivot${i}`,
        name,
        type: i < 2 ? 'id' : (info.columnTypes[name] ?? 'string'),
      }));
      for (const col of pivot) columns.push(`${p}.${quoteIdent(col.name)} AS ${quoteIdent(col.alias)}`);
      parentField = ctx.model(parent).key;
      matchKey = pivot[0].alias;
      break;
    }
  }
  if (load.filter) where.push(compileFilter(load.filter, ctx, target, l, params));
  const sql = `SELECT ${columns.join(', ')} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${ctx.column(target, l, targetKey)} ASC`;
  return {
    name: load.name,
    kind: rel.kind,
    target,
    parentField,
    matchKey,
    statement: { sql, bind: params.bind, prepare: equalityOnly(load.filter, ctx, target) },
    fields,
    pivot,
    children: compileRelationLoads(load.children, ctx, target),
  };
}
