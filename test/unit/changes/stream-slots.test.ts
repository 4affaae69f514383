import { expect } from 'chai';
import { StreamSlots } from '../../../lib/changes/stream-slots';
import { ApiError } from '../../../lib/errors';

const refusal = (take: () => void): { status: number; type: string; message: string } => {
  try {
    take();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, type: error.type, message: error.message };
    throw error;
  }
  throw new Error('not refused');
};

/** The bound of open streams and each caller's share of it. */
describe('changes: StreamSlots', () => {
  it("a caller past its share gets a 429 naming the share; others still open streams; a release frees the caller's slot", () => {
    const slots = new StreamSlots(10, 2);
    slots.take('user:1');
    slots.take('user:1');
    const refused = refusal(() => slots.take('user:1'));
    expect(refused).to.deep.include({ status: 429, type: 'too_many_requests' });
    expect(refused.message).to.contain('at most 2').and.contain('10');
    slots.take('user:2');
    expect(slots.count).to.equal(3);
    slots.release('user:1');
    slots.take('user:1');
    expect(slots.count).to.equal(3);
  });

  it('past the instance bound a 503, whoever asks', () => {
    const slots = new StreamSlots(2, 2);
    slots.take('a');
    slots.take('b');
    expect(refusal(() => slots.take('c'))).to.deep.include({ status: 503, type: 'connection_error' });
    slots.release('b');
    slots.take('c');
    expect(slots.count).to.equal(2);
  });
});
