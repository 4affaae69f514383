import { MemoryWriteMarks, ReadYourWrites, type WriteMarks } from '../service/read-your-writes';
import type { ReadCache } from './read-cache';
import type { CacheStore } from './store';

/**
 * Callers' write windows in the cache's Redis store, so every instance sees a write made on
 * another (decision 86). Whole seconds (Redis's EX), rounded up: a window never ends early.
 */
export class StoreWriteMarks implements WriteMarks {
  constructor(
    private readonly store: CacheStore,
    private readonly prefix: string,
  ) {}

  private key(caller: string): string {
    return `${this.prefix}ryw:${caller}`;
  }

  async mark(caller: string, windowMs: number): Promise<void> {
    await this.store.set(this.key(caller), { body: '1', etag: '' }, Math.max(1, Math.ceil(windowMs / 1000)));
  }

  async recent(caller: string): Promise<boolean> {
    return (await this.store.get(this.key(caller))) !== null;
  }

  async close(): Promise<void> {
    // the store is the cache's: closed with it
  }
}

/** Decision 86's window, kept in the cache's Redis when the cache uses one (shared by every instance), else in the process. */
export function readYourWritesOf(cache: ReadCache, windowMs: number): ReadYourWrites {
  const shared = cache.settings.store === 'redis';
  return new ReadYourWrites(shared ? new StoreWriteMarks(cache.store, cache.settings.prefix) : new MemoryWriteMarks(), windowMs);
}
