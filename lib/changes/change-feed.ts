import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import type { Driver } from '../driver';
import type { Loggers } from '../log/logger';
import type { Registry } from '../service/declarations/registry';
import type { ModelInfo } from '../resource/model-info';
import { eventsOf, readWritten } from './commit-events';
import { Delivery, type ShedStats } from './delivery';
import { EventBuffer } from './event-buffer';
import { RecheckSchedule } from './recheck-schedule';
import { recordingDriver, type ChangeSink, type RecordedChange } from './recording-driver';
import type { RedisFanOut } from './redis-fan-out';
import { SseStream } from './sse-stream';
import { StreamSlots } from './stream-slots';
import { Subscriber, type SubscriberRules } from './subscriber';
import type { ChangeEvent, ChangeFeedSettings } from './types';

/** How long a write or a new stream waits for Redis before going on without it (ms). */
const REDIS_WAIT_MS = 1000;

/** `work`, or a rejection after `ms` (the work goes on; its late failure is ignored). */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  work.catch(() => undefined);
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * The change feed (decisions 60-62): fed after each commit by the recording drivers, it keeps a
 * bounded buffer of recent events per resource, delivers each event to the open streams of its
 * resource (through Redis first when configured, so every instance delivers it) and holds the
 * streams: their bound, heartbeats, and their end on close.
 */
export class ChangeFeed implements ChangeSink {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private readonly buffers = new Map<string, EventBuffer>();
  private readonly live = new Set<string>();
  private readonly fanOut: RedisFanOut | null;
  private readonly instance = randomBytes(4).toString('hex');
  private sequence = 0;
  private readonly slots: StreamSlots;
  private readonly rechecks: RecheckSchedule;
  private readonly delivery: Delivery;
  private heartbeat: NodeJS.Timeout | null = null;
  private registry: Registry | null = null;
  private redisDown = false;
  /** The last commit's publication: the next one's events go out after it (commit order). */
  private publishing: Promise<void> = Promise.resolve();
  /** MODEL of the users resource (decision 70): a write to a subscriber's record re-checks their streams. */
  private usersModel: string | null = null;

  constructor(
    readonly settings: ChangeFeedSettings,
    private readonly log: Loggers,
  ) {
    this.slots = new StreamSlots(settings.maxStreams, settings.maxStreamsPerCaller);
    this.rechecks = new RecheckSchedule(settings.reauthSeconds * 1000, () => this.allSubscribers());
    this.delivery = new Delivery((model) => this.subscribers.get(model) ?? [], (model) => this.bufferOf(model), { maxMs: settings.maxBacklogMs, maxBytes: settings.maxBacklogBytes }, log);
    this.fanOut = settings.redisUrl ? new (loadFanOut())(settings.redisUrl, settings.prefix, { event: (e) => this.deliver(e), live: (m) => this.live.add(m) }) : null;
  }

  /** Puts the recording driver in front of every resource's driver (once, when the router is built). */
  attach(registry: Registry): void {
    if (this.registry) return;
    this.registry = registry;
    const wrapped = new Map<Driver, Driver>();
    for (const entry of registry.entriesList()) {
      let driver = wrapped.get(entry.driver);
      if (!driver) wrapped.set(entry.driver, (driver = recordingDriver(entry.driver, this)));
      entry.driver = driver;
    }
    const named = this.settings.usersResource;
    this.usersModel = registry.entriesList().find((e) => (named ? e.declaration.name === named || e.info.name === named : e.declaration.grantableRoles !== undefined))?.info.name ?? null;
    this.fanOut?.start().catch((error: unknown) => this.redisFailed(error));
  }

  /** Open streams on this instance. */
  get openStreams(): number {
    return this.slots.count;
  }

  /** Each open stream's state (operators, tests): its resource, its user, behind a full socket, held for a re-check, events owed. */
  streamStates(): Array<{ model: string; userId: string | null; blocked: boolean; held: boolean; owed: number }> {
    return [...this.allSubscribers()].map((s) => ({ model: s.model, userId: s.rules.userId, blocked: s.stream.isBlocked, held: s.isHeld, owed: s.owed }));
  }

