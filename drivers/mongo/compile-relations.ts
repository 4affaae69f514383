import type { Document } from 'mongodb';
import type { RelationLoad } from '../../lib/query/ast';
import { type CompileContext, pivotLookup, relationLookup, storedPath } from './compile-context';
import { compileFilterStages } from './compile-filter';
import type { RelationShape, Shape } from './shape';

/** Output fields of a model: the same rule on every driver (lib/driver/select-fields.ts). */
import { selectFields } from '../../lib/driver/select-fields';

export { selectFields };

/** `$project` of the output fields (and loaded relations) of a model's documents. */
export function projection(ctx: CompileContext, model: string, fields: string[], relations: RelationShape[], extra: string[] = []): Document {
  const info = ctx.model(model);
  const project: Document = { _id: 1 };
  for (const f of fields) project[storedPath(info, f)] = 1;
  for (const r of relations) project[r.as ?? r.name] = 1;
  for (const p of extra) project[p] = 1;
  return project;
}

export interface CompiledLoads {
  stages: Document[];
  relations: RelationShape[];
}

/**
 * One `$lookup` per eager-loaded relation, children nested inside its pipeline. `cap` (the query's
 * loadLimit): a to-many lookup stops after cap + 1 records, so one parent with a million children
 * costs cap + 1 documents (and its nested lookups) on the server; the service then refuses the
 * answer as over the limit, so no list is ever cut silently.
 */
export function compileLoads(loads: RelationLoad[], model: string, ctx: CompileContext, cap: number | null = null): CompiledLoads {
  const stages: Document[] = [];
  const relations: RelationShape[] = [];
  for (const load of loads) {
    const { stage, shape } = compileLoad(load, model, ctx, cap);
    stages.push(stage);
    relations.push(shape);
  }
  return { stages, relations };
}

function compileLoad(load: RelationLoad, model: string, ctx: CompileContext, cap: number | null): { stage: Document; shape: RelationShape } {
  const rel = ctx.relation(model, load.name);
  const target = rel.target;
  const toMany = rel.kind === 'hasOne' || rel.kind === 'hasMany';
  const fields = selectFields(ctx, target, load.columns, load.children, toMany ? [rel.foreignKey] : []);
  const children = compileLoads(load.children, target, ctx, cap);
  const capped = cap === null ? [] : [{ $limit: cap + 1 }];
  const narrow = compileFilterStages(load.filter, target, ctx);
  const project = { $project: projection(ctx, target, fields, children.relations) };
  const shape: Shape = { fields, relations: children.relations };
  // a ref path `writer` is both the key field and the relation: the lookup must not overwrite the key
  // (a cursor or a later stage may still read it), so it fills a helper field the serializer renames
  const as = Object.prototype.hasOwnProperty.call(ctx.model(model).fields, load.name) ? ctx.alias('r') : load.name;
  const named = as === load.name ? { name: load.name } : { name: load.name, as };
  switch (rel.kind) {
    case 'belongsTo':
      return {
        stage: relationLookup(ctx, model, rel, [...narrow, { $limit: 1 }, ...children.stages, project], as),
        shape: { ...named, many: false, pivot: null, shape },
      };
    case 'hasOne':
    case 'hasMany': {
      const first = rel.kind === 'hasOne' ? [{ $limit: 1 }] : capped;
      return {
        stage: relationLookup(ctx, model, rel, [...narrow, { $sort: { _id: 1 } }, ...first, ...children.stages, project], as),
        shape: { ...named, many: rel.kind === 'hasMany', pivot: null, shape },
      };
    }
    case 'belongsToMany': {
      const pivot = rel.pivot;
      if (!pivot) throw new Error(`Relation ${model}.${rel.name} has no pivot`);
      const keys = [...new Set([pivot.parentKey, pivot.relatedKey, ...pivot.columns])];
      const pivotDoc = Object.fromEntries(keys.map((k) => [k, `$${k}`]));
      const attach = [{ $sort: { '__t._id': 1 } }, { $replaceWith: { $mergeObjects: ['$__t', { pivot: pivotDoc }] } }];
      return {
        stage: pivotLookup(ctx, model, rel, [...attach, ...capped], [...narrow, ...children.stages, project], as),
        shape: { ...named, many: true, pivot: keys, shape },
      };
    }
  }
}
