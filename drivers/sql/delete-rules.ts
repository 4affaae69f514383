import { DriverFailure, isDriverFailure, type DatabaseErrorInfo, type Id } from '../../lib/driver';
import type { Catalog } from '../../lib/resource/model-info';
import { referencesTo, relationHolding } from '../../lib/resource/references';
import { columnOf, compileDelete, tableSql, wholeColumns } from './compile-writes';
import type { ModelMap, StorageInfo } from './model-map';
import { quoteIdent, type SqlStatement } from './sql-builder';

/** A restrict rule on a model: the table whose rows hold its records, through which column, named as the model declares it. */
export interface Holder {
  relation: string;
  table: StorageInfo;
  column: string;
  /** The referencing table is the model's own (a parent key): rows deleted together do not hold each other. */
  self: boolean;
}

/** The restrict rules of `model` on tables this driver serves (PostgreSQL enforces them; these only count). */
export function restrictHolders(catalog: Catalog, tables: ModelMap, model: string): Holder[] {
  return referencesTo(catalog, model)
    .filter((ref) => ref.onDelete === 'restrict' && tables[ref.model] !== undefined)
    .map((ref) => ({ relation: relationHolding(catalog, model, ref), table: tables[ref.model], column: columnOf(tables[ref.model], ref.foreignKey), self: ref.model === model }));
}

/**
 * The DELETE of `ids`, with decision 78's counts in the same statement: how many rows hold the
 * records through each restrict rule (trashed rows included), and the delete only when none do;
 * the rows answered are the deleted keys, or the rules that held (`held` = the holder's index).
 * The database's own foreign keys still decide: a row a concurrent insert adds after the counts'
 * snapshot fails the DELETE as before, with no count.
 */
export function compileGuardedDelete(info: StorageInfo, key: string, ids: unknown[], holders: Holder[], whole: string[] = []): SqlStatement {
  if (holders.length === 0) return compileDelete(info, key, ids, whole);
  const rest = whole.map((_, i) => `, "grr_c${i}"`).join('');
  const none = whole.map(() => ', NULL').join('');
  const keyCol = quoteIdent(columnOf(info, key));
  const counts = holders.map((h, i) => {
    const self = h.self ? ` AND NOT (${keyCol} = ANY($1))` : '';
    return `SELECT ${i} AS "held", count(*) AS "n" FROM ${tableSql(h.table)} WHERE ${quoteIdent(h.column)} = ANY($1)${self}`;
  });
  return {
    sql:
      `WITH "holders" AS (${counts.join(' UNION ALL ')}), ` +
      `"gone" AS (DELETE FROM ${tableSql(info)} WHERE ${keyCol} = ANY($1) AND NOT EXISTS (SELECT 1 FROM "holders" WHERE "n" > 0) RETURNING ${keyCol} AS "k"${wholeColumns(whole)}) ` +
      `SELECT "k" AS ${quoteIdent(key)}, NULL::int AS "held", NULL::bigint AS "n"${rest} FROM "gone" UNION ALL SELECT NULL, "held", "n"${none} FROM "holders" WHERE "n" > 0 ORDER BY "held" NULLS FIRST`,
    bind: [ids],
  };
}

/** The ids a guarded delete removed; a restrict rule that held is decision 78's 409 (the first rule declared). */
export function deletedOrHeld(rows: Record<string, unknown>[], key: string, holders: Holder[]): Id[] {
  const held = rows.filter((r) => r.held !== null && r.held !== undefined).sort((a, b) => Number(a.held) - Number(b.held));
  if (held.length > 0) {
    throw new DriverFailure({ type: 'foreign_key_violation', relation: holders[Number(held[0].held)].relation, count: Number(held[0].n) });
  }
  return rows.map((r) => Number(r[key]));
}

/**
 * Runs the guarded delete of `ids` (with `whole`, answering those columns of each removed row):
 * the ids removed and the rows as answered. A foreign key the database names is the referencing
 * one: decision 78's 409 names no field of this model.
 */
export async function runGuardedDelete(run: (statement: SqlStatement) => Promise<Record<string, unknown>[]>, info: StorageInfo, key: string, ids: Id[], holders: Holder[], translate: (error: unknown) => DatabaseErrorInfo | null, whole: string[] = []): Promise<{ ids: Id[]; raw: Record<string, unknown>[] }> {
  if (ids.length === 0) return { ids: [], raw: [] };
  try {
    const raw = await run(compileGuardedDelete(info, key, ids, holders, whole));
    return { ids: deletedOrHeld(raw, key, holders), raw };
  } catch (error) {
    if (isDriverFailure(error)) throw error;
    if (translate(error)?.type === 'foreign_key_violation') throw new DriverFailure({ type: 'foreign_key_violation' });
    throw error;
  }
}