  /** Load shed (issue 52): resources' backlogs shed past their bound, and the streams reset by it. */
  stats(): ShedStats & { openStreams: number } {
    return { ...this.delivery.stats, openStreams: this.slots.count };
  }

  /** The replay buffer of `model`: events and bytes held (decision 71 bounds both). */
  buffered(model: string): { events: number; bytes: number } {
    const buffer = this.buffers.get(model);
    return buffer ? { events: buffer.next - buffer.first, bytes: buffer.size } : { events: 0, bytes: 0 };
  }

  isLive(model: string): boolean {
    return this.live.has(model);
  }

  model(name: string): ModelInfo {
    return this.catalog().model(name);
  }

  catalog(): Registry {
    if (!this.registry) throw new Error('The change feed is not attached to a registry.');
    return this.registry;
  }

  /**
   * After a commit: the records written, read whole (every field but write-only ones, trashed
   * included) with one read per resource, published in the order the commits reached the feed
   * (each commit's read starts at once; its events wait for the earlier commits'). Hard deletes
   * carry the record as it was. The recording driver does not wait for this (issue 52: a write's
   * answer never waits for the fan-out); the promise settles when the events are out and never
   * rejects: a failure is logged.
   */
  committed(changes: RecordedChange[], driver: Driver): Promise<void> {
    const read = readWritten(changes, driver, (model) => this.model(model));
    read.catch(() => undefined);
    const done = this.publishing
      .then(() => read)
      .then((rows) => this.publish(eventsOf(changes, rows, () => this.nextId())))
      .catch((error: unknown) => {
        this.log.app.error('change feed: the events of a commit could not be published', { error: error instanceof Error ? error.message : String(error) });
      });
    this.publishing = done;
    return done;
  }

  /**
   * Emits events for records written outside the recording drivers (application code writing
   * with its own connection): `api.changes.emit([{model, key, kind}])` after its commit.
   */
  async emit(changes: RecordedChange[]): Promise<void> {
    const live = changes.filter((c) => this.isLive(c.model));
    if (live.length > 0 && this.registry) await this.committed(live, this.registry.entry(live[0].model).driver);
  }

  private nextId(): string {
    this.sequence += 1;
    return `${Date.now()}-${this.instance}-${this.sequence}`;
  }

  private async publish(events: ChangeEvent[]): Promise<void> {
    if (events.length === 0) return;
    if (this.fanOut && !this.redisDown) {
      try {
        await within(this.fanOut.publish(events), REDIS_WAIT_MS);
        return;
      } catch (error) {
        this.redisFailed(error);
      }
    }
    for (const event of events) this.deliver(event);
  }

  /** Redis cannot be reached: events are delivered in this instance only; said once per outage. */
  private redisFailed(error: unknown): void {
    if (!this.redisDown) this.log.app.warn('change feed: Redis unreachable, events reach this instance only', { error: error instanceof Error ? error.message : String(error) });
    this.redisDown = true;
    setTimeout(() => {
      this.redisDown = false;
    }, 2000).unref();
  }

  /**
   * An event of any instance: buffered, and handed to the streams of its resource in the feed's
   * next write cycle (delivery.ts), so the write's answer never waits for the fan-out (issue 52).
   * A write to a user record first holds the streams of that user until their rights are checked again.
   */
  private deliver(event: ChangeEvent): void {
    if (event.model === this.usersModel) this.rechecks.userWritten(String(event.key));
    const seq = this.bufferOf(event.model).push(event, JSON.stringify(event.record).length);
    if (this.subscribers.get(event.model)?.size) this.delivery.published(event.model, seq);
  }

