import type { Subscriber } from './subscriber';

/**
 * How long a stream held by a write to its user's record waits for that write's request to
 * settle before it is re-checked anyway (a write outside a request, or on another instance).
 */
export const SETTLE_MS = 250;

/**
 * When streams re-check their subscribers' rights (decision 70): every `intervalMs` all of them,
 * in one tick (never per event); and, after a write to a subscriber's own user record, that
 * subscriber's streams, held (nothing rendered) from the write's event until the answer. The
 * re-check starts once the writing request has settled, after its after-hooks: an application
 * that caches logins forgets them there (the example app does), and a check before that would
 * read the old roles from its cache.
 */
export class RecheckSchedule {
  private timer: NodeJS.Timeout | null = null;
  private fallback: NodeJS.Timeout | null = null;
  private readonly waiting = new Set<Subscriber>();

  constructor(
    private readonly intervalMs: number,
    private readonly subscribers: () => Iterable<Subscriber>,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      for (const subscriber of this.subscribers()) subscriber.refresh(false);
    }, this.intervalMs);
    this.timer.unref();
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
    for (const subscriber of this.subscribers()) {
      if (subscriber.rules.userId !== id) continue;
      subscriber.hold();
      this.waiting.add(subscriber);
    }
    if (this.waiting.size > 0 && !this.fallback) {
      this.fallback = setTimeout(() => this.release(), SETTLE_MS);
      this.fallback.unref();
    }
  }

  /** A request that wrote user records settled (its after-hooks ran): the held streams are re-checked now. */
  release(): void {
    if (this.fallback) clearTimeout(this.fallback);
    this.fallback = null;
    for (const subscriber of this.waiting) subscriber.refresh(true);
    this.waiting.clear();
  }
}
