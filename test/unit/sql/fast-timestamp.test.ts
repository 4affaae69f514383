import { expect } from 'chai';
import { types } from 'pg';
import { fastTypes, parseTimestamptz } from '../../../drivers/sql/fast-timestamp';

/** pg's own parser for timestamptz (postgres-date): the fast one must give the same Date for every text it takes. */
const pgParse = types.getTypeParser(1184, 'text') as (text: string) => unknown;

const same = (text: string): void => {
  const fast = parseTimestamptz(text);
  expect(fast, text).to.be.instanceOf(Date);
  expect(fast!.getTime(), text).to.equal((pgParse(text) as Date).getTime());
};

describe('SQL: the fast timestamptz parser', () => {
  it('gives the Date pg gives for every fraction of 1 to 6 digits (PostgreSQL drops trailing zeros)', () => {
    for (let f = 0; f < 1000; f += 1) {
      const three = String(f).padStart(3, '0');
      same(`2026-11-29 02:08:23.${three}+00`);
      same(`2026-11-29 02:08:23.${three.replace(/0+$/, '') || '0'}+00`);
      same(`1999-12-31 23:59:59.${three}987+00`);
      same(`2024-02-29 00:00:00.${three}1-03`);
    }
    for (let f = 0; f < 1_000_000; f += 997) same(`2026-06-15 12:34:56.${String(f).padStart(6, '0')}+00`);
  });

  it('gives the Date pg gives for offsets (hours, hours and minutes, either sign) and no fraction', () => {
    for (const offset of ['+00', '+01', '-07', '+05:30', '-09:30', '+14', '-12', '+00:45']) {
      same(`2026-11-29 02:08:23${offset}`);
      same(`0100-01-01 00:00:00.5${offset}`);
      same(`9999-12-31 23:59:59.999999${offset}`);
    }
  });

  it('leaves what it does not take to pg: BC, years below 100, offsets with seconds, infinity, other shapes', () => {
    for (const text of ['infinity', '-infinity', '2026-11-29 02:08:23+00 BC', '0099-01-01 00:00:00+00', '1850-01-01 00:00:00-00:01:15', '12026-11-29 02:08:23+00', '2026-11-29T02:08:23Z', '2026-11-29 02:08:23.1234567+00', '2026-11-29 02:08:23.+00', '2026-11-29 02:08:23+0', '2026-11-29']) {
      expect(parseTimestamptz(text), text).to.equal(undefined);
    }
    const client = { getTypeParser: (oid: number, format?: string) => types.getTypeParser(oid, (format ?? 'text') as 'text') };
    const parse = fastTypes(client).getTypeParser(1184, 'text') as (text: string) => unknown;
    for (const text of ['infinity', '2026-11-29 02:08:23+00 BC', '0099-01-01 00:00:00+00', '1850-01-01 00:00:00-00:01:15']) {
      expect(String(parse(text)), text).to.equal(String(pgParse(text)));
    }
    expect((parse('2026-11-29 02:08:23.5+00') as Date).toISOString()).to.equal('2026-11-29T02:08:23.500Z');
  });

  it("keeps an application's own timestamptz parser, and every other type's", () => {
    const own = (text: string) => `own:${text}`;
    const client = { getTypeParser: (oid: number, format?: string) => (oid === 1184 ? own : types.getTypeParser(oid, (format ?? 'text') as 'text')) };
    expect(fastTypes(client).getTypeParser(1184, 'text')).to.equal(own);
    const plain = { getTypeParser: (oid: number, format?: string) => types.getTypeParser(oid, (format ?? 'text') as 'text') };
    expect(fastTypes(plain).getTypeParser(23, 'text')).to.equal(types.getTypeParser(23, 'text'));
    expect(fastTypes(plain).getTypeParser(1184, 'text')).to.not.equal(pgParse);
  });
});
