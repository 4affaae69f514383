/**
 * The one case rule of `ilike` and `not ilike` (decision 73): two characters are equal ignoring
 * case when their Unicode simple lower-case mappings are equal, code point by code point. `É`
 * matches `é`, `ẞ` matches `ß` (and `ß` is never `ss`), `Σ` matches `σ` but not the final `ς`
 * (its own lower case), `İ` matches `i` and `I`, the dotless `ı` only itself, the Kelvin sign
 * (U+212A) matches `k`.
 *
 * The same rule everywhere, so a list and a change feed with one filter agree: PostgreSQL's
 * `lower()` under the builtin `pg_c_utf8` collation is exactly this mapping, whatever the
 * database's locale (drivers/sql/compile-filter.ts; before PostgreSQL 17 the closest collation
 * the server has, drivers/sql/case-fold.ts); the change feed's matcher lowers both sides
 * with `simpleLower` (lib/changes/match-filter.ts); MongoDB gets a regular expression with no
 * case flag whose letters are classes of their `caseVariants` (drivers/mongo/like-pattern.ts),
 * so PCRE's and the emulator's own ideas of caseless matching never come into it.
 *
 * JavaScript's `toLowerCase` is the full mapping; for a single code point it differs from the
 * simple one only for `İ` (U+0130 -> `i` + U+0307), whose simple mapping is its first code point.
 */

/** Upper- and title-case code points -> their simple lower case; built once, on first use. */
let lowerOf: Map<string, string> | null = null;
/** A lower-case code point -> every code point whose simple lower case it is (itself first). */
let variantsOf: Map<string, string[]> | null = null;

/** The highest plane with cased letters is the first supplementary one (Adlam ends at U+1E943). */
const LAST_CASED_PLANE_END = 0x1ffff;

function build(): Map<string, string> {
  const lower = new Map<string, string>();
  const variants = new Map<string, string[]>();
  for (let cp = 0; cp <= LAST_CASED_PLANE_END; cp += 1) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    const full = ch.toLowerCase();
    if (full === ch) continue;
    const simple = String.fromCodePoint(full.codePointAt(0) as number);
    if (simple === ch) continue;
    lower.set(ch, simple);
    const list = variants.get(simple);
    if (list) list.push(ch);
    else variants.set(simple, [simple, ch]);
  }
  variantsOf = variants;
  lowerOf = lower;
  return lower;
}

const ASCII = /^[\x00-\x7f]*$/;

/** `text` with every code point replaced by its simple lower case (length in code points kept). */
export function simpleLower(text: string): string {
  // ASCII's simple and full mappings are the same: the common case needs no table
  if (ASCII.test(text)) return text.toLowerCase();
  const table = lowerOf ?? build();
  let out = '';
  for (const ch of text) out += table.get(ch) ?? ch;
  return out;
}

/**
 * Every character equal to `ch` ignoring case under the rule: `é` -> `é`, `É`; `k` -> `k`, `K`, `K`;
 * a character without case (a digit, `ς`, `ß`'s own lower case aside) -> itself alone.
 */
export function caseVariants(ch: string): readonly string[] {
  const lower = simpleLower(ch);
  if (!variantsOf) build();
  return (variantsOf as Map<string, string[]>).get(lower) ?? [lower];
}

/** True when some character of `text` (wildcards aside) has another case: `ilike` and `like` then differ. */
export function hasCaseVariants(text: string): boolean {
  for (const ch of text) if (caseVariants(ch).length > 1) return true;
  return false;
}

/**
 * The longest start of a LIKE pattern that matches only itself under the rule: no wildcard and no
 * character with another case. Every text an `ilike` pattern matches starts with it, so it can
 * bound an index scan as a case-sensitive prefix does.
 */
export function caselessPrefix(pattern: string): string {
  let prefix = '';
  for (const ch of pattern) {
    if (ch === '%' || ch === '_' || caseVariants(ch).length > 1) break;
    prefix += ch;
  }
  return prefix;
}
