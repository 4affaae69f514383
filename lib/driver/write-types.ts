/** The driver contract's types of decisions 79 and 80: upsert chunks and the Idempotency-Key store. */
/** A record id (as in types.ts, which re-exports this file: declared here so the two do not import each other). */
type Id = string | number;
type Row = Record<string, unknown>;

/** What an upsert did to one record (decision 79). */
export type UpsertAction = 'created' | 'updated' | 'unchanged';

/**
 * The records of one upsert chunk, split by what the service found before writing: `matched`
 * records (ids in `matchedIds`) give the fields to update, their match keys included; `created`
 * ones are whole new records (a concurrent request may have created one meanwhile: then the
 * driver updates it instead).
 */
export interface UpsertChunk {
  keys: string[];
  matched: Record<string, unknown>[];
  matchedIds: Id[];
  created: Record<string, unknown>[];
  /** Optional: the read of the written records (its select); a driver that can answers them from the write itself. */
  read?: import('../query/ast').ListQuery;
  /** Optional, with `read`: matched records found unchanged (not written); a driver that answers rows may answer theirs too. */
  unchangedIds?: Id[];
  /** Optional: the matched records as the caller read them before its transaction (the key, the version and the fields it compares), in `matched` order. */
  matchedRows?: Row[];
  /**
   * Optional (history, decision 83): the caller needs each matched record as the write found it.
   * A driver answers `before` from its write (PostgreSQL), or, given `matchedRows`, writes the
   * chunk only while every matched record still holds the values read, which are then its values
   * before (`pinned`); a record whose values moved fails the write as a write conflict that the
   * transaction retries (MongoDB: no read added).
   */
  history?: boolean;
}

/** Per record of the chunk, in its order, what was done; and the ids of the `created` ones (null when unknown). */
export interface UpsertOutcome {
  matched: UpsertAction[];
  created: UpsertAction[];
  createdIds: Array<Id | null>;
  /** The written records as `read` reads them, when the driver answered them (null: not written, or not answered); `unchanged`: those of `unchangedIds`. */
  rows?: { matched: Array<Row | null>; created: Array<Row | null>; unchanged?: Array<Row | null> };
  /** With `chunk.history`: each matched record as the write found it, every field (null: not written). */
  before?: Array<Row | null>;
  /** With `chunk.history` and `matchedRows`: every matched record written held the values read. */
  pinned?: boolean;
}

/** A stored answer of a request made with an Idempotency-Key (decision 80). */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Claiming a key: done, or what is stored under it (no answer yet: the first request still runs;
 * `lost`: its writes committed but its instance stopped before the answer was stored).
 */
export type ClaimOutcome = { claimed: true } | { claimed: false; fingerprint: string; answer: StoredAnswer | null; lost?: boolean };

/**
 * Idempotency keys (decision 80) in a table or collection the driver creates on first use, shared
 * by every instance on the database. A key is claimed before its request runs; an expired claim,
 * or one never completed after `staleSeconds`, may be claimed again.
 */
export interface IdempotencyCapability {
  claim(caller: string, key: string, fingerprint: string, ttlSeconds: number, staleSeconds: number): Promise<ClaimOutcome>;
  /**
   * Inside the request's write transaction (`tx`, a Transaction of the same driver): the key's
   * writes are committed with it, so a claim whose writes committed is never taken over and run
   * again, even when its instance stops before `complete`.
   */
  markCommitted(caller: string, key: string, tx: unknown): Promise<void>;
  /** `fingerprint`: replaces the claim's (a streamed body's digest is known only at the end). */
  complete(caller: string, key: string, answer: StoredAnswer, fingerprint?: string): Promise<void>;
  release(caller: string, key: string): Promise<void>;
  /** A claim whose request still runs (an import) kept from going stale; absent: long requests may be taken over after `staleSeconds`. */
  touch?(caller: string, key: string): Promise<void>;
}
