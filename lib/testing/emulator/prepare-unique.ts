import { CommandError } from './errors';
import { Index } from './indexes';
import { idKeyOf, type Collection } from './store';
import type { Scope } from './scope';
import type { Doc } from './values';

/**
 * `prepareUnique` (collMod): the index keeps the duplicates it has, but a write that adds an index
 * key another document already has is refused (E11000); then `unique: true` converts the index
 * once no duplicates are left (else 359 with the conflicting _ids).
 */
export function checkPrepareUnique(scope: Scope, coll: Collection, next: Doc, previous: Doc | undefined): void {
  for (const index of coll.indexes) {
    if (index.spec.prepareUnique !== true || index.unique) continue;
    const before = new Set(previous ? index.keysOf(previous).map((k) => k.key) : []);
    const added = index.keysOf(next).filter((k) => !before.has(k.key));
    if (!added.length) continue;
    const self = idKeyOf(next);
    for (const other of scope.list(coll)) {
      if (idKeyOf(other) === self) continue;
      const keys = new Set(index.keysOf(other).map((k) => k.key));
      const hit = added.find((k) => keys.has(k.key));
      if (hit) throw index.duplicateError(coll.ns, hit.values);
    }
  }
}

/** The index made unique: replaced by a unique Index holding every document's keys. */
export function convertToUnique(scope: Scope, coll: Collection, index: Index): void {
  if (index.spec.prepareUnique !== true) {
    throw new CommandError('InvalidOptions', "Cannot make index unique with 'prepareUnique=false'. Run collMod to set it first.");
  }
  const owners = new Map<string, unknown[]>();
  for (const doc of scope.list(coll)) {
    for (const k of index.keysOf(doc)) {
      const ids = owners.get(k.key) ?? [];
      if (!ids.some((id) => idKeyOf({ _id: id }) === idKeyOf(doc))) ids.push(doc._id);
      owners.set(k.key, ids);
    }
  }
  const violations = Array.from(owners.values()).filter((ids) => ids.length > 1).map((ids) => ({ ids }));
  if (violations.length) {
    throw new CommandError('CannotConvertIndexToUnique', 'Cannot convert the index to unique. Please resolve conflicting documents before running collMod again.', { violations });
  }
  const unique = new Index({ ...index.spec, unique: true });
  for (const [idKey, doc] of coll.docs) unique.add(doc, idKey);
  coll.indexes[coll.indexes.indexOf(index)] = unique;
}
