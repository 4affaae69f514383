import type { Loggers } from '../log/logger';
import type { EventBuffer } from './event-buffer';
import { flushCycle, type FlushCycle, type FlushSource, type FlushUnit } from './flush-cycle';
import type { CycleRenders, RenderCache, Subscriber } from './subscriber';

/** Bounds past which a resource's undelivered backlog is shed rather than queued (issue 52). */
export interface BacklogBounds {
  /** The oldest event not yet handed to the streams, in ms since it was published here. */
  maxMs: number;
  /** The bytes of the events not yet handed to the streams. */
  maxBytes: number;
}

/** What the feed counts of its shedding: resources' backlogs shed, and streams reset by it. */
export interface ShedStats {
  sheds: number;
  streamsReset: number;
}

/** How often a resource's shedding is logged at most (ms): under sustained overload every cycle sheds. */
const LOG_EVERY_MS = 10_000;

/**
 * Hands published events to the streams (issue 52): never on the write's path, but in the next
 * cycle of the feed's writer (flush-cycle.ts), each stream pulling what it owes and written at
 * once, in slices. The events of one cycle are matched and rendered once per class of subscribers
 * (the render caches, dropped with the cycle). A resource whose backlog is older or larger than
 * its bounds when the cycle starts is shed: its streams that were keeping up get `reset` and go
 * on from the newest event, counted and logged, so delivery latency and memory stay bounded.
 */
export class Delivery implements FlushSource {
  /** Per resource, the first event not yet handed to the streams. */
  private readonly due = new Map<string, number>();
  private readonly lastLog = new Map<string, { at: number; sheds: number; streams: number }>();
  readonly stats: ShedStats = { sheds: 0, streamsReset: 0 };

  constructor(
    private readonly subscribersOf: (model: string) => Iterable<Subscriber>,
    private readonly bufferOf: (model: string) => EventBuffer,
    private readonly bounds: BacklogBounds,
    private readonly log: Loggers,
    private readonly cycle: FlushCycle = flushCycle,
  ) {}

  /** The event at `seq` of `model`'s buffer was published: its streams get it in the next cycle. */
  published(model: string, seq: number): void {
    if (!this.due.has(model)) this.due.set(model, seq);
    this.cycle.due(this);
  }

  begin(): FlushUnit[] {
    const units: FlushUnit[] = [];
    const now = Date.now();
    for (const [model, from] of this.due) {
      const buffer = this.bufferOf(model);
      const first = Math.max(from, buffer.first);
      const age = now - (buffer.pushedAt(first) ?? now);
      const subscribers = [...this.subscribersOf(model)];
      if (age > this.bounds.maxMs || buffer.bytesFrom(first) > this.bounds.maxBytes) this.shed(model, subscribers, from, buffer.next, age, buffer.bytesFrom(first));
      const renders: CycleRenders = new Map();
      for (let seq = first; seq < buffer.next; seq += 1) renders.set(seq, new Map() as RenderCache);
      for (const subscriber of subscribers) {
        units.push({
          flush: () => {
            subscriber.pull(renders, false);
            subscriber.stream.flush();
          },
        });
      }
    }
    this.due.clear();
    return units;
  }

  /**
   * Resets the streams that were keeping up (owing events from `from` on, not past `to`: a stream
   * opened since owes nothing; a stream behind its own full socket answers to its own lag bound);
   * counted, and logged at most every 10 s per resource.
   */
  private shed(model: string, subscribers: Subscriber[], from: number, to: number, age: number, bytes: number): void {
    let streams = 0;
    for (const subscriber of subscribers) {
      if (subscriber.position < from || subscriber.position >= to || subscriber.isHeld || subscriber.stream.isBlocked || subscriber.stream.isClosed) continue;
      subscriber.shed();
      streams += 1;
    }
    this.stats.sheds += 1;
    this.stats.streamsReset += streams;
    const logged = this.lastLog.get(model) ?? { at: -Infinity, sheds: 0, streams: 0 };
    logged.sheds += 1;
    logged.streams += streams;
    const now = Date.now();
    if (now - logged.at >= LOG_EVERY_MS) {
      this.log.app.warn(`change feed: shed load on ${model}: its backlog (${age} ms, ${bytes} bytes) passed the bound; ${logged.streams} stream(s) reset in ${logged.sheds} shed(s) since the last report`, {
        model,
        backlogMs: age,
        backlogBytes: bytes,
        sheds: logged.sheds,
        streamsReset: logged.streams,
      });
      logged.at = now;
      logged.sheds = 0;
      logged.streams = 0;
    }
    this.lastLog.set(model, logged);
  }
}
