import { expect } from 'chai';
import { CONTRACT_DRIVERS, expectBadRequest, forEachDriver, type DriverName, type Params } from '../support/contract-app';

/**
 * Aggregates over time (decision 84): date buckets in a zone and `having`, on products whose
 * `created_at` is set to instants around a year's end and both DST changes in Berlin and New York
 * (and seen from Kolkata, half an hour off the hour). Both drivers must answer the same bytes:
 * every answer is kept per driver and compared at the end.
 */
const INSTANTS: Array<[string, number]> = [
  ['2020-12-31T22:30:00Z', 10], // Berlin 23:30 (2020), Kolkata 04:00 1 Jan (2021)
  ['2020-12-31T23:30:00Z', 20], // Berlin 00:30 1 Jan 2021, New York 18:30 31 Dec
  ['2021-01-01T04:30:00Z', 30], // New York 23:30 31 Dec 2020
  ['2021-01-01T05:30:00Z', 40], // New York 00:30 1 Jan 2021
  ['2021-01-03T12:00:00Z', 50], // a Sunday everywhere here
  ['2021-03-14T06:30:00Z', 60], // New York 01:30 EST, before its spring change
  ['2021-03-14T07:30:00Z', 70], // New York 03:30 EDT, after it
  ['2021-03-28T00:30:00Z', 80], // Berlin 01:30 CET, before its spring change
  ['2021-03-28T01:30:00Z', 90], // Berlin 03:30 CEST, after it
  ['2021-05-31T22:30:00Z', 100], // Berlin 00:30 1 Jun, New York 18:30 31 May
  ['2021-10-31T00:30:00Z', 110], // Berlin 02:30 CEST, the first of its repeated hours
  ['2021-10-31T01:30:00Z', 120], // Berlin 02:30 CET, the second
  ['2021-11-07T05:30:00Z', 130], // New York 01:30 EDT, the first of its repeated hours
  ['2021-11-07T06:30:00Z', 140], // New York 01:30 EST, the second
];

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'];
const BUCKETS: Array<Record<string, string>> = [
  { bucket: 'minute' },
  { bucket: 'hour' },
  { bucket: 'day' },
  { bucket: 'week' },
  { bucket: 'week', week_start: 'sunday' },
  { bucket: 'month' },
  { bucket: 'quarter' },
  { bucket: 'year' },
];

type Item = { group: { created_at: string | null }; count: number; sum?: { price: number } };

/** Answers per case, per driver: the same bytes on both. */
const answers = new Map<string, Partial<Record<DriverName, string>>>();

