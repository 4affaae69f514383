import { Timestamp, UUID } from 'bson';
import { CommandError } from './errors';
import { AccessPaths } from './field-index';
import { idIndex, type Index } from './indexes';
import { Snapshots } from './snapshots';
import { keyOf, type Doc } from './values';

/** A committed version a snapshot may still need: `doc` (null: absent) from commit `seq` on. */
/**
 * The transaction that created a collection not yet committed (transaction.ts); an opaque owner
 * here, so the store does not depend on the transaction code that depends on it.
 */
export type PendingOwner = object;

export interface Version {
  seq: number;
  doc: Doc | null;
}

/** A unique-index collision: the index, the key values, and the _id key of the document holding them. */
export interface Collision {
  index: Index;
  values: unknown[];
  owner: string;
}

/**
 * One collection's committed state. `docs` is a Map keyed by the canonical _id so lookups are O(1)
 * while Map iteration order gives MongoDB's natural (insertion) order. Stored documents are never
 * mutated in place: updates replace the entry, so cursors and transaction snapshots stay stable.
 */
export class Collection {
  readonly docs = new Map<string, Doc>();
  readonly indexes: Index[] = [idIndex()];
  /** Commit sequence of the last write per _id key, to detect writes after a transaction's snapshot. */
  readonly versions = new Map<string, number>();
  /**
   * Per _id key, the versions replaced while an open snapshot could still read them, oldest first
   * (see Snapshots). Empty whenever no transaction is open.
   */
  readonly history = new Map<string, Version[]>();
  /** Commit sequence of the last committed write to this collection. */
  lastWrite = 0;
  /** The open transaction that created this collection: nobody else sees it until that commits. */
  pendingIn?: PendingOwner;
  readonly uuid = new UUID();
  /** Natural-order positions and value lookups for the index planner (by-id.ts), kept in step by put. */
  readonly access = new AccessPaths();

  constructor(
    readonly db: string,
    readonly name: string,
    readonly options: Doc = {},
    private readonly snapshots: Snapshots = new Snapshots(),
  ) {}

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  /** The first committed unique-index entry `doc` would collide with, except its own and those `skipOwner` excuses. */
  collision(doc: Doc, idKey: string, skipOwner?: (owner: string) => boolean): Collision | undefined {
    for (const index of this.indexes) {
      if (!index.unique) continue;
      for (const k of index.keysOf(doc)) {
        const owner = index.entries.get(k.key);
        if (owner !== undefined && owner !== idKey && !(skipOwner && skipOwner(owner))) return { index, values: k.values, owner };
      }
    }
    return undefined;
  }

  /** Throws E11000 when `doc` collides on a unique index. */
  checkUnique(doc: Doc, idKey: string, skipOwner?: (owner: string) => boolean): void {
    const hit = this.collision(doc, idKey, skipOwner);
    if (hit) throw hit.index.duplicateError(this.ns, hit.values);
  }

  /** Write one document (or delete with `next === null`) into committed state, keeping indexes in sync. */
  put(idKey: string, next: Doc | null, seq: number): void {
    const prev = this.docs.get(idKey);
    const prevSeq = this.versions.get(idKey) ?? 0;
    // an open snapshot taken at or after the replaced version began still reads it
    if (this.snapshots.newest >= prevSeq) {
      let chain = this.history.get(idKey);
      if (!chain) {
        chain = [];
        this.history.set(idKey, chain);
        this.snapshots.keeping.add(this);
      }
      chain.push({ seq: prevSeq, doc: prev ?? null });
    }
    this.swap(idKey, prev, next);
    this.versions.set(idKey, seq);
    if (seq > this.lastWrite) this.lastWrite = seq;
  }

  /** Replaces the stored document (`next` null: removes it), keeping every index in step. */
  private swap(idKey: string, prev: Doc | undefined, next: Doc | null): void {
    if (prev) for (const index of this.indexes) index.remove(prev, idKey);
    if (next) {
      for (const index of this.indexes) index.add(next, idKey);
      this.docs.set(idKey, next);
    } else {
      this.docs.delete(idKey);
    }
    this.access.onPut(idKey, prev, next);
  }

