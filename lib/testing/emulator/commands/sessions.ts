import { Binary } from 'bson';
import type { EmulatorState } from './context';
import type { Doc } from '../values';

/** Sessions the server has seen (lsid -> last use), for $listLocalSessions; per emulator instance. */
const seen = new WeakMap<EmulatorState, Map<string, { lsid: Doc; lastUse: Date }>>();

export function touchSession(state: EmulatorState, sessionKey: string | undefined, lsid: unknown): void {
  if (!sessionKey || !lsid || typeof lsid !== 'object') return;
  let m = seen.get(state);
  if (!m) {
    m = new Map();
    seen.set(state, m);
  }
  m.set(sessionKey, { lsid: lsid as Doc, lastUse: new Date() });
}

export function endSession(state: EmulatorState, sessionKey: string): void {
  seen.get(state)?.delete(sessionKey);
}

/** `$listLocalSessions` documents: `{_id: {id, uid}, lastUse}` (no authentication: an all-zero uid). */
export function localSessions(state: EmulatorState): Doc[] {
  const uid = new Binary(Buffer.alloc(32), 0);
  return Array.from(seen.get(state)?.values() ?? []).map((s) => ({ _id: { id: s.lsid.id, uid }, lastUse: s.lastUse }));
}
