import { CommandError, writeConflict } from './errors';
import type { Index } from './indexes';
import { type Collection, type Store } from './store';
import type { Doc } from './values';

type Overlay = Map<string, Doc | null>;

/** MongoDB's transactionLifetimeLimitSeconds: an open transaction older than this is aborted. */
export const TRANSACTION_LIFETIME_MS = 60_000;

/**
 * A multi-document transaction (lsid + txnNumber). It reads the committed state as of its snapshot
 * (the commit sequence when its first command ran) plus its own writes, which live in
 * per-collection overlays (_id key -> new document, or null for deleted) until commit applies them.
 * Every document it writes is locked until commit/abort.
 */
export class Transaction {
  state: 'active' | 'committed' | 'aborted' = 'active';
  readonly overlays = new Map<Collection, Overlay>();
  /** Collections this transaction created (implicitly or with create): invisible to others until commit. */
  readonly created = new Set<Collection>();
  /** Set when the server aborted the transaction on its own (lifetime limit). */
  expired = false;
  timer?: NodeJS.Timeout;
  private waiters: Array<() => void> = [];

  constructor(
    readonly sessionKey: string,
    readonly txnNumber: number,
    /** Commit sequence of the snapshot: it reads commits up to it, and later commits to a document it writes conflict. */
    readonly snapshot: number,
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

  /** `{ txnNumber: n, txnRetryCounter: 0 }` as the server prints it in its messages. */
  get label(): string {
    return `{ txnNumber: ${this.txnNumber}, txnRetryCounter: 0 }`;
  }

  /** Resolves when the transaction commits or aborts. */
  ended(): Promise<void> {
    if (this.state !== 'active') return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  finish(state: 'committed' | 'aborted'): void {
    this.state = state;
    if (this.timer) clearTimeout(this.timer);
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
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

  /** Per collection and unique index: keys held, as of the snapshot, by documents changed since -> their _id key. */
  private readonly changedKeys = new Map<Collection, { lastWrite: number; byIndex: Map<Index, Map<string, string>> }>();

  /**
   * The unique keys of `index` that documents changed after the snapshot held as of it; rebuilt when
   * `coll` has had commits since the last build (a bulk write in one command builds it once).
   */
  snapshotKeys(coll: Collection, index: Index): Map<string, string> {
    let entry = this.changedKeys.get(coll);
    if (!entry || entry.lastWrite !== coll.lastWrite) {
      entry = { lastWrite: coll.lastWrite, byIndex: new Map() };
      this.changedKeys.set(coll, entry);
    }
    let keys = entry.byIndex.get(index);
    if (!keys) {
      keys = new Map();
      for (const idKey of coll.history.keys()) {
        if ((coll.versions.get(idKey) ?? 0) <= this.snapshot) continue;
        const doc = coll.at(idKey, this.snapshot);
        if (doc) for (const k of index.keysOf(doc)) keys.set(k.key, idKey);
      }
      entry.byIndex.set(index, keys);
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

/**
 * Thrown when a write outside any transaction meets a document (or unique key, or collection)
 * an open transaction holds. The server makes such a write wait until the transaction ends and
 * then retries it; the command runner does the same (see commands/waits.ts). Anything that does
 * not wait sees it as the WriteConflict it is.
 */
export class HeldByTransaction extends CommandError {
  constructor(readonly holder: Transaction) {
    super('WriteConflict', 'Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.');
  }
}

export class TransactionManager {
  private readonly bySession = new Map<string, Transaction>();
  private readonly locks = new Map<Collection, Map<string, Transaction>>();
  private active = 0;

  constructor(private readonly store: Store) {}

  /** The session's latest transaction, whatever its state. */
  latest(sessionKey: string): Transaction | undefined {
    return this.bySession.get(sessionKey);
  }

  /** Whether any transaction is open (a non-transactional command can only be held up then). */
  get anyActive(): boolean {
    return this.active > 0;
  }

  start(sessionKey: string, txnNumber: number): Transaction {
    const previous = this.bySession.get(sessionKey);
    if (previous && previous.state === 'active') this.abort(previous);
    const snapshot = this.store.currentSeq;
    const txn = new Transaction(sessionKey, txnNumber, snapshot);
    this.store.snapshots.acquire(snapshot);
    this.active++;
    txn.timer = setTimeout(() => {
      if (txn.state !== 'active') return;
      txn.expired = true;
      this.abort(txn);
    }, TRANSACTION_LIFETIME_MS);
    txn.timer.unref();
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
    this.store.snapshots.release(txn.snapshot);
    this.active--;
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
      throw new CommandError('NoSuchTransaction', `Transaction with ${txn.label} has been aborted.`, {}, ['TransientTransactionError']);
    }
    // released first: the committing snapshot no longer needs the versions this commit replaces
    this.release(txn);
    const seq = this.store.nextSeq();
    for (const coll of txn.created) if (coll.pendingIn === txn) coll.pendingIn = undefined;
    for (const [coll, overlay] of txn.overlays) {
      for (const [k, doc] of overlay) {
        if (doc === null && !coll.docs.has(k)) continue;
        coll.put(k, doc, seq);
      }
    }
    txn.finish('committed');
  }

  abort(txn: Transaction): void {
    if (txn.state !== 'active') return;
    this.release(txn);
    for (const coll of txn.created) {
      if (coll.pendingIn === txn && this.store.get(coll.db, coll.name) === coll) this.store.drop(coll.db, coll.name);
    }
    txn.finish('aborted');
  }

  /** endSessions: the session's open transaction is aborted. */
  endSession(sessionKey: string): void {
    const txn = this.bySession.get(sessionKey);
    if (txn) this.abort(txn);
    this.bySession.delete(sessionKey);
  }

  abortAll(): void {
    for (const t of this.bySession.values()) this.abort(t);
  }
}

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
      throw this.conflict(coll.pendingIn);
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
    if (coll.pendingIn && coll.pendingIn !== txn) throw this.conflict(coll.pendingIn);
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
