import type { ClaimOutcome, IdempotencyCapability, StoredAnswer } from '../../lib/driver';
import type { SqlStatement } from './sql-builder';

/**
 * Decision 80 on PostgreSQL: the keys in `grr_idempotency_keys` (created on first use), one row
 * per caller and key. A claim is one INSERT ... ON CONFLICT that takes over only an expired or a
 * stale unfinished row, so two instances never both run a key; what it could not claim is read.
 * The request's write transaction marks the row `committed`: a claim whose writes committed is
 * never taken over, even when its answer was never stored.
 */
const TABLE = '"grr_idempotency_keys"';

const CREATE = `CREATE TABLE IF NOT EXISTS ${TABLE} ("caller" text NOT NULL, "key" text NOT NULL, "fingerprint" text NOT NULL, "status" integer, "headers" jsonb, "body" text, ` +
  `"started_at" timestamptz NOT NULL DEFAULT now(), "expires_at" timestamptz NOT NULL, "committed" boolean NOT NULL DEFAULT false, PRIMARY KEY ("caller", "key"))`;
// a table made before the commit mark existed gains it
const MIGRATE = `ALTER TABLE ${TABLE} ADD COLUMN IF NOT EXISTS "committed" boolean NOT NULL DEFAULT false`;

const CLAIM = `INSERT INTO ${TABLE} AS "k" ("caller", "key", "fingerprint", "expires_at") VALUES ($1, $2, $3, now() + make_interval(secs => $4)) ` +
  `ON CONFLICT ("caller", "key") DO UPDATE SET "fingerprint" = EXCLUDED."fingerprint", "status" = NULL, "headers" = NULL, "body" = NULL, "started_at" = now(), "expires_at" = EXCLUDED."expires_at", "committed" = false ` +
  `WHERE "k"."expires_at" < now() OR ("k"."status" IS NULL AND NOT "k"."committed" AND "k"."started_at" < now() - make_interval(secs => $5)) RETURNING true AS "claimed"`;

const READ = `SELECT "fingerprint", "status", "headers", "body", "committed" AND "started_at" < now() - make_interval(secs => $3) AS "lost" FROM ${TABLE} WHERE "caller" = $1 AND "key" = $2 AND "expires_at" >= now()`;

type Run = (statement: SqlStatement) => Promise<Record<string, unknown>[]>;

/** `run`: a statement in a transaction of its own; `runIn`: one inside the request's transaction. */
export function sqlIdempotencyStore(run: Run, runIn: (statement: SqlStatement, tx: unknown) => Promise<Record<string, unknown>[]>): IdempotencyCapability {
  let ready: Promise<void> | null = null;
  // two instances creating the table at once: the loser's unique violation on the catalog is harmless
  const ensure = () => (ready ??= run({ sql: CREATE, bind: [] }).then(() => run({ sql: MIGRATE, bind: [] })).then(() => undefined, (error: unknown) => {
    if ((error as { code?: string; parent?: { code?: string } }).code === '23505' || (error as { parent?: { code?: string } }).parent?.code === '23505') return;
    ready = null;
    throw error;
  }));
  return {
    async claim(caller, key, fingerprint, ttlSeconds, staleSeconds): Promise<ClaimOutcome> {
      await ensure();
      for (let attempt = 0; ; attempt += 1) {
        if ((await run({ sql: CLAIM, bind: [caller, key, fingerprint, ttlSeconds, staleSeconds] })).length > 0) return { claimed: true };
        const [row] = await run({ sql: READ, bind: [caller, key, staleSeconds] });
        // released or expired meanwhile: claim again
        if (!row) {
          if (attempt < 3) continue;
          return { claimed: false, fingerprint: '', answer: null };
        }
        const answer: StoredAnswer | null = row.status === null ? null : { status: Number(row.status), headers: (row.headers ?? {}) as Record<string, string>, body: String(row.body) };
        return { claimed: false, fingerprint: String(row.fingerprint), answer, lost: answer === null && row.lost === true };
      }
    },
    async markCommitted(caller, key, tx) {
      await runIn({ sql: `UPDATE ${TABLE} SET "committed" = true WHERE "caller" = $1 AND "key" = $2`, bind: [caller, key] }, tx);
    },
    async complete(caller, key, answer, fingerprint) {
      await run({ sql: `UPDATE ${TABLE} SET "status" = $3, "headers" = $4::jsonb, "body" = $5, "fingerprint" = COALESCE($6, "fingerprint") WHERE "caller" = $1 AND "key" = $2`, bind: [caller, key, answer.status, JSON.stringify(answer.headers), answer.body, fingerprint ?? null] });
    },
    async release(caller, key) {
      // a request that failed after its writes committed (an after-hook threw) keeps its key, as lost: a retry must not write again
      await run({
        sql: `WITH "dropped" AS (DELETE FROM ${TABLE} WHERE "caller" = $1 AND "key" = $2 AND "status" IS NULL AND NOT "committed" RETURNING 1) ` +
          `UPDATE ${TABLE} SET "started_at" = '-infinity' WHERE "caller" = $1 AND "key" = $2 AND "status" IS NULL AND "committed"`,
        bind: [caller, key],
      });
    },
    async touch(caller, key) {
      await run({ sql: `UPDATE ${TABLE} SET "started_at" = now() WHERE "caller" = $1 AND "key" = $2 AND "status" IS NULL`, bind: [caller, key] });
    },
  };
}
