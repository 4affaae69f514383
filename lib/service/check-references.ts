import type { Id, Transaction } from '../driver';
import type { RelationInfo } from '../resource/model-info';
import type { Registry, ResourceEntry } from '../resource/registry';
import { addError, type FieldErrors } from './validate-input';

/** Records of the written model inserted by this very request: not "existing" for its references. */
export interface JustInserted {
  model: string;
  ids: ReadonlySet<Id>;
}

type PathOf = (index: number, field: string) => string;

function referenceRelations(entry: ResourceEntry, registry: Registry): RelationInfo[] {
  const relations = [...Object.values(entry.info.relations), ...Object.values(entry.info.hiddenRelations)];
  return relations.filter((rel) => rel.kind === 'belongsTo' && registry.has(rel.target));
}

/**
 * Each belongsTo foreign key of `items` in its target's id type (the value written), and the ids
 * wanted per relation; one that cannot be an id is an error. Synchronous: it runs before any
 * value reaches the database.
 */
export function normalizeReferences(entry: ResourceEntry, registry: Registry, items: Record<string, unknown>[], pathOf: PathOf, errors: FieldErrors): Map<RelationInfo, Map<Id, number[]>> {
  const wantedByRelation = new Map<RelationInfo, Map<Id, number[]>>();
  // no error yet: no item's error key needs building (the common case of a valid batch)
  const anyErrors = Object.keys(errors).length > 0;
  for (const rel of referenceRelations(entry, registry)) {
    const target = registry.entry(rel.target);
    const wanted = new Map<Id, number[]>();
    items.forEach((item, index) => {
      const raw = item[rel.foreignKey];
      if (raw === undefined || raw === null) return;
      if (anyErrors && errors[pathOf(index, rel.foreignKey)]) return; // already refused by the schema; one message is enough
      const id = typeof raw === 'string' || typeof raw === 'number' ? target.driver.parseId(target.info.name, String(raw)) : null;
      if (id === null) {
        addError(errors, pathOf(index, rel.foreignKey), `The selected ${rel.foreignKey} is invalid.`);
        return;
      }
      item[rel.foreignKey] = id;
      const indexes = wanted.get(id);
      if (indexes) indexes.push(index);
      else wanted.set(id, [index]);
    });
    wantedByRelation.set(rel, wanted);
  }
  return wantedByRelation;
}

/**
 * "null or an existing record" for every belongsTo foreign key being written, checked with one
 * query per foreign-key field whatever the number of items. Invalid or absent ids become 422
 * errors naming the field (the same on both drivers, before the database would refuse them).
 * `inserted`: when checked inside the write's transaction after its insert, the request's own new
 * records do not count as existing (the same answer as a check before the insert).
 */
export async function checkReferences(
  entry: ResourceEntry,
  registry: Registry,
  items: Record<string, unknown>[],
  pathOf: PathOf,
  errors: FieldErrors,
  tx?: Transaction,
  inserted?: JustInserted,
): Promise<void> {
  for (const [rel, wanted] of normalizeReferences(entry, registry, items, pathOf, errors)) {
    if (wanted.size === 0) continue;
    const target = registry.entry(rel.target);
    const existing = new Set(await target.driver.existingIds(target.info.name, [...wanted.keys()], tx));
    for (const [id, indexes] of wanted) {
      if (existing.has(id) && !(inserted?.model === rel.target && inserted.ids.has(id))) continue;
      for (const index of indexes) addError(errors, pathOf(index, rel.foreignKey), `The selected ${rel.foreignKey} is invalid.`);
    }
  }
}
