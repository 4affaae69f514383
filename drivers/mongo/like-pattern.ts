import { caseVariants } from '../../lib/query/simple-lower';

/**
 * A client LIKE pattern as an anchored regular expression that runs in time linear in the input:
 * `%` and `_` are the only wildcards, every other character is literal (regex metacharacters
 * escaped), so a pattern can never inject regex syntax.
 *
 * Backtracking: `%a%a%a%b` written naively (`^.*a.*a.*a.*b$`) backtracks polynomially. A LIKE
 * pattern is a list of fixed-length segments separated by `%`; matching each middle segment at
 * its earliest occurrence is always right (what follows starts with `%`), so each one is found
 * with an atomic search: `(?=([\s\S]*?seg))\N` (a lookahead, atomic in JS and PCRE alike, whose
 * capture is then consumed), which the engine never re-enters. Consecutive `%` collapse to one.
 *
 * Wildcards are `[\s\S]` rather than `.` with the `s` flag, because the BSON serializer drops a
 * RegExp's dotAll flag; the end anchor is `(?![\s\S])` rather than `$`, because PCRE's `$` also
 * matches before a final newline.
 *
 * Case-insensitive (`ilike`, decision 73): no `i` flag. Each character with other cases becomes
 * the class of its case variants under the one case rule (lib/query/simple-lower.ts): `é` ->
 * `[éÉ]`, `s` -> `[sS]`; PCRE's caseless matching (which also pairs `ſ` with `s`, `ς` with `σ`)
 * and the emulator's JavaScript one (which does not pair `ß` with `ẞ`) never decide a match.
 * Supplementary-plane letters are an alternation, as the emulator's regular expressions have no
 * `u` flag (a class would hold their halves).
 */
export function likeRegex(pattern: string, caseInsensitive: boolean): RegExp {
  const segmentSource = caseInsensitive ? caselessSegmentSource : caseSegmentSource;
  const segments = pattern.split(/%+/).map(segmentSource);
  const end = '(?![\\s\\S])';
  let source = `^${segments[0]}`;
  if (segments.length === 1) return new RegExp(`${source}${end}`);
  let group = 0;
  for (const middle of segments.slice(1, -1)) {
    if (middle === '') continue;
    group += 1;
    source += `(?=([\\s\\S]*?${middle}))\\${group}`;
  }
  const last = segments[segments.length - 1];
  // the last segment must end the string: at most one scan back from the end
  source += last === '' ? '' : `[\\s\\S]*${last}${end}`;
  return new RegExp(source);
}

function literal(ch: string): string {
  if (ch === '_') return '[\\s\\S]';
  return /[\\^$.*+?()[\]{}|/-]/.test(ch) ? `\\${ch}` : ch;
}

function caseSegmentSource(segment: string): string {
  let source = '';
  for (const ch of segment) source += literal(ch);
  return source;
}

function caselessSegmentSource(segment: string): string {
  let source = '';
  for (const ch of segment) {
    const variants = ch === '_' ? [ch] : caseVariants(ch);
    if (variants.length === 1) source += literal(ch);
    else if (variants.every((v) => v.length === 1)) source += `[${variants.join('')}]`;
    else source += `(?:${variants.join('|')})`;
  }
  return source;
}
