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
}

/** Per record of the chunk, in its order, what was done; and the ids of the `created` ones (null when unknown). */
export interface UpsertOutcome {
  matched: UpsertAction[];
  created: UpsertAction[];
  createdIds: Array<Id | null>;
  /** The written records as `read` reads them, when the driver answered them (null: not written, or not answered). */
  rows?: { matched: Array<Row | null>; created: Array<Row | null> };
}

/** A stored answer of a request made with an Idempotency-Key (decision 80). */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Claiming a key: done, or what is stored under it (no answer yet: the first request still runs). */
export type ClaimOutcome = { claimed: true } | { claimed: false; fingerprint: string; answer: StoredAnswer | null };

/**
 * Idempotency keys (decision 80) in a table or collection the driver creates on first use, shared
 * by every instance on the database. A key is claimed before its request runs; an expired claim,
 * or one never completed after `staleSeconds`, may be claimed again.
 */
export interface IdempotencyCapability {
  claim(caller: string, key: string, fingerprint: string, ttlSeconds: number, staleSeconds: number): Promise<ClaimOutcome>;
  /** `fingerprint`: replaces the claim's (a streamed body's digest is known only at the end). */
  complete(caller: string, key: string, answer: StoredAnswer, fingerprint?: string): Promise<void>;
  release(caller: string, key: string): Promise<void>;
  /** A claim whose request still runs (an import) kept from going stale; absent: long requests may be taken over after `staleSeconds`. */
  touch?(caller: string, key: string): Promise<void>;
}
