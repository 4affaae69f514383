import { expect } from 'chai';
import { currentReadRoute, readForCache, routeReads, useReplicas } from '../../../lib/driver/read-route';
import { MemoryWriteMarks, ReadYourWrites } from '../../../lib/service/read-your-writes';

const ann = { id: 7, roles: [] };
const bob = { id: 8, roles: [] };

describe('read routes and read-your-writes (decision 86)', () => {
  it("a caller's reads leave the replicas for the window after their write; others' do not; anonymous callers have no window", async () => {
    const ryw = new ReadYourWrites(new MemoryWriteMarks(), 200);
    useReplicas();
    await ryw.wrote(ann);
    expect([await ryw.replicaAllowed(ann), await ryw.replicaAllowed(bob), await ryw.replicaAllowed(null)]).to.deep.equal([false, true, true]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await ryw.replicaAllowed(ann)).to.equal(true);
  });

  it('only read routes run under a route; writes, change-feed streams and work outside requests find none (the primary)', async () => {
    useReplicas();
    const ryw = new ReadYourWrites(new MemoryWriteMarks(), 1000);
    const ctx = { user: ann } as never;
    expect(await ryw.around({ access: 'read' }, ctx, async () => currentReadRoute() !== undefined)).to.equal(true);
    expect(await ryw.around({ access: 'write' }, ctx, async () => currentReadRoute() !== undefined)).to.equal(false);
    // a change-feed stream renders from the primary, timers it schedules included
    expect(await ryw.around({ access: 'read', action: 'changes' }, ctx, async () => currentReadRoute() !== undefined)).to.equal(false);
    expect(currentReadRoute()).to.equal(undefined);
  });

  it("a cache fill is storable unless a replica's freshness check says it lagged", async () => {
    const out = await routeReads(
      async () => true,
      async () => {
        const fresh = await readForCache(async () => {
          currentReadRoute()?.freshness.push(async () => true);
          return 'a';
        });
        const stale = await readForCache(async () => {
          const route = currentReadRoute();
          expect(route?.filling).to.equal(true);
          route?.freshness.push(async () => false);
          return 'b';
        });
        return [fresh, stale, currentReadRoute()?.filling];
      },
    );
    expect(out).to.deep.equal([{ value: 'a', storable: true }, { value: 'b', storable: false }, false]);
  });
});
