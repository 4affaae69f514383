import type { Driver, Id, Row, Transaction } from '../driver';
import type { ListQuery } from '../query/ast';
import type { Catalog } from '../resource/model-info';
import { referencesTo, type Reference } from '../resource/references';

/** What a delete does on its own behalf to records of models with a stream (decision 76), once it ran. */
export interface DeleteEffects {
  /** Records whose key the delete set to null, by model. */
  nulled: Map<string, Id[]>;
  /** Records its cascades deleted, by model, as they were. */
  removed: Map<string, Row[]>;
  /** The same records as `nulled`, each with the field set to null and the key it held (history, decision 83). */
  nulledFields: Map<string, Array<{ key: Id; field: string; was: unknown }>>;
}

/** One rule of a model the delete reaches: the rows it touches (read before the delete) and, for a cascade, what those rows' own delete reaches. */
interface Branch {
  ref: Reference;
  live: boolean;
  key: string;
  rows: Row[];
  children: Branch[];
}

/** Whether a delete of `model` can change a record of a model `isLive` holds (through set-null and cascade rules, transitively). */
function reachesLive(catalog: Catalog, model: string, isLive: (model: string) => boolean): boolean {
  const seen = new Set<string>();
  const queue = [model];
  while (queue.length > 0) {
    for (const ref of referencesTo(catalog, queue.shift() as string)) {
      if (ref.onDelete === 'restrict') continue;
      if (isLive(ref.model)) return true;
      if (ref.onDelete === 'cascade' && !seen.has(ref.model)) {
        seen.add(ref.model);
        queue.push(ref.model);
      }
    }
  }
  return false;
}

/**
 * Reads, inside the delete's transaction and before it runs, the records its set-null and cascade
 * rules will change, only where a stream is open on their model or on one a cascade reaches
 * further: the keys of those set to null, the whole records of those a cascade deletes (nothing is
 * left to read after the commit). One read per rule and level, whatever the number of ids.
 * `settle` then keeps what hangs on the ids the delete really removed. Null: nothing to read.
 */
export async function readDeleteEffects(inner: Driver, catalog: Catalog, isLive: (model: string) => boolean, model: string, ids: Id[], tx: Transaction): Promise<((deleted: Id[]) => DeleteEffects) | null> {
  if (ids.length === 0 || !reachesLive(catalog, model, isLive)) return null;
  const visited = new Set(ids.map((id) => `${model}\u0000${String(id)}`));
  const branchesOf = async (parent: string, parentIds: Id[]): Promise<Branch[]> => {
    const branches: Branch[] = [];
    for (const ref of referencesTo(catalog, parent)) {
      if (ref.onDelete === 'restrict') continue;
      const live = isLive(ref.model);
      const cascade = ref.onDelete === 'cascade';
      if (!live && !(cascade && reachesLive(catalog, ref.model, isLive))) continue;
      const { key } = catalog.model(ref.model);
      const query: ListQuery = {
        model: ref.model,
        filter: { kind: 'condition', field: ref.foreignKey, operator: 'in', value: parentIds },
        // the whole record for a deleted one (its event carries it), the keys for the others
        select: cascade && live ? null : [key, ref.foreignKey],
        relations: [],
        order: [{ relations: [], field: key, direction: 'asc' }],
        page: null,
        limit: null,
      };
      // a record deleted in the same call is not changed by its own rules
      const rows = (await inner.list(query, tx)).rows.filter((row) => !visited.has(`${ref.model}\u0000${String(row[key])}`));
      if (cascade) for (const row of rows) visited.add(`${ref.model}\u0000${String(row[key])}`);
      const children = cascade && rows.length > 0 ? await branchesOf(ref.model, rows.map((row) => row[key] as Id)) : [];
      branches.push({ ref, live, key, rows, children });
    }
    return branches;
  };
  const branches = await branchesOf(model, ids);
  return (deleted) => {
    const effects: DeleteEffects = { nulled: new Map(), removed: new Map(), nulledFields: new Map() };
    const settle = (list: Branch[], parents: Set<string>) => {
      for (const branch of list) {
        const kept = branch.rows.filter((row) => parents.has(String(row[branch.ref.foreignKey])));
        if (kept.length === 0) continue;
        const model = branch.ref.model;
        if (branch.ref.onDelete === 'setNull') {
          if (branch.live) {
            effects.nulled.set(model, [...(effects.nulled.get(model) ?? []), ...kept.map((row) => row[branch.key] as Id)]);
            const field = branch.ref.foreignKey;
            effects.nulledFields.set(model, [...(effects.nulledFields.get(model) ?? []), ...kept.map((row) => ({ key: row[branch.key] as Id, field, was: row[field] }))]);
          }
          continue;
        }
        if (branch.live) effects.removed.set(model, [...(effects.removed.get(model) ?? []), ...kept]);
        settle(branch.children, new Set(kept.map((row) => String(row[branch.key]))));
      }
    };
    settle(branches, new Set(deleted.map(String)));
    return effects;
  };
}
