import { expect } from 'chai';
import { RecheckSchedule, SETTLE_MS } from '../../../lib/changes/recheck-schedule';
import type { Subscriber } from '../../../lib/changes/subscriber';

/** A subscriber as the schedule sees it: its user, and what it was asked to do. */
function fake(userId: string | null): Subscriber & { calls: string[] } {
  const calls: string[] = [];
  return { rules: { userId }, calls, hold: () => calls.push('hold'), refresh: (hold: boolean) => calls.push(hold ? 'refresh held' : 'refresh') } as unknown as Subscriber & { calls: string[] };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('changes: RecheckSchedule (decision 70)', () => {
  it("a write to a user's record holds that user's streams only; the settled request re-checks them, once", () => {
    const [mine, alsoMine, other, anonymous] = [fake('7'), fake('7'), fake('8'), fake(null)];
    const schedule = new RecheckSchedule(60_000, () => [mine, alsoMine, other, anonymous]);
    schedule.userWritten('7');
    expect([mine.calls, alsoMine.calls, other.calls, anonymous.calls]).to.deep.equal([['hold'], ['hold'], [], []]);
    schedule.release();
    schedule.release();
    expect(mine.calls).to.deep.equal(['hold', 'refresh held']);
    expect(other.calls).to.deep.equal([]);
    schedule.stop();
  });

  it('without a request settling, the held streams are re-checked after SETTLE_MS', async () => {
    const mine = fake('7');
    const schedule = new RecheckSchedule(60_000, () => [mine]);
    schedule.userWritten('7');
    await sleep(SETTLE_MS / 2);
    expect(mine.calls).to.deep.equal(['hold']);
    await sleep(SETTLE_MS);
    expect(mine.calls).to.deep.equal(['hold', 'refresh held']);
    schedule.stop();
  });

  it('every interval, every stream is re-checked in one tick, without holding it', async () => {
    const subscribers = [fake('1'), fake('2')];
    const schedule = new RecheckSchedule(40, () => subscribers);
    schedule.start();
    schedule.start();
    await sleep(100);
    schedule.stop();
    const counts = subscribers.map((s) => s.calls.length);
    expect(counts[0]).to.be.within(2, 3);
    expect(counts[1]).to.equal(counts[0]);
    expect(subscribers[0].calls.every((c) => c === 'refresh')).to.equal(true);
    await sleep(60);
    expect(subscribers.map((s) => s.calls.length)).to.deep.equal(counts);
  });
});
