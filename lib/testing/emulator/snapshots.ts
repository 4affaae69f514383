/** A collection keeping old versions for open snapshots (store.ts Collection). */
interface KeepsHistory {
  readonly history: { clear(): void };
  prune(oldest: number): boolean;
}

/**
 * The commit sequences at which open transactions took their snapshots. While one is open,
 * committed writes keep the version they replace (Collection.history) so the transaction can still
 * read it; when the oldest snapshot closes, versions no open snapshot can see are dropped.
 */
export class Snapshots {
  private readonly open = new Map<number, number>();
  private low = Infinity;
  private high = -Infinity;
  /** Collections holding old versions, pruned when snapshots close. */
  readonly keeping = new Set<KeepsHistory>();

  get oldest(): number {
    return this.low;
  }

  get newest(): number {
    return this.high;
  }

  acquire(seq: number): void {
    this.open.set(seq, (this.open.get(seq) ?? 0) + 1);
    if (seq < this.low) this.low = seq;
    if (seq > this.high) this.high = seq;
  }

  /** Whether the state as of `seq` can still be read (a snapshot at `seq` is open). */
  isOpen(seq: number): boolean {
    return this.open.has(seq);
  }

  /** Keeps the state as of `seq` readable for `ms` (snapshot reads: minSnapshotHistoryWindowInSeconds). */
  pin(seq: number, ms: number): void {
    this.acquire(seq);
    setTimeout(() => this.release(seq), ms).unref();
  }

  release(seq: number): void {
    const n = this.open.get(seq);
    if (n === undefined) return;
    if (n > 1) {
      this.open.set(seq, n - 1);
      return;
    }
    this.open.delete(seq);
    const before = this.low;
    this.low = Infinity;
    this.high = -Infinity;
    for (const s of this.open.keys()) {
      if (s < this.low) this.low = s;
      if (s > this.high) this.high = s;
    }
    if (this.open.size === 0) {
      for (const coll of this.keeping) coll.history.clear();
      this.keeping.clear();
    } else if (this.low > before) {
      for (const coll of this.keeping) if (coll.prune(this.low)) this.keeping.delete(coll);
    }
  }
}
