import { createClient } from 'redis';
import type { CacheEntry, CacheStore } from './store';
import { closeRedisClient } from './close-redis';

type Client = ReturnType<typeof createClient>;

/**
 * Redis store: entries as strings with an expiry, versions as counters without one, so several
 * app instances share both. Commands fail at once while disconnected (no offline queue), so a
 * Redis outage never holds a request; the client keeps reconnecting in the background.
 */
export class RedisStore implements CacheStore {
  private readonly client: Client;
  private connecting: Promise<unknown> | null = null;

  constructor(url: string) {
    this.client = createClient({
      url,
      disableOfflineQueue: true,
      // a stalled Redis (the read cache gives up on each call after its own short timeout) never
      // piles up more than this many commands in the client
      commandsQueueMaxLength: 1000,
      socket: { connectTimeout: 1000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2000) },
    });
    // errors surface on the commands that fail; the event only keeps them from crashing the process
    this.client.on('error', () => undefined);
  }

  private async ready(): Promise<Client> {
    if (!this.client.isOpen) this.connecting ??= this.client.connect().catch((error: unknown) => {
      this.connecting = null;
      throw error;
    });
    if (!this.client.isReady) {
      if (this.connecting) await this.connecting;
      if (!this.client.isReady) throw new Error('Redis is not connected');
    }
    return this.client;
  }

  async get(key: string): Promise<CacheEntry | null> {
    const raw = await (await this.ready()).get(key);
    if (typeof raw !== 'string') return null;
    const split = raw.indexOf('\n');
    return split < 0 ? null : { etag: raw.slice(0, split), body: raw.slice(split + 1) };
  }

  async set(key: string, entry: CacheEntry, ttlSeconds: number): Promise<void> {
    await (await this.ready()).set(key, `${entry.etag}\n${entry.body}`, { EX: ttlSeconds });
  }

  async versions(keys: string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const values = await (await this.ready()).mGet(keys);
    return values.map((v) => (typeof v === 'string' ? Number(v) : 0));
  }

  async bump(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    const multi = (await this.ready()).multi();
    for (const k of keys) multi.incr(k);
    await multi.exec();
  }

  /** QUIT, or the socket destroyed when Redis does not answer (see closeRedisClient). */
  async close(): Promise<void> {
    await closeRedisClient(this.client);
  }
}
