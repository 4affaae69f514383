import { bestCaseFold, caseFoldCandidates, FOLD_COLLATIONS, PROBE_WORDS, type CaseFold } from './case-fold';
import { quoteIdent, type SqlStatement } from './sql-builder';

/** What the SQL driver compiles by, asked of the server once (SqlDriver.ready()). */
export interface SqlServerFacts {
  /** `server_version_num`: 150004, 180001. */
  version: number;
  /** The collation `ilike`'s `lower()` runs under (case-fold.ts). */
  caseFold: CaseFold;
}

type Run = (statement: SqlStatement) => Promise<Record<string, unknown>[]>;

/** The version and the case-folding collations usable in this database's encoding (ICU's: any). */
const FACTS: SqlStatement = {
  sql:
    `SELECT current_setting('server_version_num')::integer AS "version", ARRAY(SELECT "collname"::text FROM pg_catalog.pg_collation ` +
    `WHERE "collnamespace" = 'pg_catalog'::regnamespace AND "collname" = ANY($1::text[]) ` +
    `AND "collencoding" IN (-1, pg_catalog.pg_char_to_encoding(pg_catalog.getdatabaseencoding()))) AS "collations"`,
  bind: [FOLD_COLLATIONS],
};

/**
 * The server's facts: one statement, and before PostgreSQL 17 a second that lowers PROBE_WORDS
 * under each candidate collation, since what a libc or ICU collation does is the host's (a
 * `C.utf8` may fold only ASCII somewhere); both at start, never per request.
 */
export async function learnServerFacts(run: Run): Promise<SqlServerFacts> {
  const [row] = await run(FACTS);
  const version = Number(row?.version ?? 0);
  const candidates = caseFoldCandidates(version, (row?.collations ?? []) as string[]);
  if (candidates.length === 1) return { version, caseFold: candidates[0] };
  // collation names from FOLD_COLLATIONS only; the words are bound
  const columns = candidates.map((c, i) => `array_agg(lower("w" COLLATE ${quoteIdent(c ?? 'default')}) ORDER BY "i") AS "f${i}"`);
  const [probe] = await run({ sql: `SELECT ${columns.join(', ')} FROM unnest($1::text[]) WITH ORDINALITY AS "p"("w", "i")`, bind: [PROBE_WORDS] });
  return { version, caseFold: bestCaseFold(candidates, candidates.map((_, i) => (probe?.[`f${i}`] ?? []) as string[])) };
}

/** Learns the facts once; a failure (the server not reachable yet) is not kept: the next call asks again. */
export class ServerFacts {
  private pending: Promise<SqlServerFacts> | null = null;
  /** The facts once learned; null before (a compile then uses the fold every server has). */
  known: SqlServerFacts | null = null;

  constructor(private readonly run: Run) {}

  learn(): Promise<SqlServerFacts> {
    this.pending ??= learnServerFacts(this.run).then(
      (facts) => (this.known = facts),
      (error: unknown) => {
        this.pending = null;
        throw error;
      },
    );
    return this.pending;
  }
}
