import type { ModelInfo, RelationInfo } from '../resource/model-info';
import type { RelationLoad } from '../query/ast';

/** What choosing output fields needs of a compiler's context (both drivers' CompileContext have it). */
export interface FieldCatalog {
  model(name: string): ModelInfo;
  readable(model: string): string[];
  relation(model: string, name: string): RelationInfo;
}

/**
 * Output fields of a model, the same on every driver: the key, the requested fields (or every
 * readable one), `extra`, and the fields the eager loads match on (a belongsTo's foreign key, a
 * to-many's localKey); only readable fields, each once.
 */
export function selectFields(ctx: FieldCatalog, model: string, requested: string[] | null, loads: RelationLoad[], extra: string[] = []): string[] {
  const info = ctx.model(model);
  const readable = new Set(ctx.readable(model));
  const wanted = [info.key, ...(requested ?? ctx.readable(model)), ...extra];
  for (const load of loads) {
    const rel = ctx.relation(model, load.name);
    if (rel.kind === 'belongsTo') wanted.push(rel.foreignKey);
    // a to-many on a non-primary key is matched on that field of the parent (the spec's localKey)
    else if (rel.localKey !== undefined) wanted.push(rel.localKey);
  }
  return [...new Set(wanted)].filter((f) => readable.has(f));
}
