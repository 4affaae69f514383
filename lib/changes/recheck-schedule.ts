import type { Subscriber } from './subscriber';

/**
 * How long a stream held by a write to its user's record waits for that write's request to
 * settle before it is re-checked anyway (a write outside a request, or on another instance).
 */
export const SETTLE_MS = 250;

/**
 * How long a stream re-checked by the fallback stays waiting for the request to settle: a request
 * slower than SETTLE_MS (its after-hooks not run yet) may have answered the fallback's check with
 * a cached login; its settling re-checks the stream once more.
 */
const KEEP_MS = 10_000;

/**
 * The period is cut in this many turns, each re-checking the streams of its slot: a thousand
 * streams authenticated at once (the example app's login cache expiring on that same beat) sent
 * a thousand lookups to the database together, and every write queued behind them (bench:changes,
 * write p50 from about 0.1 s to 1.6 s).
 */
const SLOTS = 10;

/** Answers shared by the re-checks of one turn (streams sending the same credentials authenticate once). */
export type RecheckMemo = Map<string, Promise<unknown>>;

/**
 * When streams re-check their subscribers' rights (decision 70): each of them every `intervalMs`,
 * a tenth of them per turn, the turn's streams sending the same credentials authenticated once
 * (never per event); and, after a write to a subscriber's own user record, that
 * subscriber's streams, held (nothing rendered) from the write's event until the answer. The
 * re-check starts once the writing request has settled, after its after-hooks: an application
 * that caches logins forgets them there (the example app does), and a check before that would
 * read the old roles from its cache.
 */
export class RecheckSchedule {
  private timer: NodeJS.Timeout | null = null;
  private fallback: NodeJS.Timeout | null = null;
  /** Streams held by a write to their user's record, since when. */
  private readonly waiting = new Map<Subscriber, number>();
  private readonly slots = new WeakMap<Subscriber, number>();
  private nextSlot = 0;
  private turn = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly subscribers: () => Iterable<Subscriber>,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.intervalMs / SLOTS);
    this.timer.unref();
  }

  /** Re-checks the streams whose slot's turn it is (a stream gets its slot the first time it is seen). */
  private tick(): void {
    const memo: RecheckMemo = new Map();
    for (const subscriber of this.subscribers()) {
      let slot = this.slots.get(subscriber);
      if (slot === undefined) {
        // the turn after this one: a new stream waits at most one period, as every other
        slot = (this.turn + 1 + this.nextSlot++) % SLOTS;
        this.slots.set(subscriber, slot);
      }
      if (slot === this.turn) subscriber.refresh(false, memo);
    }
    this.turn = (this.turn + 1) % SLOTS;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.fallback) clearTimeout(this.fallback);
    this.timer = null;
    this.fallback = null;
    this.waiting.clear();
  }

  /** A write to the user record `id` was published: its subscribers' streams are held until re-checked. */
  userWritten(id: string): void {
    const now = Date.now();
    for (const subscriber of this.subscribers()) {
      if (subscriber.rules.userId !== id) continue;
      subscriber.hold();
      this.waiting.set(subscriber, now);
    }
    if (this.waiting.size > 0 && !this.fallback) {
      this.fallback = setTimeout(() => this.settle(false), SETTLE_MS);
      this.fallback.unref();
    }
  }

  /** A request that wrote user records settled (its after-hooks ran): the held streams are re-checked now. */
  release(): void {
    this.settle(true);
  }

  /**
   * Re-checks the waiting streams. The fallback keeps them waiting (for KEEP_MS) in case their
   * request settles later; a settled request ends their wait.
   */
  private settle(settled: boolean): void {
    if (this.fallback) clearTimeout(this.fallback);
    this.fallback = null;
    const now = Date.now();
    for (const [subscriber, since] of this.waiting) {
      if (now - since <= KEEP_MS && !subscriber.stream.isClosed) subscriber.refresh(true);
      if (settled || now - since > KEEP_MS || subscriber.stream.isClosed) this.waiting.delete(subscriber);
    }
  }
}
