import { expect } from 'chai';
import { RecheckSchedule, SETTLE_MS } from '../../../lib/changes/recheck-schedule';
import type { Subscriber } from '../../../lib/changes/subscriber';

/** A subscriber as the schedule sees it: its user, and what it was asked to do. */
function fake(userId: string | null): Subscriber & { calls: string[] } {
  const calls: string[] = [];
  return { rules: { userId }, stream: { isClosed: false }, calls, hold: () => calls.push('hold'), refresh: (hold: boolean) => calls.push(hold ? 'refresh held' : 'refresh') } as unknown as Subscriber & { calls: string[] };
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

  it('without a request settling, the held streams are re-checked after SETTLE_MS, and again if it settles later', async () => {
    const mine = fake('7');
    const schedule = new RecheckSchedule(60_000, () => [mine]);
    schedule.userWritten('7');
    await sleep(SETTLE_MS / 2);
    expect(mine.calls).to.deep.equal(['hold']);
    await sleep(SETTLE_MS);
    expect(mine.calls).to.deep.equal(['hold', 'refresh held']);
    // the request settles late (its after-hooks ran after the fallback's check): checked once more, then done
    schedule.release();
    schedule.release();
    expect(mine.calls).to.deep.equal(['hold', 'refresh held', 'refresh held']);
    schedule.stop();
  });

  it('every stream is re-checked once per interval, a tenth of them per turn, without holding them; a turn shares one memo', async () => {
    const memos: unknown[] = [];
    const subscribers = Array.from({ length: 20 }, (_, i) => {
      const s = fake(String(i));
      (s as unknown as { refresh: (hold: boolean, memo: unknown) => void }).refresh = (hold, memo) => {
        s.calls.push(hold ? 'refresh held' : 'refresh');
        memos.push(memo);
      };
      return s;
    });
    const schedule = new RecheckSchedule(400, () => subscribers);
    schedule.start();
    schedule.start();
    await new Promise((resolve) => setTimeout(resolve, 490));
    schedule.stop();
    // each within its first period, once (or twice for the first slots at the edge)
    for (const s of subscribers) expect(s.calls.length).to.be.within(1, 2);
    expect(subscribers.every((s) => s.calls.every((c) => c === 'refresh'))).to.equal(true);
    // two streams per slot: 20 refreshes in 10 turns, each turn's pair with the same memo
    expect(new Set(memos.slice(0, 20)).size).to.equal(10);
    const counts = subscribers.map((s) => s.calls.length);
    await sleep(100);
    expect(subscribers.map((s) => s.calls.length)).to.deep.equal(counts);
  });
});
