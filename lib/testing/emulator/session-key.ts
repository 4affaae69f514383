import type { Doc } from './values';

/** Stable string for a session id `{id: UUID}`. */
export function sessionKeyOf(lsid: unknown): string | undefined {
  if (!lsid || typeof lsid !== 'object') return undefined;
  const id = (lsid as Doc).id;
  if (id && typeof id === 'object' && 'buffer' in id) {
    const buf = (id as { buffer: Uint8Array }).buffer;
    return Buffer.from(buf).toString('hex');
  }
  return undefined;
}
