import { MemoryWriteMarks, ReadYourWrites, type WriteMarks } from '../service/read-your-writes';
import type { ReadCache } from './read-cache';
import type { CacheStore } from './store';

/**
 * Callers' write windows in the cache's Redis store, so every instance sees a write made on
 * another (decision 86). Whole seconds (Redis's EX), rounded up: a window never ends early.
 */
export class StoreWriteMarks implements WriteMarks {
  /** This instance's own marks: a window holds here even while Redis fails. */
  private readonly local = new MemoryWriteMarks();

  constructor(
    private readonly store: CacheStore,
    private readonly prefix: string,
    /** Longest store call (the cache's `timeoutMs`): a stalled Redis never holds a write or a read. */
    private readonly timeoutMs: number,
    /** Closes a store of its own (the cache's store is closed with the cache). */
    private readonly closeStore: () => Promise<void> = async () => undefined,
  ) {}

  private bounded<T>(call: Promise<T>): Promise<T> {
    call.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the store did not answer in time')), this.timeoutMs > 0 ? this.timeoutMs : 250)));
    return Promise.race([call, limit]).finally(() => clearTimeout(timer));
  }

  private key(caller: string): string {
    return `${this.prefix}ryw:${caller}`;
  }

  async mark(caller: string, windowMs: number): Promise<void> {
    await this.local.mark(caller, windowMs);
    await this.bounded(this.store.set(this.key(caller), { body: '1', etag: '' }, Math.max(1, Math.ceil(windowMs / 1000))));
  }

  /** Rejects when the store fails or is late: the caller then reads from the primary. */
  async recent(caller: string): Promise<boolean> {
    if (await this.local.recent(caller)) return true;
    return (await this.bounded(this.store.get(this.key(caller)))) !== null;
  }

  close(): Promise<void> {
    return this.closeStore();
  }
}

/**
 * Decision 86's window, shared by every instance through Redis: the cache's store when it is
 * Redis, else a client of its own on `redisUrl` (REDIS_URL, as the change feed's fan-out), which
 * connects on its first mark; without Redis (or the redis package), in the process.
 */
export function readYourWritesOf(cache: ReadCache, windowMs: number, redisUrl: string | null): ReadYourWrites {
  if (cache.settings.store === 'redis') return new ReadYourWrites(new StoreWriteMarks(cache.store, cache.settings.prefix, cache.settings.timeoutMs), windowMs);
  if (redisUrl) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { RedisStore } = require('./redis-store') as typeof import('./redis-store');
      const store = new RedisStore(redisUrl);
      return new ReadYourWrites(new StoreWriteMarks(store, cache.settings.prefix, cache.settings.timeoutMs, () => store.close()), windowMs);
    } catch {
      // the redis package is optional: the window stays in the process
    }
  }
  return new ReadYourWrites(new MemoryWriteMarks(), windowMs);
}
