import { expect } from 'chai';
import { formatDate } from '../../../lib/service/reads/serialize';

/** formatDate: ISO 8601 UTC with six fractional digits, exactly toISOString's fields for every year. */
describe('formatDate', () => {
  const viaIso = (d: Date): string => `${d.toISOString().slice(0, -1)}000Z`;

  it('matches toISOString on dates across the range, with padded fields', () => {
    const samples = [
      new Date(0),
      new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 123)),
      new Date(Date.UTC(2026, 10, 23, 9, 5, 7, 4)),
      new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 999)),
      new Date(Date.UTC(1000, 0, 1)),
      new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)),
    ];
    for (let i = 0; i < 2000; i += 1) samples.push(new Date(Math.floor(Math.random() * 4e12) - 1e12));
    for (const d of samples) expect(formatDate(d)).to.equal(viaIso(d));
    expect(formatDate(new Date(Date.UTC(2026, 10, 23, 6, 10, 0, 123)))).to.equal('2026-11-23T06:10:00.123000Z');
  });

  it('years outside 1000-9999 keep toISOString\'s form; an invalid date throws as before', () => {
    const early = new Date(Date.UTC(999, 0, 1));
    early.setUTCFullYear(999);
    expect(formatDate(early)).to.equal(viaIso(early));
    const late = new Date(Date.UTC(10000, 0, 1));
    expect(formatDate(late)).to.equal(viaIso(late));
    expect(() => formatDate(new Date(Number.NaN))).to.throw(RangeError);
  });
});
