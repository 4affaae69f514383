import { expect } from 'chai';
import { EventBuffer } from '../../../lib/changes/event-buffer';
import type { ChangeEvent } from '../../../lib/changes/types';

const event = (n: number): ChangeEvent => ({ id: `e${n}`, model: 'product', kind: 'created', key: n, record: { id: n } });

/** Decision 71: the replay buffer bounded in events and in bytes, with positions a stream keeps. */
describe('changes: EventBuffer', () => {
  it('gives each event the next position; at, newest and after find them', () => {
    const buffer = new EventBuffer(10, 1000);
    expect([buffer.first, buffer.next, buffer.newest()]).to.deep.equal([0, 0, null]);
    expect([0, 1, 2].map((n) => buffer.push(event(n), 10))).to.deep.equal([0, 1, 2]);
    expect(buffer.at(1)?.id).to.equal('e1');
    expect(buffer.at(3)).to.equal(null);
    expect(buffer.newest()?.id).to.equal('e2');
    expect(buffer.after('e0')).to.equal(1);
    expect(buffer.after('e2')).to.equal(3);
    expect(buffer.after('unknown')).to.equal(null);
  });

  it('drops the oldest past the count bound', () => {
    const buffer = new EventBuffer(3, 1_000_000);
    for (let n = 0; n < 5; n += 1) buffer.push(event(n), 10);
    expect([buffer.first, buffer.next, buffer.size]).to.deep.equal([2, 5, 30]);
    expect(buffer.at(1)).to.equal(null);
    expect(buffer.after('e1')).to.equal(null);
    expect(buffer.after('e2')).to.equal(3);
  });

  it('drops the oldest past the byte bound, but always keeps the newest however large', () => {
    const buffer = new EventBuffer(1000, 100);
    buffer.push(event(0), 40);
    buffer.push(event(1), 40);
    expect([buffer.first, buffer.size]).to.deep.equal([0, 80]);
    buffer.push(event(2), 40);
    expect([buffer.first, buffer.size]).to.deep.equal([1, 80]);
    buffer.push(event(3), 500);
    expect([buffer.first, buffer.next, buffer.size, buffer.newest()?.id]).to.deep.equal([3, 4, 500, 'e3']);
  });

  it('bytesFrom: the size of a backlog from a position (clamped to what is held)', () => {
    const buffer = new EventBuffer(3, 1000);
    for (let n = 0; n < 5; n += 1) buffer.push(event(n), n + 1);
    // held: e2 (3), e3 (4), e4 (5)
    expect(buffer.bytesFrom(2)).to.equal(12);
    expect(buffer.bytesFrom(4)).to.equal(5);
    expect(buffer.bytesFrom(5)).to.equal(0);
    expect(buffer.bytesFrom(0)).to.equal(12);
  });

  it('keeps its positions over many pushes (the array is compacted, positions never reused)', () => {
    const buffer = new EventBuffer(10, 1_000_000);
    for (let n = 0; n < 5000; n += 1) buffer.push(event(n), 1);
    expect([buffer.first, buffer.next, buffer.size]).to.deep.equal([4990, 5000, 10]);
    expect(buffer.at(4995)?.id).to.equal('e4995');
    expect(buffer.after('e4990')).to.equal(4991);
    expect(buffer.bytesFrom(4995)).to.equal(5);
  });
});