forEachDriver('aggregates over time', (ctx) => {
  let prefix = '';

  const aggregate = (params: Params) => ctx.get('/products/aggregate', { oper: { and: [`sku|like|${prefix}%`] }, ...params });
  const keep = (name: string, text: string): void => {
    answers.set(name, { ...answers.get(name), [ctx.driver]: text });
  };
  const buckets = async (bucket: Record<string, string>, tz: string, extra: Params = {}): Promise<Item[]> => {
    const res = await aggregate({ group_by: [{ field: 'created_at', ...bucket, tz }], aggregate: { count: '*', sum: ['price'] }, ...extra });
    expect(res.status, res.text).to.equal(200);
    keep(`${JSON.stringify(bucket)} ${tz} ${JSON.stringify(extra)}`, res.text);
    return res.body.data as Item[];
  };
  const starts = (items: Item[]): Array<[string | null, number]> => items.map((i) => [i.group.created_at, i.count]);

  before(async () => {
    prefix = ctx.unique('BKT');
    const records = [];
    for (const [i, [, price]] of INSTANTS.entries()) records.push(await ctx.product({ sku: `${prefix}-${i}`, price }));
    await ctx.rawSetDates('products', 'created_at', records.map((r, i) => [r, new Date(INSTANTS[i][0])]));
  });

  describe('buckets', () => {
    for (const tz of ZONES) {
      for (const bucket of BUCKETS) {
        it(`${bucket.bucket}${bucket.week_start ? ` (${bucket.week_start})` : ''} in ${tz}: every record in one bucket, buckets ascending`, async () => {
          const items = await buckets(bucket, tz);
          expect(items.reduce((n, i) => n + i.count, 0)).to.equal(INSTANTS.length);
          const values = items.map((i) => i.group.created_at as string);
          expect(values).to.deep.equal([...values].sort());
          for (const v of values) expect(v).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000000Z$/);
        });
      }
    }

    it('a year in Berlin and New York starts at its local midnight of 1 January', async () => {
      expect(starts(await buckets({ bucket: 'year' }, 'Europe/Berlin'))).to.deep.equal([
        ['2019-12-31T23:00:00.000000Z', 1],
        ['2020-12-31T23:00:00.000000Z', 13],
      ]);
      expect(starts(await buckets({ bucket: 'year' }, 'America/New_York'))).to.deep.equal([
        ['2020-01-01T05:00:00.000000Z', 3],
        ['2021-01-01T05:00:00.000000Z', 11],
      ]);
      expect(starts(await buckets({ bucket: 'year' }, 'UTC'))).to.deep.equal([
        ['2020-01-01T00:00:00.000000Z', 2],
        ['2021-01-01T00:00:00.000000Z', 12],
      ]);
    });

    it('hours follow elapsed time: the repeated autumn hour is two buckets, the skipped spring hour none', async () => {
      const berlin = starts(await buckets({ bucket: 'hour' }, 'Europe/Berlin'));
      expect(berlin).to.deep.include.members([
        ['2021-03-28T00:00:00.000000Z', 1],
        ['2021-03-28T01:00:00.000000Z', 1],
        ['2021-10-31T00:00:00.000000Z', 1],
        ['2021-10-31T01:00:00.000000Z', 1],
      ]);
      const newYork = starts(await buckets({ bucket: 'hour' }, 'America/New_York'));
      expect(newYork).to.deep.include.members([
        ['2021-11-07T05:00:00.000000Z', 1],
        ['2021-11-07T06:00:00.000000Z', 1],
      ]);
      // Kolkata is UTC+05:30: its hours start at half past in UTC
      const kolkata = starts(await buckets({ bucket: 'hour' }, 'Asia/Kolkata'));
      expect(kolkata[0]).to.deep.equal(['2020-12-31T22:30:00.000000Z', 1]);
      expect(kolkata.every(([v]) => v!.slice(14, 16) === '30')).to.equal(true);
    });

    it('days follow the local calendar across DST: the day of a change starts at its local midnight', async () => {
      const newYork = starts(await buckets({ bucket: 'day' }, 'America/New_York'));
      expect(newYork).to.deep.include.members([
        ['2021-03-14T05:00:00.000000Z', 2],
        ['2021-11-07T04:00:00.000000Z', 2],
      ]);
      const berlin = starts(await buckets({ bucket: 'day' }, 'Europe/Berlin'));
      expect(berlin).to.deep.include.members([
        ['2021-03-27T23:00:00.000000Z', 2],
        ['2021-10-30T22:00:00.000000Z', 2],
        ['2021-05-31T22:00:00.000000Z', 1],
      ]);
    });

    it('weeks start on Monday by default, on Sunday when asked; months and quarters on their local first day', async () => {
      const monday = starts(await buckets({ bucket: 'week' }, 'Europe/Berlin'));
      expect(monday.slice(0, 1)).to.deep.equal([['2020-12-27T23:00:00.000000Z', 5]]);
      const sunday = starts(await buckets({ bucket: 'week', week_start: 'sunday' }, 'Europe/Berlin'));
      expect(sunday.slice(0, 2)).to.deep.equal([
        ['2020-12-26T23:00:00.000000Z', 4],
        ['2021-01-02T23:00:00.000000Z', 1],
      ]);
      const months = starts(await buckets({ bucket: 'month' }, 'Europe/Berlin'));
      expect(months).to.deep.include.members([
        ['2021-05-31T22:00:00.000000Z', 1],
        ['2021-02-28T23:00:00.000000Z', 4],
        ['2021-09-30T22:00:00.000000Z', 2],
      ]);
      const quarters = starts(await buckets({ bucket: 'quarter' }, 'America/New_York'));
      expect(quarters).to.deep.equal([
        ['2020-10-01T04:00:00.000000Z', 3],
        ['2021-01-01T05:00:00.000000Z', 6],
        ['2021-04-01T04:00:00.000000Z', 1],
        ['2021-10-01T04:00:00.000000Z', 4],
      ]);
    });

    it('dates before 1970 and after 2100 (outside the SQL driver\'s table of starts) bucket alike', async () => {
      const far = ctx.unique('FAR');
      const instants = ['1969-06-15T12:00:00Z', '1969-12-31T23:30:00Z', '2100-01-01T00:30:00Z', '2100-02-10T12:00:00Z', '2150-07-01T00:00:00Z'];
      const records = [];
      for (const [i] of instants.entries()) records.push(await ctx.product({ sku: `${far}-${i}` }));
      await ctx.rawSetDates('products', 'created_at', records.map((r, i) => [r, new Date(instants[i])]));
      for (const bucket of ['day', 'week', 'month', 'quarter', 'year']) {
        for (const tz of ['Europe/Berlin', 'America/New_York']) {
          const res = await ctx.get('/products/aggregate', { oper: { and: [`sku|like|${far}%`] }, group_by: [{ field: 'created_at', bucket, tz }] });
          expect(res.status, res.text).to.equal(200);
          keep(`far ${bucket} ${tz}`, res.text);
          const items = res.body.data as Item[];
          expect(items.reduce((n, i) => n + i.count, 0)).to.equal(instants.length);
          if (bucket === 'year' && tz === 'Europe/Berlin') {
            // Berlin kept UTC+1 all of 1969 and 1970 (no DST then)
            expect(starts(items)).to.deep.equal([
              ['1968-12-31T23:00:00.000000Z', 1],
              ['1969-12-31T23:00:00.000000Z', 1],
              ['2099-12-31T23:00:00.000000Z', 2],
              ['2149-12-31T23:00:00.000000Z', 1],
            ]);
          }
        }
      }
    });

    it('tz defaults to UTC; a bucket sits beside a plain group field; orderby takes the bucket name', async () => {
      const res = await aggregate({ group_by: [{ field: 'created_at', bucket: 'month' }, 'status'], orderby: { created_at: 'desc' } });
      expect(res.status, res.text).to.equal(200);
      keep('month utc with status', res.text);
      const items = res.body.data as Array<{ group: Record<string, unknown>; count: number }>;
      expect(Object.keys(items[0].group)).to.deep.equal(['created_at', 'status']);
      expect(items[0].group.created_at).to.equal('2021-11-01T00:00:00.000000Z');
      expect(items[items.length - 1].group.created_at).to.equal('2020-12-01T00:00:00.000000Z');
    });
  });

  describe('having', () => {
    it('and/or over counts, sums and the group value; total counts the groups left', async () => {
      const all = await buckets({ bucket: 'month' }, 'Europe/Berlin');
      const res = await aggregate({
        group_by: [{ field: 'created_at', bucket: 'month', tz: 'Europe/Berlin' }],
        aggregate: { count: '*', sum: ['price'] },
        having: { and: ['count|>=|2', { or: ['sum.price|>=|200', 'created_at|<|2021-02-01T00:00:00Z'] }] },
      });
      expect(res.status, res.text).to.equal(200);
      keep('having and/or', res.text);
      const expected = all.filter((i) => i.count >= 2 && (i.sum!.price >= 200 || i.group.created_at! < '2021-02-01'));
      expect(expected.length).to.be.within(1, all.length - 1);
      expect(res.body.data).to.deep.equal(expected);
      expect(res.body.total).to.equal(expected.length);
    });

    it('pages of the groups left: total, last_page, from and to after having', async () => {
      const params = { group_by: [{ field: 'created_at', bucket: 'day', tz: 'America/New_York' }], having: 'count|=|1', pagination: { page: 2, pageSize: 2 } };
      const res = await aggregate(params);
      expect(res.status, res.text).to.equal(200);
      keep('having paged', res.text);
      const every = await aggregate({ ...params, pagination: { page: 1, pageSize: 100 } });
      const ones = (every.body.data as Item[]).filter((i) => i.count === 1);
      expect(every.body.total).to.equal(ones.length);
      // New York days holding one record: 1 Jan, 3 Jan, 31 May
      expect(ones.map((i) => i.group.created_at)).to.deep.equal(['2021-01-01T05:00:00.000000Z', '2021-01-03T05:00:00.000000Z', '2021-05-31T04:00:00.000000Z']);
      expect(res.body).to.deep.include({ current_page: 2, per_page: 2, total: 3, last_page: 2, from: 3, to: 3 });
      expect(res.body.data).to.deep.equal(ones.slice(2));
    });

    it('over a plain group field too: an unknown status matches nothing, patterns and min/max of dates compare', async () => {
      const base = { group_by: ['status', { field: 'created_at', bucket: 'year', tz: 'America/New_York' }], aggregate: { count: '*', min: ['created_at'], avg: ['price'] } };
      const none = await aggregate({ ...base, having: 'status|=|no-such-status' });
      expect(none.status, none.text).to.equal(200);
      expect(none.body).to.deep.include({ data: [], total: 0 });
      const all = await aggregate(base);
      type Row = { group: { status: string; created_at: string }; count: number; avg: { price: number }; min: { created_at: string } };
      const rows = all.body.data as Row[];
      const status = rows[0].group.status;
      const res = await aggregate({ ...base, having: { and: [`status|like|${status.slice(0, 3)}%`, 'min.created_at|>=|2021-01-01T00:00:00Z', 'avg.price|between|50,200', 'count|!=|2.5'] } });
      expect(res.status, res.text).to.equal(200);
      keep('having plain group', res.text);
      const expected = rows.filter((r) => r.group.status.startsWith(status.slice(0, 3)) && r.min.created_at >= '2021-01-01' && r.avg.price >= 50 && r.avg.price <= 200);
      expect(expected).to.have.length(1);
      expect(res.body.data).to.deep.equal(expected);
    });

    it('a name the request did not ask for is a 400 naming it; a group field and count are names', async () => {
      const base = { group_by: [{ field: 'created_at', bucket: 'year' }], aggregate: { sum: ['price'] } };
      expect(expectBadRequest(await aggregate({ ...base, having: 'avg.price|>|1' })).message).to.include('avg.price');
      expect(expectBadRequest(await aggregate({ ...base, having: 'count|>|1' })).message).to.include('"count"');
      expect(expectBadRequest(await aggregate({ ...base, having: 'price|>|1' })).message).to.include('"price"');
      expect(expectBadRequest(await aggregate({ ...base, having: 'sum.price|~|1' })).message).to.include('~');
      const ok = await aggregate({ ...base, having: { or: ['sum.price|>|1000', 'created_at|null'] } });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.data).to.deep.equal([{ group: { created_at: '2021-01-01T00:00:00.000000Z' }, sum: { price: 1020 } }]);
    });
  });

  describe('refusals', () => {
    const bad = async (group: unknown, word: string, extra: Params = {}) => {
      const res = await aggregate({ group_by: [group], ...extra });
      const body = expectBadRequest(res);
      expect(body.message, res.text).to.include(word);
    };
    it('an unknown zone, an offset, a zone spelled otherwise: a 400 naming it', async () => {
      await bad({ field: 'created_at', bucket: 'day', tz: 'Mars/Olympus' }, 'Mars/Olympus');
      await bad({ field: 'created_at', bucket: 'day', tz: '+02:00' }, '+02:00');
      await bad({ field: 'created_at', bucket: 'day', tz: 'europe/berlin' }, 'europe/berlin');
      await bad({ field: 'created_at', bucket: 'day', tz: 5 }, '5');
      // removed from the tz database, still resolved by Node's ICU: neither server knows it
      await bad({ field: 'created_at', bucket: 'day', tz: 'US/Pacific-New' }, 'US/Pacific-New');
      // aliases the tz database keeps, and its Etc zones, are zones
      for (const tz of ['Asia/Calcutta', 'US/Eastern', 'Etc/GMT-4', 'Etc/UTC']) {
        const res = await aggregate({ group_by: [{ field: 'created_at', bucket: 'day', tz }] });
        expect(res.status, `${tz}: ${res.text}`).to.equal(200);
      }
    });
    it('an unknown unit, field or key; a bucket of a field that is not a date; week_start off a week', async () => {
      await bad({ field: 'created_at', bucket: 'fortnight' }, 'fortnight');
      await bad({ field: 'nope', bucket: 'day' }, 'nope');
      await bad({ field: 'price', bucket: 'day' }, 'price');
      await bad({ field: 'created_at', bucket: 'day', binSize: 2 }, 'binSize');
      await bad({ field: 'created_at', bucket: 'month', week_start: 'sunday' }, 'week_start');
      await bad({ field: 'created_at', bucket: 'week', week_start: 'friday' }, 'friday');
      await bad({ bucket: 'day' }, 'field');
    });
    it('two buckets of one field, or a bucket beside the plain field: an ambiguous group key', async () => {
      const res = await aggregate({ group_by: [{ field: 'created_at', bucket: 'day' }, { field: 'created_at', bucket: 'month' }] });
      expect(expectBadRequest(res).message).to.include('created_at');
      const plain = await aggregate({ group_by: ['created_at', { field: 'created_at', bucket: 'month' }] });
      expect(expectBadRequest(plain).message).to.include('created_at');
    });
  });
});

