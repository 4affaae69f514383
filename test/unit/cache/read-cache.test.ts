import { expect } from 'chai';
import type { Request } from 'express';
import { ReadCache } from '../../../lib/cache/read-cache';
import { cachedReads as gate } from '../../../lib/http/cached-reads';
import { cacheSettingsFromEnv } from '../../../lib/cache/settings';
import { MemoryStore } from '../../../lib/cache/memory-store';
import type { CacheStore } from '../../../lib/cache/store';
import { Reply, type RouteInput } from '../../../lib/http/routes';
import { createLoggers } from '../../../lib/log/logger';
import { createContext } from '../../../lib/service/request-context';
import type { ListQuery } from '../../../lib/query/ast';

const query: ListQuery = { model: 'product', filter: null, select: null, relations: [], order: [], page: null, limit: null };
const input = (): RouteInput =>
  ({ req: { method: 'GET', get: () => undefined } as unknown as Request, res: {} as never, ctx: createContext({ route: 'products.index' }), params: {} }) as RouteInput;
const make = (store?: CacheStore) =>
  new ReadCache(cacheSettingsFromEnv({ enabled: true }), createLoggers(), () => undefined, () => 'x', store);

describe('read cache: single flight, bounds, a failing store', () => {
  it('concurrent misses of one key run the read once', async () => {
    const cache = make();
    let runs = 0;
    const run = async () => {
      runs += 1;
      await new Promise((r) => setTimeout(r, 20));
      return { data: [1] };
    };
    const replies = await Promise.all(Array.from({ length: 10 }, () => gate(cache)(input(), { method: 'list_all', query }, run)));
    expect(runs).to.equal(1);
    for (const reply of replies) expect((reply as Reply).json).to.equal('{"data":[1]}');
  });

  it('the memory store is bounded in entries', async () => {
    const store = new MemoryStore({ maxEntries: 3, maxBytes: 1_000_000 });
    for (let i = 0; i < 10; i += 1) await store.set(`k${i}`, { body: 'x', etag: 'e' }, 60);
    const kept = (await Promise.all(Array.from({ length: 10 }, (_, i) => store.get(`k${i}`)))).filter(Boolean);
    expect(kept).to.have.length(3);
  });

  it('a store that throws never fails the read: it runs against the database', async () => {
    const broken: CacheStore = {
      get: () => Promise.reject(new Error('down')),
      set: () => Promise.reject(new Error('down')),
      versions: () => Promise.reject(new Error('down')),
      bump: () => Promise.reject(new Error('down')),
      close: async () => undefined,
    };
    const cache = make(broken);
    const reply = (await gate(cache)(input(), { method: 'list_all', query }, async () => ({ data: [] }))) as Reply;
    expect(reply.json).to.equal('{"data":[]}');
    await cache.bump(['product']);
  });
});
