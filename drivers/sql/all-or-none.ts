import { quoteLiteral, type SqlStatement } from './sql-builder';

/** In the message of the error a guarded statement raises: it would have written fewer rows than asked. */
export const SHORTFALL = 'generic-resource-rest: fewer rows than ids';

/**
 * A data-modifying statement (`... RETURNING`) that writes all `expected` rows or none: when it
 * reached fewer, the statement itself fails (a cast of a text that names the shortfall), so
 * nothing it wrote remains, even with its COMMIT already on the wire (Transaction.endsWithNext).
 * Zero rows reached fail nothing and write nothing. The cast's text depends on the statement's own
 * rows, so the planner cannot fold it into an error at plan time.
 */
export function allOrNone(statement: SqlStatement, expected: number): SqlStatement {
  const n = `$${statement.bind.length + 1}`;
  const reached = `(SELECT count(*) FROM "grr_w")`;
  return {
    sql: `WITH "grr_w" AS (${statement.sql}) SELECT "grr_w".*, CASE WHEN ${reached} = ${n} THEN NULL ELSE (${quoteLiteral(`${SHORTFALL}: `)} || ${reached})::int END AS "grr_guard" FROM "grr_w"`,
    bind: [...statement.bind, expected],
    prepare: statement.prepare,
  };
}

/** The error of an `allOrNone` statement that reached fewer rows than asked. */
export function isShortfall(error: unknown): boolean {
  return (error as { code?: unknown }).code === '22P02' && String((error as { message?: unknown }).message).includes(SHORTFALL);
}
