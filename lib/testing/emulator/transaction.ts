import { CommandError } from './errors';
import type { Index } from './indexes';
import type { Collection } from './store';
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
