import { createClient } from 'redis';
import type { ChangeEvent } from './types';
import { closeRedisClient } from '../cache/close-redis';

type Client = ReturnType<typeof createClient>;

/**
 * Fan-out between app instances over Redis pub/sub (decision 62): every instance publishes the
 * events of its commits on one channel and delivers what the channel brings, its own included, so
 * each instance sees one order. A second channel and a set announce which resources have streams
 * (`live`), so an instance reads and publishes the records of a write only when someone may listen.
 */
export class RedisFanOut {
  private readonly publisher: Client;
  private readonly subscriber: Client;
  private started: Promise<void> | null = null;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly handlers: { event(event: ChangeEvent): void; live(model: string): void },
  ) {
    const options = { url, socket: { connectTimeout: 1000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2000) } };
    this.publisher = createClient({ ...options, disableOfflineQueue: true });
    this.subscriber = createClient(options);
    // failures surface on the commands; the events only keep them from crashing the process
    this.publisher.on('error', () => undefined);
    this.subscriber.on('error', () => undefined);
  }

  private get channel(): string {
    return `${this.prefix}:changes`;
  }

  private get liveChannel(): string {
    return `${this.prefix}:changes:live`;
  }

  /** Connects and subscribes once; the resources already live anywhere are learned from the set. */
  start(): Promise<void> {
    this.started ??= (async () => {
      await Promise.all([this.publisher.connect(), this.subscriber.connect()]);
      await this.subscriber.subscribe(this.channel, (message) => {
        try {
          this.handlers.event(JSON.parse(message) as ChangeEvent);
        } catch {
          // not an event of ours: ignored
        }
      });
      await this.subscriber.subscribe(this.liveChannel, (model) => this.handlers.live(model));
      for (const model of await this.publisher.sMembers(this.liveChannel)) this.handlers.live(model);
    })().catch((error: unknown) => {
      this.started = null;
      throw error;
    });
    return this.started;
  }

  async publish(events: ChangeEvent[]): Promise<void> {
    await this.start();
    const multi = this.publisher.multi();
    for (const event of events) multi.publish(this.channel, JSON.stringify(event));
    await multi.exec();
  }

  /** Says on every instance that `model` has streams from now on. */
  async announce(model: string): Promise<void> {
    await this.start();
    await this.publisher.multi().sAdd(this.liveChannel, model).publish(this.liveChannel, model).exec();
  }

  async close(): Promise<void> {
    // a dead Redis must not hold the app's shutdown (the subscriber keeps an offline queue)
    await Promise.all([this.subscriber, this.publisher].map((client) => closeRedisClient(client)));
  }
}
