import type { Id, Transaction } from '../driver';
import type { Registry, ResourceEntry } from '../resource/registry';
import { addError, type FieldErrors } from './validate-input';

/**
 * "null or an existing record" for every belongsTo foreign key being written, checked with one
 * query per foreign-key field whatever the number of items. Invalid or absent ids become 422
 * errors naming the field (the same on both drivers, before the database would refuse them).
 */
export async function checkReferences(
  entry: ResourceEntry,
  registry: Registry,
  items: Record<string, unknown>[],
  pathOf: (index: number, field: string) => string,
  errors: FieldErrors,
  tx?: Transaction,
): Promise<void> {
  const relations = [...Object.values(entry.info.relations), ...Object.values(entry.info.hiddenRelations)];
  for (const rel of relations) {
    if (rel.kind !== 'belongsTo' || !registry.has(rel.target)) continue;
    const target = registry.entry(rel.target);
    const wanted = new Map<Id, number[]>();
    items.forEach((item, index) => {
      const raw = item[rel.foreignKey];
      if (raw === undefined || raw === null) return;
      if (errors[pathOf(index, rel.foreignKey)]) return; // already refused by the schema; one message is enough
      const id = typeof raw === 'string' || typeof raw === 'number' ? target.driver.parseId(target.info.name, String(raw)) : null;
      if (id === null) {
        addError(errors, pathOf(index, rel.foreignKey), `The selected ${rel.foreignKey} is invalid.`);
        return;
      }
      item[rel.foreignKey] = id;
      wanted.set(id, [...(wanted.get(id) ?? []), index]);
    });
    if (wanted.size === 0) continue;
    const existing = new Set(await target.driver.existingIds(target.info.name, [...wanted.keys()], tx));
    for (const [id, indexes] of wanted) {
      if (existing.has(id)) continue;
      for (const index of indexes) addError(errors, pathOf(index, rel.foreignKey), `The selected ${rel.foreignKey} is invalid.`);
    }
  }
}
