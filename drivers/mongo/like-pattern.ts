/**
 * A client LIKE pattern as an anchored regular expression: `%` -> `[\s\S]*`, `_` -> `[\s\S]`,
 * every other character literal (regex metacharacters escaped), so a pattern can never inject
 * regex syntax. Wildcards are written as `[\s\S]` rather than `.` with the `s` flag, because the
 * BSON serializer drops a JS RegExp's dotAll flag (only i/m/g travel), so on the server `.` would
 * stop at a newline where SQL's `_`/`%` do not. The end anchor is `(?![\s\S])` rather than `$`,
 * because MongoDB's PCRE `$` also matches before a final newline (`abc\n` would match `abc`).
 */
export function likeRegex(pattern: string, caseInsensitive: boolean): RegExp {
  let source = '';
  for (const ch of pattern) {
    if (ch === '%') source += '[\\s\\S]*';
    else if (ch === '_') source += '[\\s\\S]';
    else if (/[\\^$.*+?()[\]{}|/-]/.test(ch)) source += `\\${ch}`;
    else source += ch;
  }
  return new RegExp(`^${source}(?![\\s\\S])`, caseInsensitive ? 'i' : '');
}