  /** Puts back what `put` replaced: a command that must wait is undone before it runs again. */
  restore(idKey: string, doc: Doc | undefined, version: number | undefined, historyLength: number): void {
    this.swap(idKey, this.docs.get(idKey), doc ?? null);
    if (version === undefined) this.versions.delete(idKey);
    else this.versions.set(idKey, version);
    const chain = this.history.get(idKey);
    if (chain) {
      chain.length = historyLength;
      if (historyLength === 0) this.history.delete(idKey);
    }
  }

  /** The committed document with `idKey` as of commit sequence `seq`. */
  at(idKey: string, seq: number): Doc | undefined {
    if ((this.versions.get(idKey) ?? 0) <= seq) return this.docs.get(idKey);
    const chain = this.history.get(idKey);
    if (chain) for (let i = chain.length - 1; i >= 0; i--) if (chain[i].seq <= seq) return chain[i].doc ?? undefined;
    return undefined;
  }

  /**
   * Every committed document as of `seq`, in natural order (documents deleted since come last).
   * A key written after `seq` always has history (its replaced version was recorded while the
   * snapshot at `seq` was open), so keys without history are read from `docs` directly.
   */
  forEachAt(seq: number, fn: (idKey: string, doc: Doc) => void): void {
    if (this.lastWrite <= seq || this.history.size === 0) {
      for (const [k, d] of this.docs) fn(k, d);
      return;
    }
    for (const [k, d] of this.docs) {
      if (!this.history.has(k)) fn(k, d);
      else {
        const v = this.at(k, seq);
        if (v) fn(k, v);
      }
    }
    for (const k of this.history.keys()) {
      if (this.docs.has(k)) continue;
      const v = this.at(k, seq);
      if (v) fn(k, v);
    }
  }

  listAt(seq: number): Doc[] {
    if (this.lastWrite <= seq) return Array.from(this.docs.values());
    const out: Doc[] = [];
    this.forEachAt(seq, (_k, d) => out.push(d));
    return out;
  }

  /** Drops versions no snapshot at or after `oldest` can read; true when no history is left. */
  prune(oldest: number): boolean {
    for (const [k, chain] of this.history) {
      let drop = 0;
      while (drop < chain.length) {
        const end = drop + 1 < chain.length ? chain[drop + 1].seq : (this.versions.get(k) ?? 0);
        if (end > oldest) break;
        drop++;
      }
      if (drop === chain.length) this.history.delete(k);
      else if (drop) chain.splice(0, drop);
    }
    return this.history.size === 0;
  }
}

export function idKeyOf(doc: Doc): string {
  return keyOf(doc._id);
}

/** All databases of one emulator instance. */
export class Store {
  readonly dbs = new Map<string, Map<string, Collection>>();
  readonly snapshots = new Snapshots();
  private seq = 0;

  /** The next commit sequence (every committed write, transactional or not, takes one). */
  nextSeq(): number {
    return ++this.seq;
  }

  /** Sequence of the last commit: a snapshot taken now sees exactly the commits up to it. */
  get currentSeq(): number {
    return this.seq;
  }

  /** Seconds part of every cluster time of this instance (its start). */
  private readonly epoch = Math.floor(Date.now() / 1000);

  /**
   * The cluster time of a commit sequence, Timestamp(start second, seq): it grows with every commit,
   * so $clusterTime/operationTime/atClusterTime can be derived from (and mapped back to) the sequence.
   */
  clusterTime(seq: number = this.seq): Timestamp {
    return new Timestamp({ t: this.epoch, i: seq });
  }

  /** The commit sequence a cluster time stands for (-1 before this instance, Infinity after). */
  seqOf(time: Timestamp): number {
    if (time.t < this.epoch) return -1;
    if (time.t > this.epoch) return Infinity;
    return time.i;
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
    const coll = new Collection(db, name, options, this.snapshots);
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
