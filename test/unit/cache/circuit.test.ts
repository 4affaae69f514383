import { expect } from 'chai';
import type { Request } from 'express';
import { ReadCache } from '../../../lib/cache/read-cache';
import { cachedReads as gate } from '../../../lib/http/cached-reads';
import { cacheSettingsFromEnv } from '../../../lib/cache/settings';
import { MemoryStore } from '../../../lib/cache/memory-store';
import type { CacheStore } from '../../../lib/cache/store';
import type { Reply, RouteInput } from '../../../lib/http/routes';
import { createLoggers } from '../../../lib/log/logger';
import { createContext } from '../../../lib/service/request-context';
import type { ListQuery } from '../../../lib/query/ast';

const query: ListQuery = { model: 'product', filter: null, select: null, relations: [], order: [], page: null, limit: null };
const input = (): RouteInput =>
  ({ req: { method: 'GET', get: () => undefined } as unknown as Request, res: {} as never, ctx: createContext({ route: 'products.index' }), params: {} }) as RouteInput;

/** A memory store that can be made to hang (a stalled Redis) or fail (a refused one). */
class FaultyStore implements CacheStore {
  readonly inner = new MemoryStore({ maxEntries: 100, maxBytes: 1_000_000 });
  mode: 'ok' | 'hang' | 'fail' = 'ok';
  calls = 0;
  private call<T>(work: () => Promise<T>): Promise<T> {
    this.calls += 1;
    if (this.mode === 'hang') return new Promise<T>(() => undefined);
    if (this.mode === 'fail') return Promise.reject(new Error('ECONNREFUSED'));
    return work();
  }
  get(key: string) {
    return this.call(() => this.inner.get(key));
  }
  set(key: string, entry: { body: string; etag: string }, ttl: number) {
    return this.call(() => this.inner.set(key, entry, ttl));
  }
  versions(keys: string[]) {
    return this.call(() => this.inner.versions(keys));
  }
  bump(keys: string[]) {
    return this.call(() => this.inner.bump(keys));
  }
  close() {
    return this.inner.close();
  }
}

const make = (store: CacheStore) =>
  new ReadCache(cacheSettingsFromEnv({ enabled: true, timeoutMs: 50, retryMs: 150 }), createLoggers(), () => undefined, () => 'x', store);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('read cache circuit: a stalled or failing store', () => {
  it('a hanging store costs one bounded wait, then is skipped; reads come from the database', async () => {
    const store = new FaultyStore();
    const cache = make(store);
    store.mode = 'hang';
    let data = 'a';
    const run = async () => ({ data });
    const started = Date.now();
    const first = (await gate(cache)(input(), { method: 'list_all', query }, run)) as Reply;
    expect(Date.now() - started).to.be.below(400);
    expect(first.headers['X-Cache']).to.equal('miss');
    expect(cache.isDown).to.equal(true);
    const calls = store.calls;
    const t2 = Date.now();
    data = 'b';
    const second = (await gate(cache)(input(), { method: 'list_all', query }, run)) as Reply;
    expect(Date.now() - t2).to.be.below(30);
    expect(second.json).to.equal('{"data":"b"}');
    // a write while down still tries its bump once (another instance may be reading from a store
    // that answers it again), bounded by timeoutMs (50 ms here)
    const t3 = Date.now();
    await cache.bump(['product']);
    expect(Date.now() - t3).to.be.below(150);
    expect(store.calls).to.equal(calls + 1);
    expect(cache.isDown).to.equal(true);
  });

  it('after an outage no entry made before it is served: a write whose bump was lost does not leave stale hits', async () => {
    const store = new FaultyStore();
    const cache = make(store);
    let data = 'old';
    const run = async () => ({ data });
    await gate(cache)(input(), { method: 'list_all', query }, run);
    expect(((await gate(cache)(input(), { method: 'list_all', query }, run)) as Reply).headers['X-Cache']).to.equal('hit');
    // the store stalls; a write commits and its bump cannot reach the store
    store.mode = 'hang';
    data = 'new';
    await cache.bump(['product']);
    expect(cache.isDown).to.equal(true);
    // the store is back (the lost bump never applied): the old entry is still in it
    store.mode = 'ok';
    const during = (await gate(cache)(input(), { method: 'list_all', query }, run)) as Reply;
    expect(during.json).to.equal('{"data":"new"}');
    await sleep(200);
    const after = (await gate(cache)(input(), { method: 'list_all', query }, run)) as Reply;
    expect(cache.isDown).to.equal(false);
    expect(after.json).to.equal('{"data":"new"}');
    expect(after.headers['X-Cache']).to.equal('miss');
    const again = (await gate(cache)(input(), { method: 'list_all', query }, run)) as Reply;
    expect(again.headers['X-Cache']).to.equal('hit');
    expect(again.json).to.equal('{"data":"new"}');
  });

  it('two instances on one store: a write on the one whose circuit is still open after the store returns is not served stale by the other', async () => {
    const store = new FaultyStore();
    const one = make(store);
    const two = make(store);
    let data = 'old';
    const run = async () => ({ data });
    await gate(two)(input(), { method: 'list_all', query }, run);
    expect(((await gate(two)(input(), { method: 'list_all', query }, run)) as Reply).headers['X-Cache']).to.equal('hit');
    store.mode = 'hang';
    await gate(one)(input(), { method: 'list_all', query }, run);
    expect(one.isDown).to.equal(true);
    store.mode = 'ok';
    // before one's next retry: its write must still reach the store
    data = 'new';
    await one.bump(['product']);
    expect(one.isDown).to.equal(false);
    const seen = (await gate(two)(input(), { method: 'list_all', query }, run)) as Reply;
    expect(seen.json).to.equal('{"data":"new"}');
    expect(seen.headers['X-Cache']).to.equal('miss');
  });

  it('a refused store retries every retryMs with one attempt, and stays down while it fails', async () => {
    const store = new FaultyStore();
    const cache = make(store);
    store.mode = 'fail';
    const run = async () => ({ data: 1 });
    await gate(cache)(input(), { method: 'list_all', query }, run);
    const calls = store.calls;
    await Promise.all(Array.from({ length: 20 }, () => gate(cache)(input(), { method: 'list_all', query }, run)));
    expect(store.calls).to.equal(calls);
    await sleep(200);
    await Promise.all(Array.from({ length: 20 }, () => gate(cache)(input(), { method: 'list_all', query }, run)));
    expect(store.calls).to.equal(calls + 1);
    expect(cache.isDown).to.equal(true);
  });
});
