/**
 * What the log and the health check say about a database: scheme, hosts and database name, never
 * the user name, password or query options.
 */
export function describeLocation(uri: string, databaseName: string): string {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/]*@)?([^/?]*)/i.exec(uri);
  if (!match) return databaseName;
  const scheme = match[1].toLowerCase().startsWith('postgres') ? 'postgresql' : match[1].toLowerCase();
  return `${scheme}://${match[2]}/${databaseName}`;
}

/** The database named in a connection URI's path, if any (`mongodb://h:1/shop?x=y` -> `shop`). */
export function databaseFromUri(uri: string): string | undefined {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/?]*\/([^?#]*)/i.exec(uri);
  const name = match ? decodeURIComponent(match[1]) : '';
  return name === '' ? undefined : name;
}
