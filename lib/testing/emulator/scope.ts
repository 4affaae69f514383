import { CommandError, writeConflict } from './errors';
import { type Collection, type Store } from './store';
import { HeldByTransaction, type Transaction } from './transaction';
import type { TransactionManager } from './transactions';
import type { Doc } from './values';

/** What a non-transactional command changed, so it can be undone when it must wait and run again. */
interface Undo {
  coll: Collection;
  idKey: string;
  doc: Doc | undefined;
  version: number | undefined;
  history: number;
}

/**
 * What one command sees and writes: committed state, or the snapshot of the transaction the
 * command runs in plus its overlay. All document writes of every command go through here so that
 * unique indexes, locks and isolation are enforced in one place.
 */
export class Scope {
  /** Writes of a non-transactional command while transactions are open (undone if it must wait). */
  private undo?: Undo[];

  constructor(
    readonly store: Store,
    readonly txns: TransactionManager,
    readonly txn?: Transaction,
    /** Outside a transaction, readConcern snapshot: the commit sequence every read is as of. */
    readonly readAt?: number,
  ) {
    if (!txn && txns.anyActive) this.undo = [];
  }

  /**
   * True when this command's view of `coll` is exactly its committed state: no transaction, or one
   * with no pending write to `coll` and no commit to `coll` after its snapshot. Committed
   * structures (indexes, streaming) may then serve the read; otherwise use `list`.
   */
  readsCommitted(coll: Collection): boolean {
    const txn = this.txn;
    if (coll.pendingIn && coll.pendingIn !== txn) return false;
    if (!txn) return this.readAt === undefined || coll.lastWrite <= this.readAt;
    const overlay = txn.overlays.get(coll);
    return (!overlay || overlay.size === 0) && coll.lastWrite <= txn.snapshot;
  }

  /** Visible documents in natural order. */
  list(coll: Collection | undefined): Doc[] {
    if (!coll) return [];
    const txn = this.txn;
    if (coll.pendingIn && coll.pendingIn !== txn) return [];
    if (!txn) return this.readAt === undefined ? Array.from(coll.docs.values()) : coll.listAt(this.readAt);
    const overlay = txn.overlays.get(coll);
    if (!overlay || overlay.size === 0) return coll.listAt(txn.snapshot);
    const out: Doc[] = [];
    coll.forEachAt(txn.snapshot, (k, d) => {
      if (!overlay.has(k)) out.push(d);
      else {
        const v = overlay.get(k);
        if (v) out.push(v);
      }
    });
    // the transaction's own inserts (a key it wrote that its snapshot has was emitted above)
    for (const [k, v] of overlay) if (v && coll.at(k, txn.snapshot) === undefined) out.push(v);
    return out;
  }

  visible(coll: Collection, idKey: string): Doc | undefined {
    const txn = this.txn;
    if (coll.pendingIn && coll.pendingIn !== txn) return undefined;
    if (!txn) return this.readAt === undefined ? coll.docs.get(idKey) : coll.at(idKey, this.readAt);
    const overlay = txn.overlays.get(coll);
    if (overlay && overlay.has(idKey)) return overlay.get(idKey) ?? undefined;
    return coll.at(idKey, txn.snapshot);
  }

  /** The collection as this command sees it: one another open transaction is creating is not there. */
  get(db: string, name: string): Collection | undefined {
    const coll = this.store.get(db, name);
    return coll && coll.pendingIn && coll.pendingIn !== this.txn ? undefined : coll;
  }

  /** The collection, created when missing (inside a transaction: visible to others from its commit). */
  ensure(db: string, name: string): Collection {
    const { coll, created } = this.store.ensure(db, name);
    if (created && this.txn) {
      this.txn.created.add(coll);
      coll.pendingIn = this.txn;
    } else if (!created && coll.pendingIn && coll.pendingIn !== this.txn) {
      throw this.conflict(coll.pendingIn as Transaction);
    }
    return coll;
  }

  /** WriteConflict for a transaction; for a plain write, the signal to wait for `holder` to end. */
  conflict(holder: Transaction): CommandError {
    return this.txn ? writeConflict() : new HeldByTransaction(holder);
  }

  /** Insert (`prev` undefined), replace, or delete (`next` null) the document with `idKey`. */
  write(coll: Collection, idKey: string, next: Doc | null, isInsert: boolean): void {
    const txn = this.txn;
    if (coll.pendingIn && coll.pendingIn !== txn) throw this.conflict(coll.pendingIn as Transaction);
    const holder = this.txns.lockHolder(coll, idKey);
    if (holder && holder !== txn) throw this.conflict(holder);
    // a document committed after the snapshot: first committer wins, as in WiredTiger
    if (txn && (coll.versions.get(idKey) ?? 0) > txn.snapshot) throw writeConflict();
    if (isInsert && this.visible(coll, idKey)) {
      throw coll.indexes[0].duplicateError(coll.ns, [next?._id]);
    }
    if (next) this.checkUnique(coll, idKey, next);
    if (txn) {
      txn.record(coll, idKey, next);
      this.txns.lock(coll, idKey, txn);
    } else {
      if (this.undo) this.undo.push({ coll, idKey, doc: coll.docs.get(idKey), version: coll.versions.get(idKey), history: coll.history.get(idKey)?.length ?? 0 });
      coll.put(idKey, next, this.store.nextSeq());
    }
  }

  /** Takes back this (non-transactional) command's writes, newest first. */
  rollback(): void {
    const undo = this.undo;
    if (!undo) return;
    for (let i = undo.length - 1; i >= 0; i--) {
      const u = undo[i];
      u.coll.restore(u.idKey, u.doc, u.version, u.history);
    }
    undo.length = 0;
  }

  private checkUnique(coll: Collection, idKey: string, next: Doc): void {
    const txn = this.txn;
    const overlay = txn?.overlays.get(coll);
    const hit = coll.collision(next, idKey, overlay ? (owner) => overlay.has(owner) : undefined);
    if (hit) {
      // held by a document committed after the snapshot: the transaction cannot see it, so conflict
      if (txn && (coll.versions.get(hit.owner) ?? 0) > txn.snapshot) throw writeConflict();
      throw hit.index.duplicateError(coll.ns, hit.values);
    }
    for (const index of coll.indexes) {
      if (!index.unique) continue;
      const keys = index.keysOf(next);
      if (!keys.length) continue;
      // a key its snapshot shows held by a document changed since: that index entry changed after
      // the snapshot, a conflict in WiredTiger as well (the committed index no longer has it)
      if (txn && coll.lastWrite > txn.snapshot) {
        const held = txn.snapshotKeys(coll, index);
        for (const k of keys) {
          const owner = held.get(k.key);
          if (owner !== undefined && owner !== idKey) throw writeConflict();
        }
      }
      if (overlay && txn) {
        const pending = txn.keys(coll, index);
        for (const k of keys) {
          const found = pending.get(k.key);
          if (found && found.owner !== idKey) throw index.duplicateError(coll.ns, found.values);
        }
      }
      // The same key pending in another open transaction: whoever commits first wins, so conflict.
      for (const other of this.txns.othersWriting(coll, txn)) {
        const pending = other.keys(coll, index);
        for (const k of keys) {
          const found = pending.get(k.key);
          if (found && found.owner !== idKey) throw this.conflict(other);
        }
      }
    }
  }
}
