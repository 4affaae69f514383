import { LRUCache } from 'lru-cache';
import type { CacheEntry, CacheStore } from './store';

/** In-process store, bounded in entries and bytes (lru-cache); versions are plain counters. */
export class MemoryStore implements CacheStore {
  private readonly entries: LRUCache<string, CacheEntry>;
  private readonly counters = new Map<string, number>();

  constructor(options: { maxEntries: number; maxBytes: number }) {
    this.entries = new LRUCache<string, CacheEntry>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      sizeCalculation: (entry) => Math.max(1, entry.body.length * 2 + entry.etag.length),
    });
  }

  async get(key: string): Promise<CacheEntry | null> {
    return this.entries.get(key) ?? null;
  }

  async set(key: string, entry: CacheEntry, ttlSeconds: number): Promise<void> {
    this.entries.set(key, entry, { ttl: ttlSeconds * 1000 });
  }

  async versions(keys: string[]): Promise<number[]> {
    return keys.map((k) => this.counters.get(k) ?? 0);
  }

  async bump(keys: string[]): Promise<void> {
    for (const k of keys) this.counters.set(k, (this.counters.get(k) ?? 0) + 1);
  }

  async close(): Promise<void> {
    this.entries.clear();
  }
}
