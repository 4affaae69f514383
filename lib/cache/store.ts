/** A cached answer: the serialized JSON body and its entity tag. */
export interface CacheEntry {
  body: string;
  etag: string;
}

/**
 * Where entries and model versions live. Versions never expire; entries do. Any method may
 * reject when the store is down: the read cache then serves from the database.
 */
export interface CacheStore {
  get(key: string): Promise<CacheEntry | null>;
  set(key: string, entry: CacheEntry, ttlSeconds: number): Promise<void>;
  /** Current versions of the given version keys (0 when never bumped), in one round trip. */
  versions(keys: string[]): Promise<number[]>;
  /** Increments each version key, in one round trip. */
  bump(keys: string[]): Promise<void>;
  close(): Promise<void>;
}
