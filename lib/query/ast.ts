/**
 * The typed, driver-agnostic query description. The parser builds it once from the request,
 * after checking every field, operator, relation and value against the model; drivers compile it.
 * Plain data: no driver types, no raw request strings.
 */

import type { Operator } from '../config';

export { OPERATORS, type Operator } from '../config';

/** A value already cast to the field's type. Ids are strings (ObjectId hex) or integers. */
export type Scalar = string | number | boolean | Date | null;

/**
 * - `=`/`!=`/`<`...: value is a Scalar (`=`/`!=` with null never appear: they become null/not null)
 * - in/not in: Scalar[] (non-empty); between/not between: [low, high]
 * - like/ilike and negations: the client's pattern string (% and _ wildcards)
 * - null/not null: value undefined
 * For array fields (e.g. roles), `=` means "contains", like MongoDB.
 */
export interface Condition {
  kind: 'condition';
  field: string;
  operator: Operator;
  value?: Scalar | Scalar[];
}

export interface AndFilter {
  kind: 'and';
  filters: Filter[];
}

export interface OrFilter {
  kind: 'or';
  filters: Filter[];
}

/** Existence: the record has at least one related record (one relation segment) matching `filter`. */
export interface RelatedFilter {
  kind: 'related';
  relation: string;
  /** null: any related record. Dot paths are nested RelatedFilters. */
  filter: Filter | null;
}

export type Filter = Condition | AndFilter | OrFilter | RelatedFilter;

/** An eager-loaded relation: columns (null = all, keys always included), children, `_nested` filter. */
export interface RelationLoad {
  name: string;
  columns: string[] | null;
  children: RelationLoad[];
  /** With `_nested`, the relation filter from `oper` that also narrows the loaded records. */
  filter: Filter | null;
}

export type Direction = 'asc' | 'desc';

/**
 * A sort key. `relations` is a (possibly empty) chain of to-one relations (`category.name` ->
 * relations ['category'], field 'name'). The parser always appends the primary key last.
 * Null ordering follows MongoDB on every driver: nulls first ascending, last descending.
 */
export interface OrderKey {
  relations: string[];
  field: string;
  direction: Direction;
  /**
   * Per relation of `relations`, the records of its target the caller may see (the scopes: ownership,
   * soft delete...); null: all. A related record outside it sorts as if absent (null), so the order
   * never tells a value the caller may not read. Set by the query pipeline, absent before it.
   */
  scopes?: Array<Filter | null>;
}

export interface OffsetPage {
  kind: 'offset';
  page: number;
  size: number;
}

/** Keyset page; `after` holds the order-key values (same length as `order`) of the last row seen. */
export interface CursorPage {
  kind: 'cursor';
  size: number;
  after: Scalar[] | null;
}

export type Page = OffsetPage | CursorPage;

/**
 * Hierarchy: the records reachable from those matching `start` through the self-referencing
 * `parentField` (down: descendants, up: ancestors; both for a full branch), the start records
 * included. Each driver walks it in the database (WITH RECURSIVE / $graphLookup), depth-limited by
 * `maxDepth` (levels beyond the start; null: unlimited) and cycle-safe; only records matching
 * `scope` are passed through. The query's `filter` still applies to every record reached.
 */
export interface TreeWalk {
  parentField: string;
  start: Filter | null;
  down: boolean;
  up: boolean;
  maxDepth: number | null;
  scope: Filter | null;
}

export interface ListQuery {
  /** MODEL name of the root. */
  model: string;
  filter: Filter | null;
  /** Root columns (keys needed for relations added); null = all readable fields. */
  select: string[] | null;
  relations: RelationLoad[];
  order: OrderKey[];
  /** null: every matching record (no pagination). */
  page: Page | null;
  /** Hard cap for unpaginated reads (`/first` uses 1). */
  limit: number | null;
  /**
   * REST_MAX_LOADED_RECORDS: the most related records the eager loads of the answer may hold. A
   * driver may stop loading a relation past it (the service then refuses the answer with a 400),
   * never return fewer records silently. Absent: no bound (internal reads).
   */
  loadLimit?: number;
  /** `soft_delete` on the root of a soft-deletable resource: include trashed records, or only them. */
  trashed?: 'with' | 'only';
  /** Hierarchy reads: the walk that chooses the root records (see TreeWalk). */
  tree?: TreeWalk;
}

/** What a read by ids loads: the columns (null: all) and the relations. */
export interface ReadOptions {
  select: string[] | null;
  relations: RelationLoad[];
}
