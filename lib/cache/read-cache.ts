import { BadRequestError } from '../errors';
import type { PlannedRead } from '../service/reads/planned-read';
import type { RequestContext } from '../service/request-context';
import { toJson } from '../service/reads/serialize';
import type { Loggers } from '../log/logger';
import { toBoolean } from '../query/read-boolean';
import { modelsRead } from '../query/walk';
import { entryKey, epochKey, etagOf, versionKey } from './cache-key';
import { MemoryStore } from './memory-store';
import { readForCache } from '../driver/read-route';
import type { CacheSettings, ResourceCacheSettings } from './settings';
import type { CacheEntry, CacheStore } from './store';

/** What the cache reads of the request: no HTTP types, the route adapter (http/cached-reads.ts) fills it. */
export interface CacheRequest {
  ctx: RequestContext;
  /** The HTTP method (part of the key). */
  method: string;
  /** A request header (the vary headers are part of the key). */
  header(name: string): string | undefined;
  /** `cache` (false: bypass) and `cache_ttl` (seconds) of the request's parameters. */
  params: { cache?: unknown; cache_ttl?: unknown };
}

/** A read served by the cache: the answer's JSON and its tag, and how it was served; `off` when the cache did not take part. */
export type CacheOutcome = { state: 'off'; value: unknown } | { state: 'hit' | 'miss' | 'bypass'; body: string; etag: string };

/**
 * The read cache: keys over the canonical query and model versions, answers as JSON text with a
 * tag (the route adapter turns them into `X-Cache`, `ETag` and 304), single flight for concurrent
 * misses, versions bumped after commits. A failing store never fails a
 * request (decision 43): reads go to the database and one line is logged per outage.
 *
 * A circuit around the store: every call is bounded (`timeoutMs`); a call that fails or takes
 * longer opens it, and while open the cache is not used at all (reads are misses from the
 * database, writes skip their version bumps). After `retryMs` one call tries the store again by
 * bumping the epoch, which every entry key includes: entries made before the outage are never
 * served again, since a write during it could not bump its models' versions. Only when that bump
 * succeeds is the cache used again.
 */
