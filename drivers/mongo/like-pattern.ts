/**
 * A client LIKE pattern as an anchored regular expression: `%` -> `.*`, `_` -> `.`, every other
 * character literal (regex metacharacters escaped), so a pattern can never inject regex syntax.
 * The `s` flag lets wildcards span newlines, as in SQL. The end anchor is `(?![\s\S])` rather than
 * `$`, because MongoDB's PCRE `$` also matches before a final newline (`abc\n` would match `abc`).
 */
export function likeRegex(pattern: string, caseInsensitive: boolean): RegExp {
  let source = '';
  for (const ch of pattern) {
    if (ch === '%') source += '.*';
    else if (ch === '_') source += '.';
    else if (/[\\^$.*+?()[\]{}|/-]/.test(ch)) source += `\\${ch}`;
    else source += ch;
  }
  return new RegExp(`^${source}(?![\\s\\S])`, caseInsensitive ? 'is' : 's');
}
