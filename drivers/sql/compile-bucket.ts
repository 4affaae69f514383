import type { Bucket, BucketUnit } from '../../lib/query/aggregate-ast';
import type { ParamBuilder } from './sql-builder';

/** The unit as PostgreSQL spells it: a fixed word from this table, never the client's string. */
const UNIT: Record<BucketUnit, string> = { minute: 'minute', hour: 'hour', day: 'day', week: 'week', month: 'month', quarter: 'quarter', year: 'year' };

/**
 * The start of a date's bucket in a zone (decision 84), as a timestamptz. `date_trunc(unit, ts,
 * zone)` (PostgreSQL 12) truncates the local time: below a day it keeps the instant's own offset
 * (elapsed time: a repeated autumn hour is two buckets, as `$dateTrunc` answers), from a day up
 * it takes the local calendar's start back through the zone. Its week starts on Monday; a week
 * starting on Sunday is the Monday week of the local day after, one local day earlier. The zone
 * is a bound value, checked before (lib/query/time-zone.ts); a zone the server does not know
 * fails the statement with 22023, which the driver answers with a 400.
 */
export function bucketSql(column: string, bucket: Bucket, params: ParamBuilder): string {
  const zone = params.param(bucket.tz);
  if (bucket.unit === 'week' && bucket.weekStart === 'sunday') {
    return `((date_trunc('week', (${column} AT TIME ZONE ${zone}::text) + interval '1 day') - interval '1 day') AT TIME ZONE ${zone}::text)`;
  }
  return `date_trunc('${UNIT[bucket.unit]}', ${column}, ${zone}::text)`;
}