export class ReadCache {
  readonly store: CacheStore;
  private readonly inflight = new Map<string, Promise<CacheEntry>>();
  private down = false;
  /** While down: when the store may be tried again. */
  private retryAt = 0;
  private probing: Promise<boolean> | null = null;
  private probeTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly settings: CacheSettings,
    private readonly log: Loggers,
    private readonly resourceSettings: (model: string) => ResourceCacheSettings | undefined,
    private readonly targetOf: (model: string, relation: string) => string,
    store?: CacheStore,
  ) {
    this.store = store ?? ReadCache.makeStore(settings);
  }

  private static makeStore(settings: CacheSettings): CacheStore {
    if (settings.store === 'redis') {
      if (!settings.redisUrl) throw new Error('REST_CACHE_STORE=redis needs REDIS_URL (or cache.redisUrl).');
      // redis is an optional peer: loaded only when the redis store is chosen
      let load: typeof import('./redis-store');
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        load = require('./redis-store') as typeof import('./redis-store');
      } catch {
        throw new Error('REST_CACHE_STORE=redis needs the redis package: npm install redis');
      }
      return new load.RedisStore(settings.redisUrl);
    }
    return new MemoryStore({ maxEntries: settings.maxEntries, maxBytes: settings.maxBytes });
  }

  /** Serves a planned read from the cache or runs it and stores the answer. */
  serve(input: CacheRequest, read: PlannedRead, run: () => Promise<unknown>): Promise<CacheOutcome> {
    const own = this.resourceSettings(read.query.model);
    if (!this.settings.enabled || own === false) return off(run);
    return this.serveCached(input, read, run, own);
  }

  private async serveCached(input: CacheRequest, read: PlannedRead, run: () => Promise<unknown>, own: Exclude<ResourceCacheSettings, false> | undefined): Promise<CacheOutcome> {
    const methods = own?.cacheableMethods ?? this.settings.cacheableMethods;
    if (!methods.includes(read.method)) return off(run);
    const ttl = this.ttlOf(input, read, own);
    if (this.bypassed(input)) return this.reply(await this.fill(null, run, 0), 'bypass');

    const models = modelsRead(read.query, this.targetOf);
    const versions = await this.guard(() => this.store.versions([epochKey(this.settings.prefix), ...models.map((m) => versionKey(this.settings.prefix, m))]), null);
    if (!versions) return this.reply(await this.fill(null, run, 0), 'miss');
    const vary = own?.varyHeaders ?? this.settings.varyHeaders;
    const key = entryKey(this.settings.prefix, {
      op: read.method,
      model: read.query.model,
      route: input.ctx.route,
      method: input.method,
      query: read.query,
      shape: read.shape ?? null,
      vary: vary.map((h) => input.header(h) ?? null),
      user: input.ctx.user?.id ?? null,
      // what the caller may read depends on their roles, which can change between requests
      roles: [...input.ctx.roles].sort(),
      superuser: input.ctx.user?.is_superuser === true,
      epoch: versions[0],
      versions: Object.fromEntries(models.map((m, i) => [m, versions[i + 1]])),
    });
    const cached = await this.guard(() => this.store.get(key), null);
    if (cached) return this.reply(cached, 'hit');
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.fill(key, run, ttl).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return this.reply(await pending, 'miss');
  }

  /** Bumps the versions of every model a committed write touched. */
  async bump(models: Iterable<string>): Promise<void> {
    const keys = [...new Set(models)].map((m) => versionKey(this.settings.prefix, m));
    if (!this.settings.enabled || keys.length === 0) return;
    if (!this.down) return void (await this.guard(() => this.store.bump(keys), undefined));
    // circuit open: still try (bounded), since another instance may already serve these models'
    // entries from a Redis that answers again; the epoch goes with it, as earlier bumps were lost
    try {
      await this.bounded(this.store.bump([epochKey(this.settings.prefix), ...keys]));
      this.up();
    } catch (error) {
      this.fail(error);
    }
  }

  close(): Promise<void> {
    clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    return this.store.close();
  }

  private async fill(key: string | null, run: () => Promise<unknown>, ttl: number): Promise<CacheEntry> {
    // an answer a lagging replica gave is served, never stored (decision 86)
    const { value, storable } = key ? await readForCache(run) : { value: await run(), storable: false };
    const body = toJson(value);
    const entry = { body, etag: etagOf(body) };
    if (key && storable) await this.guard(() => this.store.set(key, entry, ttl), undefined);
    return entry;
  }

  private reply(entry: CacheEntry, state: 'hit' | 'miss' | 'bypass'): CacheOutcome {
    return { state, body: entry.body, etag: entry.etag };
  }

  private bypassed(input: CacheRequest): boolean {
    const raw = input.params.cache;
    if (raw === undefined || raw === null || raw === '') return false;
    const value = toBoolean(raw);
    if (value === undefined) throw new BadRequestError('The cache parameter must be true or false.', 'cache');
    return !value;
  }

  private ttlOf(input: CacheRequest, read: PlannedRead, own: Exclude<ResourceCacheSettings, false> | undefined): number {
    const raw = input.params.cache_ttl;
    if (raw !== undefined && raw !== null && raw !== '') {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isInteger(n) || n < 1 || n > 86_400 * 30) throw new BadRequestError('The cache_ttl parameter must be a whole number of seconds between 1 and 2592000.', 'cache_ttl');
      return n;
    }
    const ownTtl = own?.ttlByMethod?.[read.method];
    if (ownTtl) return ownTtl;
    if (own?.ttl) return own.ttl;
    return this.settings.ttlByMethod[read.method] ?? this.settings.ttl;
  }

  /** True while the circuit is open (the store failed and has not answered again yet). */
  get isDown(): boolean {
    return this.down;
  }

  /**
   * Runs a store call within `timeoutMs`; on failure or time-out opens the circuit (logged once
   * per outage) and answers `fallback`. While open, answers `fallback` without asking the store,
   * except for one recovery attempt every `retryMs`.
   */
  private async guard<T, F>(work: () => Promise<T>, fallback: F): Promise<T | F> {
    if (this.down && !(await this.recovered())) return fallback;
    try {
      return await this.bounded(work());
    } catch (error) {
      this.fail(error);
      return fallback;
    }
  }

  /** A store call bounded by `timeoutMs`; its late outcome is ignored. */
  private bounded<T>(call: Promise<T>): Promise<T> {
    const ms = this.settings.timeoutMs;
    if (!ms || ms <= 0) return call;
    let timer: NodeJS.Timeout | undefined;
    call.catch(() => undefined);
    return Promise.race([
      call,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the cache store did not answer within ${ms} ms`)), ms);
      }),
    ]).finally(() => clearTimeout(timer));
  }

  private fail(error: unknown): void {
    this.retryAt = Date.now() + this.settings.retryMs;
    if (!this.down) {
      this.down = true;
      this.log.app.warn('read cache: the store failed; serving from the database until it is back', { error: (error as Error).message });
    }
    this.scheduleProbe();
  }

  private up(): void {
    if (!this.down) return;
    this.down = false;
    clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    this.log.app.info('read cache: the store answers again; entries made before the outage are dropped');
  }

  /**
   * While down, the epoch bump is tried every `retryMs` without waiting for a request: until it
   * lands, other instances may serve entries that a write here could not invalidate.
   */
  private scheduleProbe(): void {
    if (this.probeTimer || this.settings.retryMs <= 0) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = undefined;
      void this.recovered().then((ok) => {
        if (!ok && this.down) this.scheduleProbe();
      });
    }, Math.max(0, this.retryAt - Date.now()) + 1);
    this.probeTimer.unref();
  }

  /** While down: at most one attempt per `retryMs` to bump the epoch; true once it succeeded. */
  private recovered(): Promise<boolean> {
    if (!this.down) return Promise.resolve(true);
    if (this.probing) return this.probing;
    if (Date.now() < this.retryAt) return Promise.resolve(false);
    this.probing = (async () => {
      try {
        // entries made before the outage die with the epoch: versions bumps may have been lost meanwhile
        await this.bounded(this.store.bump([epochKey(this.settings.prefix)]));
        this.up();
        return true;
      } catch {
        this.retryAt = Date.now() + this.settings.retryMs;
        return false;
      } finally {
        this.probing = null;
      }
    })();
    return this.probing;
  }
}

/** Not cached: the read itself. */
async function off(run: () => Promise<unknown>): Promise<CacheOutcome> {
  return { state: 'off', value: await run() };
}
