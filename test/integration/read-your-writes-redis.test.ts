import { expect } from 'chai';
import { RedisStore } from '../../lib/cache/redis-store';
import { StoreWriteMarks } from '../../lib/cache/write-marks';
import { useReplicas } from '../../lib/driver/read-route';
import { ReadYourWrites } from '../../lib/service/read-your-writes';
import { startRedis, RedisUnavailableError, type RedisHandle } from '../../lib/testing/start-redis';

describe('read-your-writes windows shared through Redis (decision 86: across instances)', function () {
  this.timeout(30_000);
  let redis: RedisHandle;
  const stores: RedisStore[] = [];

  before(async function () {
    try {
      redis = await startRedis();
    } catch (error) {
      if (error instanceof RedisUnavailableError && process.env.CI !== 'true') {
        process.stderr.write(`[pending] ${error.message}\n`);
        this.skip();
      }
      throw error;
    }
    useReplicas();
  });

  after(async () => {
    for (const store of stores) await store.close();
    await redis?.stop();
  });

  const instance = (): ReadYourWrites => {
    const store = new RedisStore(redis.url);
    stores.push(store);
    return new ReadYourWrites(new StoreWriteMarks(store, `ryw${process.pid}:`, 250), 1_500);
  };

  it("a write taken by one instance keeps the caller's reads on the primary on another, for the window only", async () => {
    const [one, two] = [instance(), instance()];
    const ann = { id: `ann-${Date.now()}`, roles: [] };
    const bob = { id: `bob-${Date.now()}`, roles: [] };
    expect(await two.replicaAllowed(ann)).to.equal(true);
    await one.wrote(ann);
    expect([await two.replicaAllowed(ann), await two.replicaAllowed(bob)]).to.deep.equal([false, true]);
    await new Promise((resolve) => setTimeout(resolve, 2_100)); // EX is whole seconds, rounded up
    expect(await two.replicaAllowed(ann)).to.equal(true);
  });
});
