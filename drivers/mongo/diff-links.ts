import type { Id, PivotLinkMode, PivotRow } from '../../lib/driver';

type Wanted = { id: Id; values: Record<string, unknown> };

/**
 * What an attach, sync or toggle changes, from the parent's current links (read under the pivot
 * lock, ordered by related id): the relation routes' per-step diff, for a driver that writes the
 * changes in one batch. Detached ids come in the links' order (the SQL statement's order too).
 */
export function diffLinks(current: PivotRow[], wanted: Wanted[], mode: PivotLinkMode): { attach: Wanted[]; detach: Id[]; update: Wanted[] } {
  const linked = new Map(current.map((row) => [String(row.relatedId), row]));
  const wantedIds = new Set(wanted.map((w) => String(w.id)));
  const attach = wanted.filter((w) => !linked.has(String(w.id)));
  if (mode === 'attach') return { attach, detach: [], update: [] };
  // sync: the links not wanted; toggle: the wanted ones already linked
  const detach = current.filter((row) => wantedIds.has(String(row.relatedId)) === (mode === 'toggle')).map((row) => row.relatedId);
  const update = mode === 'sync' ? wanted.filter((w) => linked.has(String(w.id)) && differs(w.values, linked.get(String(w.id))!.values)) : [];
  return { attach, detach, update };
}

function differs(wanted: Record<string, unknown>, current: Record<string, unknown>): boolean {
  return Object.entries(wanted).some(([k, v]) => current[k] !== v);
}
