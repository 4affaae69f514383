import { expect } from 'chai';
import { isTimeZoneName } from '../../../lib/query/time-zone';

/** Zone names a bucket takes (decision 84): tz database names as it spells them, and UTC. */
describe('time zone names of buckets', () => {
  it('takes UTC, canonical zones, aliases the tz database keeps and its Etc zones', () => {
    for (const zone of ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Asia/Calcutta', 'US/Eastern', 'America/Argentina/Buenos_Aires', 'America/Port-au-Prince', 'Etc/GMT-4', 'Etc/GMT+12', 'EST5EDT', 'CET', 'GMT']) {
      expect(isTimeZoneName(zone), zone).to.equal(true);
    }
  });

  it('takes every zone Node lists', () => {
    expect(Intl.supportedValuesOf('timeZone').filter((zone) => !isTimeZoneName(zone))).to.deep.equal([]);
  });

  it('refuses offsets, other spellings, unknown and removed names', () => {
    for (const zone of ['', '+02:00', '-0530', 'UTC+1', 'europe/berlin', 'EUROPE/BERLIN', 'US/EASTERN', 'Mars/Olympus', 'Europe/Berlin ', 'Europe//Berlin', 'US/Pacific-New', 'Canada/East-Saskatchewan', 'A'.repeat(65)]) {
      expect(isTimeZoneName(zone), zone).to.equal(false);
    }
  });
});
