import type { Bucket, BucketUnit } from '../../lib/query/aggregate-ast';
import { quoteIdent, type ParamBuilder } from './sql-builder';

/** The unit as PostgreSQL spells it: a fixed word from this table, never the client's string. */
const UNIT: Record<BucketUnit, string> = { minute: 'minute', hour: 'hour', day: 'day', week: 'week', month: 'month', quarter: 'quarter', year: 'year' };
/** The step between two local starts of the calendar units. */
const STEP: Partial<Record<BucketUnit, string>> = { day: '1 day', week: '7 days', month: '1 month', quarter: '3 months', year: '1 year' };

/** A bucket's start, and the one-row CTE (`"b<n>" AS (...)`) it reads, CROSS JOINed, if any. */
export interface BucketSql {
  expr: string;
  cte: string | null;
}

/** The local start of `local`'s bucket (a timestamp without zone): Sunday weeks one day before the Monday week of the next day. */
function localStart(local: string, bucket: Bucket): string {
  if (bucket.unit === 'week' && bucket.weekStart === 'sunday') return `(date_trunc('week', ${local} + interval '1 day') - interval '1 day')`;
  return `date_trunc('${UNIT[bucket.unit]}', ${local})`;
}

/**
 * The start of a date's bucket in a zone (decision 84), as a timestamptz. The zone is a bound
 * value, checked before (lib/query/time-zone.ts); a zone the server does not know fails the
 * statement with 22023, which the driver answers with a 400.
 *
 * - Below a day: `date_trunc(unit, ts, zone)` (PostgreSQL 12), which keeps the instant's own
 *   offset (elapsed time: a repeated autumn hour is two buckets, as `$dateTrunc` answers).
 * - A day and longer, on a field of the root (`source` given): the local starts, taken back
 *   through the zone (`AT TIME ZONE`, the conversion `date_trunc` makes), in one array computed
 *   once in a CTE; each row's start is the last of them not after it (`width_bucket`, a binary
 *   search) instead of a zone conversion per row (bench:buckets: the conversion was most of the
 *   statement's cost). Weeks and longer: every start from 1970 to 2100; days: those between the
 *   matching records' earliest and latest value (`range`: the SELECT of `lo` and `hi`). A value
 *   outside the array is converted by itself.
 * - Otherwise the local start of the row's local time, taken back through the zone.
 */
export function bucketSql(column: string, bucket: Bucket, params: ParamBuilder, source: { alias: string; range: () => string } | null): BucketSql {
  const zone = `${params.param(bucket.tz)}::text`;
  const step = STEP[bucket.unit];
  if (!step) return { expr: `date_trunc('${UNIT[bucket.unit]}', ${column}, ${zone})`, cte: null };
  const perRow = `(${localStart(`(${column} AT TIME ZONE ${zone})`, bucket)} AT TIME ZONE ${zone})`;
  if (!source) return { expr: perRow, cte: null };
  const b = quoteIdent(source.alias);
  // "t": the local starts as instants, ending with one past the last bucket; "v": the same without
  // that end. A row's start is v[width_bucket(value, t)] (a binary search); before the first or
  // from the end on, the index falls outside "v" (null) and the value is converted by itself.
  // OFFSET 0 keeps the array one value (flattened, PostgreSQL would build it once per mention).
  const series = (from: string, to: string, tail: string): string =>
    `SELECT "t", "t"[1:cardinality("t") - 1] AS "v" FROM (SELECT ARRAY(SELECT "s" AT TIME ZONE ${zone} FROM generate_series(${from}, ${to}, interval '${step}') AS "s") AS "t"${tail} OFFSET 0) AS "w"`;
  const cte =
    bucket.unit === 'day'
      ? series(localStart(`("r"."lo" AT TIME ZONE ${zone})`, bucket), `("r"."hi" AT TIME ZONE ${zone}) + interval '${step}'`, ` FROM (${source.range()}) AS "r"`)
      : // weeks and longer: every local start from 1970 to 2100 (at most 6,800), no range to read first
        series(localStart(`timestamp '1970-01-05'`, bucket), `timestamp '2100-01-01'`, '');
  return { expr: `COALESCE(${b}."v"[width_bucket(${column}, ${b}."t")], ${perRow})`, cte: `${b} AS MATERIALIZED (${cte})` };
}
