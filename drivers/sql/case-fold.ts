import { simpleLower } from '../../lib/query/simple-lower';

/**
 * The collation `lower()` runs under for `ilike` (decision 73), chosen once per server
 * (server-facts.ts); null is the database's default collation.
 *
 * - `pg_c_utf8` (PostgreSQL 17+, builtin): exactly the rule, whatever the locale.
 * - `C.utf8` / `C.UTF-8` (libc): glibc's towlower is the simple mapping too, at the host's Unicode.
 * - `und-x-icu` (ICU): full lower case, so `İ` is `i` + U+0307 and a word-final `Σ` is `ς`.
 * - the default: whatever the database's ctype does (under `C`, only ASCII letters fold).
 */
export type CaseFold = 'pg_c_utf8' | 'C.utf8' | 'C.UTF-8' | 'und-x-icu' | null;

/** The fold of PostgreSQL 17 and later: what a compile assumes when no server is named (unit tests). */
export const BUILTIN_FOLD: CaseFold = 'pg_c_utf8';

/** The named collations asked for, best first; `pg_c_utf8` needs no probe. */
export const FOLD_COLLATIONS: readonly Exclude<CaseFold, null>[] = ['pg_c_utf8', 'C.utf8', 'C.UTF-8', 'und-x-icu'];

const BUILTIN_SINCE = 170000;

/**
 * What may fold case on this server, best first, from its `server_version_num` and the collations
 * of FOLD_COLLATIONS it has for the database's encoding; the default always closes the list.
 * One candidate: the choice is made (no probe needed).
 */
export function caseFoldCandidates(version: number, collations: readonly string[]): CaseFold[] {
  if (version >= BUILTIN_SINCE && collations.includes('pg_c_utf8')) return ['pg_c_utf8'];
  return [...FOLD_COLLATIONS.filter((c) => c !== 'pg_c_utf8' && collations.includes(c)), null];
}

/** Words whose lower case tells the folds apart: Unicode at all, the dotted I, a final sigma, the Kelvin sign, capital sharp s. */
export const PROBE_WORDS: readonly string[] = ['ÉЖ', 'İ', 'ΑΣ', '\u212a', 'ẞ'];

/**
 * The candidate whose `lower()` of PROBE_WORDS (`lowered[i][j]`: candidate i, word j) follows the
 * rule on most words; the earlier wins a tie, so a named collation before the default.
 */
export function bestCaseFold(candidates: readonly CaseFold[], lowered: readonly (readonly string[])[]): CaseFold {
  let best: CaseFold = null;
  let bestScore = -1;
  candidates.forEach((candidate, i) => {
    const score = PROBE_WORDS.filter((word, j) => lowered[i]?.[j] === simpleLower(word)).length;
    if (score > bestScore) [best, bestScore] = [candidate, score];
  });
  return best;
}

/** The rule's lower case of a text expression, in SQL, under the chosen collation. */
export function lowerSql(expr: string, fold: CaseFold): string {
  // "default": the database's collation (the one probed), not a column's own
  return `lower((${expr}) COLLATE "${fold ?? 'default'}")`;
}
