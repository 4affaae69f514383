import type { ListQuery } from '../query/ast';

/** As in types.ts, which re-exports this file: declared here so the two do not import each other. */
type Id = string | number;
/** An open transaction (types.ts's Transaction, structurally). */
type Transaction = { readonly driver: string; endsWithNext?: boolean };

/** What a history entry says happened to its record (decision 83). */
export type HistoryOp = 'created' | 'updated' | 'deleted' | 'restored' | 'force_deleted' | 'reverted';

/** Who wrote: the caller's id and roles (null id: anonymous or the application itself). */
export interface HistoryActor {
  id: string | number | null;
  roles: string[];
}

/** One entry to append; `version` null: the next of the record's own counter (max + 1, computed by the store). */
export interface HistoryEntryInput {
  recordId: Id;
  version: number | null;
  op: HistoryOp;
  at: Date;
  actor: HistoryActor;
  requestId: string | null;
  /** Field -> [before, after], JSON values. */
  changes: Record<string, [unknown, unknown]>;
}

export interface HistoryEntry extends Omit<HistoryEntryInput, 'version'> {
  version: number;
}

/**
 * Decision 83: a table (`grr_history_<table>`) or collection (`grr_history_<collection>`) per
 * resource, created at start, indexed on (record, version desc). `append` writes every entry of a
 * write in one statement or one bulk write, in the write's transaction, and prunes each record's
 * entries beyond `retain` in the same statement (SQL) or the same transaction (MongoDB).
 */
export interface HistoryCapability {
  ensure(model: string): Promise<void>;
  append(model: string, entries: HistoryEntryInput[], retain: number | null, tx: Transaction): Promise<void>;
  /**
   * A record's entries newest first, one page, and how many it has. `retain`: the model's
   * retention, for a store whose append replaces old entries in place rather than deleting them
   * (MongoDB): it answers only the versions a prune would have left.
   */
  read(model: string, recordId: Id, offset: number, limit: number, retain?: number | null): Promise<{ entries: HistoryEntry[]; total: number }>;
  /** One entry by version (null: none, or beyond `retain`, as `read`). */
  entry(model: string, recordId: Id, version: number, retain?: number | null): Promise<HistoryEntry | null>;
  /**
   * Optional: `Driver.update` (read null) or `Driver.updateRows` (read given, answered by `rows`)
   * whose own statement also appends the entries (`append`): the records as they were come from
   * the statement itself (PostgreSQL: RETURNING's `old`, or the row's pre-statement version joined
   * by key), no read before the write and no statement added; the caller appends nothing.
   */
  update?(model: string, items: Array<{ id: Id; changes: Record<string, unknown>; expected?: number }>, tx: Transaction, guard: { field: string; isNull: boolean } | undefined, read: ListQuery | null, allOrNone: boolean, append: HistoryUpdateAppend): Promise<{ rows: Array<Record<string, unknown>> }>;
  /**
   * Optional: `Driver.delete` whose own statement also answers each removed record as it was
   * (every field; PostgreSQL: `DELETE ... RETURNING`): no read before the delete.
   */
  delete?(model: string, ids: Id[], tx: Transaction): Promise<{ ids: Id[]; rows: Array<Record<string, unknown>> }>;
}

/**
 * What an update's own statement appends when the store can (PostgreSQL): one entry per written
 * row whose `fields` changed, with this op, actor and request id, pruned to `retain`.
 */
export interface HistoryUpdateAppend {
  op: HistoryOp;
  actor: HistoryActor;
  requestId: string | null;
  retain: number | null;
  fields: string[];
}
