import { UUID } from 'bson';
import { CommandError } from './errors';
import { AccessPaths } from './field-index';
import { idIndex, type Index } from './indexes';
import { keyOf, type Doc } from './values';

/**
 * One collection's committed state. `docs` is a Map keyed by the canonical _id so lookups are O(1)
 * while Map iteration order gives MongoDB's natural (insertion) order. Stored documents are never
 * mutated in place: updates replace the entry, so cursors and transaction snapshots stay stable.
 */
export class Collection {
  readonly docs = new Map<string, Doc>();
  readonly indexes: Index[] = [idIndex()];
  /** Commit sequence of the last write per _id key, to detect writes after a transaction began. */
  readonly versions = new Map<string, number>();
  readonly uuid = new UUID();
  /** Natural-order positions and value lookups for the index planner (by-id.ts), kept in step by put. */
  readonly access = new AccessPaths();

  constructor(
    readonly db: string,
    readonly name: string,
    readonly options: Doc = {},
  ) {}

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  /**
   * Throws E11000 when `doc` collides on a unique index. `skipOwner` lets a transaction ignore
   * committed entries of documents it has itself changed.
   */
  checkUnique(doc: Doc, idKey: string, skipOwner?: (owner: string) => boolean): void {
    for (const index of this.indexes) {
      if (!index.unique) continue;
      for (const k of index.keysOf(doc)) {
        const owner = index.entries.get(k.key);
        if (owner !== undefined && owner !== idKey && !(skipOwner && skipOwner(owner))) throw index.duplicateError(this.ns, k.values);
      }
    }
  }

  /** Write one document (or delete with `next === null`) into committed state, keeping indexes in sync. */
  put(idKey: string, next: Doc | null, seq: number): void {
    const prev = this.docs.get(idKey);
    if (prev) for (const index of this.indexes) index.remove(prev, idKey);
    if (next) {
      for (const index of this.indexes) index.add(next, idKey);
      this.docs.set(idKey, next);
    } else {
      this.docs.delete(idKey);
    }
    this.versions.set(idKey, seq);
    this.access.onPut(idKey, prev, next);
  }
}

export function idKeyOf(doc: Doc): string {
  return keyOf(doc._id);
}

/** All databases of one emulator instance. */
export class Store {
  readonly dbs = new Map<string, Map<string, Collection>>();
  private seq = 0;

  nextSeq(): number {
    return ++this.seq;
  }

  get currentSeq(): number {
    return this.seq;
  }

  get(db: string, name: string): Collection | undefined {
    return this.dbs.get(db)?.get(name);
  }

  /** Implicit creation, as inserts/upserts/createIndexes do on the server. */
  ensure(db: string, name: string, options: Doc = {}): { coll: Collection; created: boolean } {
    validateCollectionName(name);
    let colls = this.dbs.get(db);
    if (!colls) {
      colls = new Map();
      this.dbs.set(db, colls);
    }
    const existing = colls.get(name);
    if (existing) return { coll: existing, created: false };
    const coll = new Collection(db, name, options);
    colls.set(name, coll);
    return { coll, created: true };
  }

  drop(db: string, name: string): Collection | undefined {
    const colls = this.dbs.get(db);
    const coll = colls?.get(name);
    if (colls && coll) {
      colls.delete(name);
      if (colls.size === 0) this.dbs.delete(db);
    }
    return coll;
  }

  dropDatabase(db: string): void {
    this.dbs.delete(db);
  }
}

export function validateCollectionName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || name.length === 0 || name.includes('\0') || name.startsWith('.') || name.includes('$')) {
    throw new CommandError('InvalidNamespace', `Invalid collection name: ${String(name)}`);
  }
}