describe('aggregates over time: the OpenAPI document', () => {
  forEachDriver('documents buckets and having', (ctx) => {
    it('group_by takes bucket objects; having is a parameter of the aggregate route', async () => {
      const res = await ctx.request().get('/api/v1/openapi.json');
      expect(res.status, res.text).to.equal(200);
      const doc = res.body as { paths: Record<string, Record<string, { parameters: Array<{ $ref?: string; name?: string }> }>>; components: { schemas: Record<string, { properties?: Record<string, { enum?: string[] }>; required?: string[] }>; parameters: Record<string, { name: string }> } };
      const bucket = doc.components.schemas.QueryBucket;
      expect(bucket.required).to.deep.equal(['field', 'bucket']);
      expect(bucket.properties!.bucket.enum).to.deep.equal(['minute', 'hour', 'day', 'week', 'month', 'quarter', 'year']);
      expect(bucket.properties!.week_start.enum).to.deep.equal(['monday', 'sunday']);
      const params = doc.paths['/products/aggregate'].get.parameters.map((p) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()!].name : p.name));
      expect(params).to.include('having');
    });
  });
});

describe('aggregates over time: both drivers answer the same bytes', () => {
  it('every answer kept above is byte-identical across drivers', function () {
    if (CONTRACT_DRIVERS.length < 2) this.skip();
    expect(answers.size).to.be.greaterThan(30);
    for (const [name, texts] of answers) {
      expect(texts.mongo, `${name} on mongo`).to.be.a('string');
      expect(texts.sql, name).to.equal(texts.mongo);
    }
  });
});
