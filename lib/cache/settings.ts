/** The read operations the spec names; `/first` counts as list_all. */
export type CacheableMethod = 'list_all' | 'get_one';

export interface CacheSettings {
  /** REST_CACHE_ENABLED (default false): the master switch. */
  enabled: boolean;
  /** REST_CACHE_STORE: `memory` (default) or `redis` (REDIS_URL). */
  store: 'memory' | 'redis';
  /** REST_CACHE_TTL (60 s): lifetime when no per-method one applies. */
  ttl: number;
  /** REST_CACHE_TTL_LIST (60 s), REST_CACHE_TTL_ONE (30 s). */
  ttlByMethod: Record<CacheableMethod, number>;
  /** Request headers that become part of the key (Accept-Language, X-Tenant-Id). */
  varyHeaders: string[];
  /** Which reads are cached (both by default). */
  cacheableMethods: CacheableMethod[];
  /** REST_CACHE_PREFIX (`rest`): the first part of every key. */
  prefix: string;
  /** REDIS_URL for the redis store. */
  redisUrl?: string;
  /** Memory store bounds: entries and bytes (REST_CACHE_MAX_ENTRIES, REST_CACHE_MAX_BYTES). */
  maxEntries: number;
  maxBytes: number;
  /** REST_CACHE_TIMEOUT_MS (250): the longest a store call may take; past it the store counts as down. */
  timeoutMs: number;
  /** REST_CACHE_RETRY_MS (2000): while down, how long before the store is tried again. */
  retryMs: number;
}

export type { ResourceCacheSettings } from '../declaration';

const int = (name: string, fallback: number): number => {
  const n = Number.parseInt(process.env[name] ?? '', 10);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};

export function cacheSettingsFromEnv(overrides: Partial<CacheSettings> = {}): CacheSettings {
  const enabled = ['1', 'true', 'yes', 'on'].includes((process.env.REST_CACHE_ENABLED ?? '').toLowerCase());
  const store = process.env.REST_CACHE_STORE === 'redis' ? 'redis' : 'memory';
  return {
    enabled,
    store,
    ttl: int('REST_CACHE_TTL', 60),
    ttlByMethod: { list_all: int('REST_CACHE_TTL_LIST', 60), get_one: int('REST_CACHE_TTL_ONE', 30) },
    varyHeaders: ['accept-language', 'x-tenant-id'],
    cacheableMethods: ['list_all', 'get_one'],
    prefix: process.env.REST_CACHE_PREFIX || 'rest',
    redisUrl: process.env.REDIS_URL,
    maxEntries: int('REST_CACHE_MAX_ENTRIES', 10_000),
    maxBytes: int('REST_CACHE_MAX_BYTES', 64 * 1024 * 1024),
    timeoutMs: int('REST_CACHE_TIMEOUT_MS', 250),
    retryMs: int('REST_CACHE_RETRY_MS', 2000),
    ...overrides,
  };
}
