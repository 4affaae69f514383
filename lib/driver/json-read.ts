import type { ListQuery, Scalar } from '../query/ast';
import type { Transaction } from './types';

/**
 * Fields a caller may not read, per model (the read policy's view): left out of the JSON a
 * database builds. `key` identifies the view (equal keys, equal sets) so compiled statements can
 * be kept per view.
 */
export interface HiddenFields {
  readonly key: object;
  of(model: string): ReadonlySet<string> | null;
}

/**
 * A list page whose rows the database rendered as JSON text (issue 36): `data` is the rows'
 * objects joined by commas (no brackets), in the query's order, never parsed in Node.
 */
export interface JsonRows {
  data: string;
  /** Root rows in `data`. */
  rows: number;
  /** Related records the eager loads hold, counted as checkLoadedSize counts them. */
  loaded: number;
  /** Offset pages: the matching root records. */
  total?: number;
  /** Cursor pages, as ListResult has them: more rows follow, and the order-key values of the last row in `data`. */
  hasMore?: boolean;
  nextAfter?: Scalar[] | null;
}

/**
 * Optional driver capability: `list` answered as JSON text built by the database. Null when the
 * driver cannot render this query exactly as `list` + the HTTP layer would (the caller then takes
 * the usual path).
 */
export interface JsonReads {
  /**
   * The statement of a read, compiled without touching the database; null where the usual path
   * must answer. Separate from running it, so a read that falls back is not logged twice.
   */
  planJson(query: ListQuery, hidden: HiddenFields | null, options?: JsonReadOptions): JsonPlan | null;
  runJson(plan: JsonPlan, tx?: Transaction): Promise<JsonRows>;
  /** planJson and runJson in one call. */
  readJson(query: ListQuery, hidden: HiddenFields | null, options?: JsonReadOptions, tx?: Transaction): Promise<JsonRows | null>;
}

/** A compiled JSON read: opaque outside the driver that made it. */
export interface JsonPlan {
  readonly model: string;
}

export interface JsonReadOptions {
  /**
   * A read of one record (show): built by the database only when that saves statements. Measured
   * on the benchmark's show (bench/results-pgjson.md): one row leaves Node little to parse, while
   * PostgreSQL spends more rendering JSON than returning columns, so a read the usual path
   * answers in one statement stays there.
   */
  single?: boolean;
}

export function hasJsonReads(driver: object): driver is JsonReads {
  return typeof (driver as Partial<JsonReads>).planJson === 'function';
}
