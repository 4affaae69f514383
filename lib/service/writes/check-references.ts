import type { Id, Transaction } from '../../driver';
import type { RelationInfo } from '../../resource/model-info';
import type { Registry, ResourceEntry } from '../declarations/registry';
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

/** Decision 78: the message of a reference to a record that does not exist. */
const missing = (rel: RelationInfo): string => `The ${rel.target} named by ${rel.foreignKey} does not exist.`;

/** The ids each belongsTo relation's records refer to, with the indexes of the items naming each. */
export type WantedReferences = Map<RelationInfo, Map<Id, number[]>>;

/**
 * Each belongsTo foreign key of `items` in its target's id type (the value written), and the ids
 * wanted per relation (added to `wanted`; item `i` counts as index `offset + i`); one that cannot
 * be an id is an error. Synchronous: it runs before any value reaches the database.
 */
export function normalizeReferences(entry: ResourceEntry, registry: Registry, items: Record<string, unknown>[], pathOf: PathOf, errors: FieldErrors, wanted: WantedReferences = new Map(), offset = 0): WantedReferences {
  // no error yet: no item's error key needs building (the common case of a valid batch)
  const anyErrors = Object.keys(errors).length > 0;
  for (const rel of referenceRelations(entry, registry)) {
    const target = registry.entry(rel.target);
    let ids = wanted.get(rel);
    if (!ids) wanted.set(rel, (ids = new Map()));
    for (let i = 0; i < items.length; i += 1) {
      const item = items[i];
      const index = offset + i;
      const raw = item[rel.foreignKey];
      if (raw === undefined || raw === null) continue;
      if (anyErrors && errors[pathOf(index, rel.foreignKey)]) continue; // already refused by the schema; one message is enough
      const id = typeof raw === 'string' || typeof raw === 'number' ? target.driver.parseId(target.info.name, String(raw)) : null;
      if (id === null) {
        // decision 78: an id of no record of the target (malformed included) names a record that does not exist
        addError(errors, pathOf(index, rel.foreignKey), typeof raw === 'string' || typeof raw === 'number' ? missing(rel) : `The ${rel.foreignKey} must be an id.`);
        continue;
      }
      item[rel.foreignKey] = id;
      const indexes = ids.get(id);
      if (indexes) indexes.push(index);
      else ids.set(id, [index]);
    }
  }
  return wanted;
}

/**
 * "null or an existing record" for the wanted ids: one query per foreign-key field whatever the
 * number of items; an absent one is a 422 error naming the field at every item that names it.
 * `inserted`: when checked inside the write's transaction after its insert, the request's own new
 * records do not count as existing (the same answer as a check before the insert).
 */
export async function checkWanted(registry: Registry, wanted: WantedReferences, pathOf: PathOf, errors: FieldErrors, tx?: Transaction, inserted?: JustInserted): Promise<void> {
  for (const [rel, ids] of wanted) {
    if (ids.size === 0) continue;
    const target = registry.entry(rel.target);
    const existing = new Set(await target.driver.existingIds(target.info.name, [...ids.keys()], tx));
    for (const [id, indexes] of ids) {
      if (existing.has(id) && !(inserted?.model === rel.target && inserted.ids.has(id))) continue;
      for (const index of indexes) addError(errors, pathOf(index, rel.foreignKey), missing(rel));
    }
  }
}

/**
 * Every belongsTo foreign key being written is null or an existing record (normalized, then
 * checked): invalid or absent ids become 422 errors naming the field, the same on both drivers,
 * before the database would refuse them.
 */
export async function checkReferences(entry: ResourceEntry, registry: Registry, items: Record<string, unknown>[], pathOf: PathOf, errors: FieldErrors, tx?: Transaction): Promise<void> {
  await checkWanted(registry, normalizeReferences(entry, registry, items, pathOf, errors), pathOf, errors, tx);
}
