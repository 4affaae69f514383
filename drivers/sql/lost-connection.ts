import type { DatabaseErrorInfo } from '../../lib/driver';

/**
 * A connection lost under a statement (retried once for reads): not a refused connect or a pool
 * acquire time-out, where another try would only wait as long again.
 */
export function lostConnection(error: unknown, translated: DatabaseErrorInfo | null): boolean {
  if (translated?.type !== 'connection_error') return false;
  const text = `${String((error as { name?: unknown }).name ?? '')} ${String((error as { message?: unknown }).message ?? '')} ${String((error as { code?: unknown }).code ?? '')}`;
  return !/Acquire|Refused|ECONNREFUSED|TimedOut|HostNot|AccessDenied|53300|57P03/.test(text);
}
