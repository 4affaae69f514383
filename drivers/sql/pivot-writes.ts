import type { TxTarget } from './run-statement';
import type { GuardedLinkOutcome, PivotCapability, PivotLinkOutcome, PivotRow, Transaction } from '../../lib/driver';
import { relationOf } from '../../lib/resource/model-lookup';
import type { Catalog, PivotInfo } from '../../lib/resource/model-info';
import { compilePivotDelete, compilePivotInsert, compilePivotLock, compilePivotRead, compilePivotTryLock, compilePivotUpdate } from './compile-pivots';
import { compilePivotLinks } from './compile-pivot-sync';
import { compileLinkGuard } from './compile-link-guard';
import type { CompileContext } from './compile-context';
import { convertValue } from './convert-value';
import { lockOrRetry, type RunStatement } from './advisory-locks';

/** What the pivot writes need of the driver. */
export interface PivotContext {
  catalog(): Catalog;
  run: RunStatement;
  tx(tx: Transaction | undefined): TxTarget | undefined;
  compiler(): CompileContext;
  /** True when each statement of a transaction reads what committed before it (READ COMMITTED). */
  readsCommitted(): boolean;
}

/** Many-to-many pivot rows: one statement per call (compile-pivots.ts, compile-pivot-sync.ts). */
export function createPivots(ctx: PivotContext): PivotCapability {
  const pivotOf = (model: string, relation: string): PivotInfo => {
    const pivot = relationOf(ctx.catalog().model(model), relation).pivot;
    if (!pivot) throw new Error(`${model}.${relation} has no pivot`);
    return pivot;
  };
  return {
    read: async (model, relation, parentId, relatedIds, tx) => {
      const pivot = pivotOf(model, relation);
      const rows = await ctx.run(compilePivotRead(pivot, parentId, relatedIds), ctx.tx(tx));
      return rows.map((raw) => pivotRow(pivot, raw));
    },
    attach: async (model, relation, rows, tx) => {
      if (rows.length === 0) return [];
      const pivot = pivotOf(model, relation);
      const inserted = await ctx.run(compilePivotInsert(pivot, jsonRows(pivot, rows)), ctx.tx(tx));
      return inserted.map((r) => Number(r[pivot.relatedKey]));
    },
    lock: async (model, relation, parentId, tx) => {
      const pivot = pivotOf(model, relation);
      await lockOrRetry(ctx.run, compilePivotTryLock(pivot, parentId), compilePivotLock(pivot, parentId), ctx.tx(tx));
    },
    detach: async (model, relation, parentId, relatedIds, tx) => {
      if (relatedIds && relatedIds.length === 0) return [];
      const pivot = pivotOf(model, relation);
      const rows = await ctx.run(compilePivotDelete(pivot, parentId, relatedIds), ctx.tx(tx));
      return rows.map((r) => Number(r[pivot.relatedKey]));
    },
    link: async (model, relation, parentId, wanted, mode, tx) => {
      const pivot = pivotOf(model, relation);
      const rows = jsonRows(pivot, wanted.map((w) => ({ parentId, relatedId: w.id, values: w.values })));
      const [outcome] = await ctx.run(compilePivotLinks(pivot, parentId, rows, mode), ctx.tx(tx));
      return outcome as unknown as PivotLinkOutcome;
    },
    guardedLink: async (model, relation, parentId, wanted, mode, guard, tx) => {
      // under REPEATABLE READ the snapshot is the lock statement's, taken before it waits
      if (!ctx.readsCommitted()) return null;
      const pivot = pivotOf(model, relation);
      const rows = jsonRows(pivot, wanted.map((w) => ({ parentId, relatedId: w.id, values: w.values })));
      const compiled = compileLinkGuard(ctx.compiler(), model, relation, guard);
      const statement = compilePivotLinks(pivot, parentId, rows, mode, compiled);
      // the lock and the write go out together: the write's COMMIT (endsWithNext) belongs to it, not to the lock
      const last = tx.endsWithNext;
      tx.endsWithNext = false;
      const locked = ctx.run(compilePivotLock(pivot, parentId), ctx.tx(tx));
      locked.catch(() => undefined); // awaited below, after the write's own answer
      tx.endsWithNext = last;
      const linked = ctx.run({ ...statement, prepare: statement.prepare && compiled.preparable }, ctx.tx(tx));
      const [outcome] = await linked;
      await locked;
      return outcome as unknown as GuardedLinkOutcome;
    },
    update: async (model, relation, rows, tx) => {
      if (rows.length === 0) return;
      const pivot = pivotOf(model, relation);
      await ctx.run(compilePivotUpdate(pivot, jsonRows(pivot, rows)), ctx.tx(tx));
    },
  };
}

/**
 * Pivot rows as the statements' JSON rows (keys are columns). Built by assignment: a spread with
 * computed keys took 2.3 ms for 1,000 rows, ten times this loop.
 */
function jsonRows(pivot: PivotInfo, rows: PivotRow[]): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = new Array(rows.length);
  for (let i = 0; i < rows.length; i += 1) {
    const row: Record<string, unknown> = {};
    for (const column of Object.keys(rows[i].values)) row[column] = rows[i].values[column];
    row[pivot.parentKey] = rows[i].parentId;
    row[pivot.relatedKey] = rows[i].relatedId;
    out[i] = row;
  }
  return out;
}

function pivotRow(pivot: PivotInfo, raw: Record<string, unknown>): PivotRow {
  const values: Record<string, unknown> = {};
  for (const column of pivot.columns) values[column] = convertValue(raw[column], pivot.columnTypes[column]);
  return { parentId: Number(raw[pivot.parentKey]), relatedId: Number(raw[pivot.relatedKey]), values };
}
