import { CommandError } from './errors';
import { type Collection, type Store } from './store';
import { Transaction, TRANSACTION_LIFETIME_MS } from './transaction';

export { HeldByTransaction, Transaction, TRANSACTION_LIFETIME_MS } from './transaction';

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