  private bufferOf(model: string): EventBuffer {
    let buffer = this.buffers.get(model);
    if (!buffer) this.buffers.set(model, (buffer = new EventBuffer(this.settings.bufferSize, this.settings.bufferBytes)));
    return buffer;
  }

  private *allSubscribers(): Iterable<Subscriber> {
    for (const set of this.subscribers.values()) yield* set;
  }

  /**
   * A request settled after writing `models` (its after-hooks ran): streams held by a write to
   * their user's record are re-checked now (decision 70).
   */
  settled(models: ReadonlySet<string>): void {
    // after the user write's own event is out (it holds the streams the re-check releases)
    if (this.usersModel && models.has(this.usersModel)) void this.publishing.then(() => this.rechecks.release());
  }

  /** Says here (and through Redis, everywhere) that writes to `model` are recorded and published from now on. */
  private async markLive(model: string): Promise<void> {
    if (this.live.has(model)) return;
    this.live.add(model);
    if (this.fanOut && !this.redisDown) await within(this.fanOut.announce(model), REDIS_WAIT_MS).catch((error: unknown) => this.redisFailed(error));
  }

  /**
   * Opens a stream on `model` (decisions 62, 70, 71): 429 past the caller's share of the bound of
   * open streams, 503 past the bound; with `lastEventId`, the buffered events after it as the
   * socket drains, or one `reset` when it is no longer buffered. `recheck` derives the rules
   * anew from a fresh authentication (every REST_CHANGES_REAUTH_S, and after a write to the
   * subscriber's own user record).
   */
  async open(model: string, rules: SubscriberRules, recheck: (memo?: Map<string, Promise<unknown>>) => Promise<SubscriberRules>, res: Response, lastEventId: string | null, caller: string): Promise<void> {
    this.slots.take(caller);
    let subscriber: Subscriber | null = null;
    const release = () => {
      if (subscriber) this.subscribers.get(model)?.delete(subscriber);
      subscriber = null;
      this.slots.release(caller);
      if (this.slots.count === 0) this.stopTimers();
    };
    try {
      await this.markLive(model);
      // writes to user records are what re-check a stream early, on whichever instance they happen
      if (this.usersModel) await this.markLive(this.usersModel);
    } catch (error) {
      release();
      throw error;
    }
    // the writes answered before this stream opened are in the buffer (a resume sees them)
    await this.publishing;
    if (res.destroyed) return release();
    const stream = new SseStream(res, release, () => subscriber?.pull());
    subscriber = new Subscriber(model, rules, stream, this.bufferOf(model), this.settings.maxBufferedBytes, {
      recheck,
      failed: (error) => this.log.app.warn('change feed: a stream could not re-check its subscriber; held until a check succeeds', { error: error instanceof Error ? error.message : String(error) }),
    });
    stream.open();
    if (lastEventId !== null) subscriber.resume(lastEventId);
    let set = this.subscribers.get(model);
    if (!set) this.subscribers.set(model, (set = new Set()));
    set.add(subscriber);
    this.startTimers();
  }

  private startTimers(): void {
    this.rechecks.start();
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      for (const set of this.subscribers.values()) for (const subscriber of set) subscriber.stream.comment('heartbeat');
    }, this.settings.heartbeatMs);
    this.heartbeat.unref();
  }

  private stopTimers(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.rechecks.stop();
  }

  /** Graceful shutdown: every stream ended, the heartbeat stopped, Redis closed. */
  async close(): Promise<void> {
    for (const set of this.subscribers.values()) for (const subscriber of [...set]) subscriber.stream.end();
    this.subscribers.clear();
    this.stopTimers();
    await this.publishing;
    await this.fanOut?.close();
  }
}

/** redis is an optional peer: loaded only when the feed fans out through Redis. */
function loadFanOut(): typeof RedisFanOut {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('./redis-fan-out') as typeof import('./redis-fan-out')).RedisFanOut;
  } catch {
    throw new Error('A change feed on Redis (changes.redisUrl or REDIS_URL) needs the redis package: npm install redis');
  }
}
