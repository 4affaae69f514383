import { expect } from 'chai';
import { MongoServerError, type Db, type Document } from 'mongodb';
import { useMongo } from './helpers';

/**
 * `$dateTrunc` (MongoDB 5.0) as the server answers it: the documented examples (binSize and unit,
 * weeks from Sunday by default), zones by name and by offset, DST changes both ways, a zone half
 * an hour off the hour, nulls, and the errors. Run against the emulator offline, a mongod elsewhere.
 */
describe('emulator conformance: $dateTrunc', () => {
  const mongo = useMongo();
  let db: Db;
  before(async () => {
    db = mongo.db('trunc');
    await db.collection('one').insertOne({ _id: 1 } as Document);
  });

  const trunc = async (spec: Document): Promise<unknown> => {
    const [doc] = await db.collection('one').aggregate([{ $project: { _id: 0, t: { $dateTrunc: spec } } }]).toArray();
    return doc.t;
  };
  const at = (date: string, unit: string, extra: Document = {}) => trunc({ date: new Date(date), unit, ...extra }).then((d) => (d instanceof Date ? d.toISOString() : d));

  it('the documented binSize and unit examples (UTC)', async () => {
    expect(await at('2021-03-20T11:30:05Z', 'hour')).to.equal('2021-03-20T11:00:00.000Z');
    expect(await at('2021-03-20T11:30:05Z', 'hour', { binSize: 2 })).to.equal('2021-03-20T10:00:00.000Z');
    expect(await at('2021-03-20T11:30:05Z', 'minute', { binSize: 15 })).to.equal('2021-03-20T11:30:00.000Z');
    expect(await at('2021-03-20T11:30:05Z', 'second')).to.equal('2021-03-20T11:30:05.000Z');
  });

  it('weeks start on Sunday unless startOfWeek says otherwise (any case, short names too)', async () => {
    // 2021-03-20 is a Saturday
    expect(await at('2021-03-20T11:30:05Z', 'week')).to.equal('2021-03-14T00:00:00.000Z');
    expect(await at('2021-03-20T11:30:05Z', 'week', { startOfWeek: 'Monday' })).to.equal('2021-03-15T00:00:00.000Z');
    expect(await at('2021-03-20T11:30:05Z', 'week', { startOfWeek: 'sat' })).to.equal('2021-03-20T00:00:00.000Z');
    // two-week bins count from the first Sunday on or after 2000-01-01
    expect(await at('2021-03-20T11:30:05Z', 'week', { binSize: 2 })).to.equal('2021-03-14T00:00:00.000Z');
    expect(await at('2021-03-13T11:30:05Z', 'week', { binSize: 2 })).to.equal('2021-02-28T00:00:00.000Z');
  });

  it('months, quarters and years from the local calendar of a zone', async () => {
    expect(await at('2020-05-18T14:10:30Z', 'month', { timezone: 'America/New_York' })).to.equal('2020-05-01T04:00:00.000Z');
    expect(await at('2021-01-01T03:00:00Z', 'year', { timezone: 'America/New_York' })).to.equal('2020-01-01T05:00:00.000Z');
    expect(await at('2020-12-31T23:30:00Z', 'year', { timezone: 'Europe/Berlin' })).to.equal('2020-12-31T23:00:00.000Z');
    expect(await at('2021-05-15T23:30:00Z', 'quarter', { timezone: 'Europe/Berlin' })).to.equal('2021-03-31T22:00:00.000Z');
    // 5-month bins from January 2000: May 2021 (month 256) is in the bin of April (255)
    expect(await at('2021-05-15T23:30:00Z', 'month', { timezone: '+05:30', binSize: 5 })).to.equal('2021-03-31T18:30:00.000Z');
  });

  it('hours follow elapsed time across DST: the repeated autumn hour is two bins', async () => {
    expect(await at('2021-11-07T05:30:00Z', 'hour', { timezone: 'America/New_York' })).to.equal('2021-11-07T05:00:00.000Z');
    expect(await at('2021-11-07T06:30:00Z', 'hour', { timezone: 'America/New_York' })).to.equal('2021-11-07T06:00:00.000Z');
    expect(await at('2021-03-28T01:30:00Z', 'hour', { timezone: 'Europe/Berlin' })).to.equal('2021-03-28T01:00:00.000Z');
    expect(await at('2021-01-01T03:00:00Z', 'hour', { timezone: 'Asia/Kolkata' })).to.equal('2021-01-01T02:30:00.000Z');
    expect(await at('2021-01-01T03:00:00Z', 'hour', { timezone: '-0330' })).to.equal('2021-01-01T02:30:00.000Z');
  });

  it('days across DST start at local midnight, whatever the offset that day ends with', async () => {
    expect(await at('2021-11-07T06:30:00Z', 'day', { timezone: 'America/New_York' })).to.equal('2021-11-07T04:00:00.000Z');
    expect(await at('2021-11-08T03:30:00Z', 'day', { timezone: 'America/New_York' })).to.equal('2021-11-07T04:00:00.000Z');
    expect(await at('2021-03-14T07:30:00Z', 'day', { timezone: 'America/New_York' })).to.equal('2021-03-14T05:00:00.000Z');
    expect(await at('2021-03-28T21:00:00Z', 'day', { timezone: 'Europe/Berlin' })).to.equal('2021-03-27T23:00:00.000Z');
    expect(await at('2021-01-03T23:30:00Z', 'week', { timezone: 'Europe/Berlin', startOfWeek: 'monday' })).to.equal('2021-01-03T23:00:00.000Z');
  });

  it('null or missing date, unit, binSize or timezone: null', async () => {
    expect(await trunc({ date: null, unit: 'day' })).to.equal(null);
    expect(await trunc({ date: '$missing', unit: 'day' })).to.equal(null);
    expect(await trunc({ date: new Date(), unit: null })).to.equal(null);
    expect(await trunc({ date: new Date(), unit: 'day', timezone: null })).to.equal(null);
    expect(await trunc({ date: new Date(), unit: 'day', binSize: null })).to.equal(null);
  });

  it('errors: an unknown zone (40485), unit, startOfWeek, argument, a date that is not one, binSize 0', async () => {
    const code = async (spec: Document): Promise<number | undefined> => {
      try {
        await trunc(spec);
        return undefined;
      } catch (err) {
        expect(err).to.be.instanceOf(MongoServerError);
        return (err as MongoServerError).code as number;
      }
    };
    expect(await code({ date: new Date(), unit: 'day', timezone: 'Mars/Olympus' })).to.equal(40485);
    expect(await code({ date: new Date(), unit: 'fortnight' })).to.be.a('number');
    expect(await code({ date: new Date(), unit: 'week', startOfWeek: 'someday' })).to.be.a('number');
    expect(await code({ date: new Date(), unit: 'day', bin: 2 })).to.be.a('number');
    expect(await code({ date: 'yesterday', unit: 'day' })).to.be.a('number');
    expect(await code({ date: new Date(), unit: 'day', binSize: 0 })).to.be.a('number');
  });
});
