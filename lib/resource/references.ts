import type { Catalog, OnDelete } from './model-info';

/** A belongsTo of `model` (visible or hidden) pointing at another model. */
export interface Reference {
  model: string;
  foreignKey: string;
  onDelete: OnDelete;
}

const relationsOf = (catalog: Catalog) =>
  catalog.all().flatMap((info) => [...Object.values(info.relations), ...Object.values(info.hiddenRelations)].map((rel) => ({ info, rel })));

/** Every declared belongsTo pointing at `model`, once per (model, key): delete rules, cache versions. */
export function referencesTo(catalog: Catalog, model: string): Reference[] {
  const seen = new Map<string, Reference>();
  for (const { info, rel } of relationsOf(catalog)) {
    if (rel.kind !== 'belongsTo' || rel.target !== model) continue;
    const id = `${info.name}\u0000${rel.foreignKey}`;
    if (!seen.has(id)) seen.set(id, { model: info.name, foreignKey: rel.foreignKey, onDelete: rel.onDelete ?? 'restrict' });
  }
  return [...seen.values()];
}

/**
 * The name under which `model` declares the records of `ref` (decision 78): its hasMany or hasOne
 * on that foreign key (`children`, `products` for a category), exposed relations first; the
 * referencing model's name when `model` declares none.
 */
export function relationHolding(catalog: Catalog, model: string, ref: Reference): string {
  const info = catalog.model(model);
  for (const relations of [info.relations, info.hiddenRelations]) {
    for (const rel of Object.values(relations)) {
      if ((rel.kind === 'hasMany' || rel.kind === 'hasOne') && rel.target === ref.model && rel.foreignKey === ref.foreignKey) return rel.name;
    }
  }
  return ref.model;
}

/** Pivot (table, column) pairs that hold ids of `model`, once each. */
export function pivotColumnsOf(catalog: Catalog, model: string): Array<{ table: string; column: string }> {
  const seen = new Map<string, { table: string; column: string }>();
  for (const { info, rel } of relationsOf(catalog)) {
    if (rel.kind !== 'belongsToMany' || !rel.pivot) continue;
    const columns = [info.name === model ? rel.pivot.parentKey : null, rel.target === model ? rel.pivot.relatedKey : null];
    for (const column of columns) if (column) seen.set(`${rel.pivot.table}\u0000${column}`, { table: rel.pivot.table, column });
  }
  return [...seen.values()];
}

/**
 * Every model a delete of `model` can change: itself, what cascades from it (transitively) and what
 * set-null clears; pivot tables count as the models on both sides of the relation.
 */
export function modelsTouchedByDelete(catalog: Catalog, model: string): string[] {
  const touched = new Set<string>([model]);
  const queue = [model];
  while (queue.length > 0) {
    const current = queue.shift() as string;
    for (const ref of referencesTo(catalog, current)) {
      if (ref.onDelete === 'restrict' || touched.has(ref.model)) continue;
      touched.add(ref.model);
      if (ref.onDelete === 'cascade') queue.push(ref.model);
    }
    for (const { info, rel } of relationsOf(catalog)) {
      if (rel.kind === 'belongsToMany' && (info.name === current || rel.target === current)) {
        touched.add(info.name);
        touched.add(rel.target);
      }
    }
  }
  return [...touched];
}
