/**
 * A client LIKE pattern as an anchored regular expression: `%` -> `.*`, `_` -> `.`, every other
 * character literal (regex metacharacters escaped), so a pattern can never inject regex syntax.
 * The `s` flag lets wildcards span newlines, as in SQL.
 */
export function likeRegex(pattern: string, caseInsensitive: boolean): RegExp {
  let source = '';
  for (const ch of pattern) {
    if (ch === '%') source += '.*';
    else if (ch === '_') source += '.';
    else if (/[\\^$.*+?()[\]{}|/-]/.test(ch)) source += `\\${ch}`;
    else source += ch;
  }
  return new RegExp(`^${source}$`, caseInsensitive ? 'is' : 's');
}
