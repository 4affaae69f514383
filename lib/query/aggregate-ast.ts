/**
 * The aggregate query description (decisions 55-57): the filter of a list, then groups, functions
 * over the grouped records, an order over groups and a page of groups. Plain data, like ast.ts;
 * each driver compiles it next to its list compiler ($group / GROUP BY).
 */
import type { FieldInfo } from '../resource/model-info';
import type { Direction, Filter, OffsetPage } from './ast';

export const AGGREGATE_FUNCTIONS = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'] as const;

export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number];

/** The units a date field may be bucketed by (decision 84). */
export const BUCKET_UNITS = ['minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type BucketUnit = (typeof BUCKET_UNITS)[number];

/**
 * A date bucket (decision 84): the group value is the instant the local `unit` starts in `tz` (an
 * IANA zone the tz database spells, or UTC). Units of an hour or less follow elapsed time (the
 * instant's own offset), a day and longer the local calendar; a week starts on `weekStart`.
 */
export interface Bucket {
  unit: BucketUnit;
  tz: string;
  weekStart: 'monday' | 'sunday';
}

/**
 * A group field: a field of the root (`relations` empty) or at the end of a chain of to-one
 * relations (`category.name`). `scopes`: per relation, the records of its target the caller may
 * see (set by the query pipeline, as for sort keys); a related record outside it groups as null.
 */
export interface GroupKey {
  /** As the client named it: the key of the answer's `group` object. */
  name: string;
  relations: string[];
  field: string;
  scopes?: Array<Filter | null>;
  /** A date field bucketed in a time zone (decision 84): its value is the bucket's start. */
  bucket?: Bucket;
}

/** One function over one field of the root; `count` of every record has field null (`"*"`). */
export interface Measure {
  fn: AggregateFunction;
  field: string | null;
}

/** An order key over the answer: a group field or a measure, by its index in `groups` / `measures`. */
export interface AggregateOrderKey {
  kind: 'group' | 'measure';
  index: number;
  direction: Direction;
}

export interface AggregateQuery {
  /** MODEL of the root. */
  model: string;
  /** The list's filter, scopes applied (ownership, soft delete, hooks' scope). */
  filter: Filter | null;
  groups: GroupKey[];
  measures: Measure[];
  /** The client's keys, then every group field ascending (groups are unique: a stable order). */
  order: AggregateOrderKey[];
  page: OffsetPage;
  /** `having` (decision 84): a filter over the answer, null when absent. */
  having?: Having | null;
}

/**
 * `having` as the drivers compile it: a filter whose fields are the answer's columns, `g<i>` for
 * the i-th group value and `m<i>` for the i-th measure, typed in `fields` (counts, sums and
 * averages are numbers; minimums, maximums and group values have their field's type).
 */
export interface Having {
  filter: Filter;
  fields: Record<string, FieldInfo>;
}

/** One group as a driver answers it: group values and measure values in query order, output-ready. */
export interface AggregateRow {
  group: unknown[];
  values: unknown[];
}

export interface AggregateResult {
  rows: AggregateRow[];
  /** The number of groups (one without groups). */
  total: number;
}

