/**
 * The npm package a failed `require`/`import` names (`Cannot find module 'mingo/updater'` ->
 * `mingo`, `@scope/name/x` -> `@scope/name`); null for any other error and for a missing file of
 * the package itself (a relative or absolute path), which is a bug to report as it is.
 */
export function missingPackage(error: unknown): string | null {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return null;
  const named = /Cannot find (?:module|package) '([^']+)'/.exec(typeof message === 'string' ? message : '');
  if (!named) return null;
  const specifier = named[1];
  if (specifier.startsWith('.') || specifier.startsWith('/') || /^[A-Za-z]:[\\/]/.test(specifier)) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}
