import type { Catalog } from './model-info';
import type { FieldInfo, ModelInfo, RelationInfo } from './model-info';

/**
 * Lookups every driver compiler makes on an already-checked query description. A miss here is a
 * bug (the parser lets only known names through), so it throws a plain Error, not a 400.
 */
export function fieldOf(info: ModelInfo, name: string): FieldInfo {
  const field = Object.prototype.hasOwnProperty.call(info.fields, name) ? info.fields[name] : undefined;
  if (!field) throw new Error(`Unknown field ${info.name}.${name}`);
  return field;
}

/** Visible or hidden relation (hidden ones serve delete rules). */
export function relationOf(info: ModelInfo, name: string): RelationInfo {
  const own = (map: Record<string, RelationInfo>) => (Object.prototype.hasOwnProperty.call(map, name) ? map[name] : undefined);
  const rel = own(info.relations) ?? own(info.hiddenRelations);
  if (!rel) throw new Error(`Unknown relation ${info.name}.${name}`);
  return rel;
}

/** Readable fields (write-only ones never leave the database). */
export function readableFields(info: ModelInfo): string[] {
  return Object.values(info.fields)
    .filter((f) => !f.writeOnly)
    .map((f) => f.name);
}

/** Catalog lookups by model name, the base of both drivers' compile contexts. */
export class CatalogLookup {
  constructor(readonly catalog: Catalog) {}

  model(name: string): ModelInfo {
    return this.catalog.model(name);
  }

  field(model: string, name: string): FieldInfo {
    return fieldOf(this.model(model), name);
  }

  relation(model: string, name: string): RelationInfo {
    return relationOf(this.model(model), name);
  }

  /** Readable fields of a model (write-only ones never leave the database). */
  readable(model: string): string[] {
    return readableFields(this.model(model));
  }
}
