import { CommandError, writeConflict } from './errors';
import type { Index } from './indexes';
import { type Collection, type Store } from './store';
import type { Doc } from './values';

type Overlay = Map<string, Doc | null>;

/**
 * A multi-document transaction (lsid + txnNumber). Its writes live in per-collection overlays
 * (_id key -> new document, or null for deleted) on top of committed state; commit applies them.
 * Every document it writes is locked until commit/abort so concurrent writers get WriteConflict.
 */
export class Transaction {
  state: 'active' | 'committed' | 'aborted' = 'active';
  readonly overlays = new Map<Collection, Overlay>();
  /** Collections implicitly created by this transaction, dropped again on abort if still empty. */
  readonly created = new Set<Collection>();

  constructor(
    readonly sessionKey: string,
    readonly txnNumber: number,
    /** Commit sequence when the transaction began: later committed writes to a doc conflict. */
    readonly startSeq: number,
  ) {}

  /** Per collection and unique index: the keys this transaction's pending documents hold -> their _id key. */
  private readonly pendingKeys = new Map<Collection, Map<Index, Map<string, { owner: string; values: unknown[] }>>>();

  overlay(coll: Collection): Overlay {
    let o = this.overlays.get(coll);
    if (!o) {
      o = new Map();
      this.overlays.set(coll, o);
    }
    return o;
  }

  /**
   * The unique keys of the pending documents of `coll` for `index`, kept up to date by `record`:
   * a duplicate check is a lookup, not a scan of the overlay (a bulk insert of n documents in a
   * transaction was n^2 before).
   */
  keys(coll: Collection, index: Index): Map<string, { owner: string; values: unknown[] }> {
    let byIndex = this.pendingKeys.get(coll);
    if (!byIndex) {
      byIndex = new Map();
      this.pendingKeys.set(coll, byIndex);
    }
    let keys = byIndex.get(index);
    if (!keys) {
      keys = new Map();
      for (const [owner, doc] of this.overlays.get(coll) ?? []) if (doc) for (const k of index.keysOf(doc)) keys.set(k.key, { owner, values: k.values });
      byIndex.set(index, keys);
    }
    return keys;
  }

  /** Puts `next` in the overlay and moves its unique keys (the previous pending version's go). */
  record(coll: Collection, idKey: string, next: Doc | null): void {
    const overlay = this.overlay(coll);
    const previous = overlay.get(idKey);
    for (const [index, keys] of this.pendingKeys.get(coll) ?? []) {
      if (previous) for (const k of index.keysOf(previous)) if (keys.get(k.key)?.owner === idKey) keys.delete(k.key);
      if (next) for (const k of index.keysOf(next)) keys.set(k.key, { owner: idKey, values: k.values });
    }
    overlay.set(idKey, next);
  }
}

export class TransactionManager {
  private readonly bySession = new Map<string, Transaction>();
  private readonly locks = new Map<Collection, Map<string, Transaction>>();

  constructor(private readonly store: Store) {}

  /** The session's transaction with this number, if the server knows it. */
  find(sessionKey: string, txnNumber: number): Transaction | undefined {
    const t = this.bySession.get(sessionKey);
    return t && t.txnNumber === txnNumber ? t : undefined;
  }

  start(sessionKey: string, txnNumber: number): Transaction {
    const previous = this.bySession.get(sessionKey);
    if (previous && previous.txnNumber >= txnNumber) {
      throw new CommandError('NoSuchTransaction', `Given transaction number ${txnNumber} does not match any in-progress transactions.`, {}, ['TransientTransactionError']);
    }
    if (previous && previous.state === 'active') this.abort(previous);
    const txn = new Transaction(sessionKey, txnNumber, this.store.currentSeq);
    this.bySession.set(sessionKey, txn);
    return txn;
  }

  lockHolder(coll: Collection, idKey: string): Transaction | undefined {
    return this.locks.get(coll)?.get(idKey);
  }

  lock(coll: Collection, idKey: string, txn: Transaction): void {
    let m = this.locks.get(coll);
    if (!m) {
      m = new Map();
      this.locks.set(coll, m);
    }
    m.set(idKey, txn);
  }

  private release(txn: Transaction): void {
    for (const [coll, overlay] of txn.overlays) {
      const m = this.locks.get(coll);
      if (!m) continue;
      for (const k of overlay.keys()) if (m.get(k) === txn) m.delete(k);
      if (m.size === 0) this.locks.delete(coll);
    }
  }

