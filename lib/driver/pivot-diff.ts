import type { Id, PivotRow } from './types';

/** A related id a request wants linked, with the pivot values it asks for. */
export interface WantedLink {
  id: Id;
  values: Record<string, unknown>;
}

/** What an attach, sync or toggle changes in one parent's pivot rows. */
export interface PivotDiff {
  attach: WantedLink[];
  detach: Id[];
  /** Links kept whose pivot values differ from what is asked (sync only). */
  update: WantedLink[];
}

export type PivotScenario = 'attach' | 'bulk_attach' | 'sync' | 'toggle';

/**
 * The pivot changes of a scenario, from what is wanted and what is linked now (decision 32):
 * attach adds the missing links and leaves present ones as they are; sync also removes the links
 * not wanted and updates the kept ones whose values differ; toggle removes the wanted links that
 * are present and adds the others. Ids compare by their text (ObjectId or integer alike). Shared
 * by the relation routes' per-step path and drivers that write the changes in one batch (MongoDB).
 */
export function pivotDiff(scenario: PivotScenario, wanted: WantedLink[], current: PivotRow[]): PivotDiff {
  const linked = new Map(current.map((row) => [String(row.relatedId), row]));
  const attach = wanted.filter((w) => !linked.has(String(w.id)));
  if (scenario === 'sync') {
    const wantedIds = new Set(wanted.map((w) => String(w.id)));
    return {
      attach,
      detach: current.filter((row) => !wantedIds.has(String(row.relatedId))).map((row) => row.relatedId),
      update: wanted.filter((w) => linked.has(String(w.id)) && differs(w.values, linked.get(String(w.id))!.values)),
    };
  }
  if (scenario === 'toggle') {
    const wantedIds = new Set(wanted.map((w) => String(w.id)));
    // in the links' order (ordered by related id when read under the lock), as a sync's detach
    return { attach, detach: current.filter((row) => wantedIds.has(String(row.relatedId))).map((row) => row.relatedId), update: [] };
  }
  return { attach, detach: [], update: [] };
}

function differs(wanted: Record<string, unknown>, current: Record<string, unknown>): boolean {
  return Object.entries(wanted).some(([k, v]) => current[k] !== v);
}
