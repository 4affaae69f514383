import type { DatabaseErrorInfo } from './driver';
import type { Registry } from './service/declarations/registry';

/** The first driver's reading of an error as the database being unavailable or too slow; else null. */
export function unavailable(registry: Registry, error: unknown): DatabaseErrorInfo | null {
  for (const driver of registry.drivers()) {
    const info = driver.translateError(error);
    if (info && (info.type === 'connection_error' || info.type === 'timeout')) return info;
  }
  return null;
}