  /** Open transactions other than `except` that have written to `coll`. */
  *othersWriting(coll: Collection, except?: Transaction): Generator<Transaction> {
    for (const t of this.bySession.values()) {
      if (t === except || t.state !== 'active') continue;
      const o = t.overlays.get(coll);
      if (o && o.size) yield t;
    }
  }

  commit(txn: Transaction): void {
    if (txn.state === 'committed') return; // commit is retryable
    if (txn.state === 'aborted') {
      throw new CommandError('NoSuchTransaction', `Transaction with txnNumber ${txn.txnNumber} has been aborted.`, {}, ['TransientTransactionError']);
    }
    const seq = this.store.nextSeq();
    for (const [coll, overlay] of txn.overlays) {
      for (const [k, doc] of overlay) {
        if (doc === null && !coll.docs.has(k)) continue;
        coll.put(k, doc, seq);
      }
    }
    this.release(txn);
    txn.state = 'committed';
  }

  abort(txn: Transaction): void {
    if (txn.state !== 'active') return;
    this.release(txn);
    txn.state = 'aborted';
    for (const coll of txn.created) {
      if (this.store.get(coll.db, coll.name) === coll && coll.docs.size === 0 && coll.indexes.length === 1) this.store.drop(coll.db, coll.name);
    }
  }

  abortAll(): void {
    for (const t of this.bySession.values()) this.abort(t);
  }
}

/**
 * What one command sees and writes: committed state, or committed state plus the overlay of the
 * transaction the command runs in. All document writes of every command go through here so that
 * unique indexes, locks and isolation are enforced in one place.
 */
export class Scope {
  constructor(
    readonly store: Store,
    readonly txns: TransactionManager,
    readonly txn?: Transaction,
  ) {}

  /** Visible documents in natural order. */
  list(coll: Collection | undefined): Doc[] {
    if (!coll) return [];
    const overlay = this.txn?.overlays.get(coll);
    if (!overlay || overlay.size === 0) return Array.from(coll.docs.values());
    const out: Doc[] = [];
    for (const [k, d] of coll.docs) {
      if (overlay.has(k)) {
        const v = overlay.get(k);
        if (v) out.push(v);
      } else out.push(d);
    }
    for (const [k, v] of overlay) if (v && !coll.docs.has(k)) out.push(v);
    return out;
  }

  visible(coll: Collection, idKey: string): Doc | undefined {
    const overlay = this.txn?.overlays.get(coll);
    if (overlay && overlay.has(idKey)) return overlay.get(idKey) ?? undefined;
    return coll.docs.get(idKey);
  }

  ensure(db: string, name: string): Collection {
    const { coll, created } = this.store.ensure(db, name);
    if (created && this.txn) this.txn.created.add(coll);
    return coll;
  }

  /** Insert (`prev` undefined), replace, or delete (`next` null) the document with `idKey`. */
  write(coll: Collection, idKey: string, next: Doc | null, isInsert: boolean): void {
    const txn = this.txn;
    const holder = this.txns.lockHolder(coll, idKey);
    if (holder && holder !== txn) throw writeConflict();
    if (txn && (coll.versions.get(idKey) ?? 0) > txn.startSeq) throw writeConflict();
    if (isInsert && this.visible(coll, idKey)) {
      throw coll.indexes[0].duplicateError(coll.ns, [next?._id]);
    }
    if (next) this.checkUnique(coll, idKey, next);
    if (txn) {
      txn.record(coll, idKey, next);
      this.txns.lock(coll, idKey, txn);
    } else {
      coll.put(idKey, next, this.store.nextSeq());
    }
  }

  private checkUnique(coll: Collection, idKey: string, next: Doc): void {
    const overlay = this.txn?.overlays.get(coll);
    coll.checkUnique(next, idKey, overlay ? (owner) => overlay.has(owner) : undefined);
    for (const index of coll.indexes) {
      if (!index.unique) continue;
      const keys = index.keysOf(next);
      if (!keys.length) continue;
      if (overlay && this.txn) {
        const pending = this.txn.keys(coll, index);
        for (const k of keys) {
          const hit = pending.get(k.key);
          if (hit && hit.owner !== idKey) throw index.duplicateError(coll.ns, hit.values);
        }
      }
      // The same key pending in another open transaction: whoever commits first wins, so conflict.
      for (const other of this.txns.othersWriting(coll, this.txn)) {
        const pending = other.keys(coll, index);
        for (const k of keys) {
          const hit = pending.get(k.key);
          if (hit && hit.owner !== idKey) throw writeConflict();
        }
      }
    }
  }
}
