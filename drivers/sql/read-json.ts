import type { Model, ModelStatic, Sequelize } from 'sequelize';
import type { HiddenFields, JsonRows } from '../../lib/driver/json-read';
import type { ListQuery, Scalar } from '../../lib/query/ast';
import { convertValue } from './convert-value';
import type { CaseFold } from './case-fold';
import type { Catalog } from '../../lib/resource/model-info';
import { compileJson, type CompiledJson, type JsonHeadCache, type NativeTypes } from './compile-json';
import { attributesOf } from './describe-model';
import type { ModelMap } from './model-map';
import { withLease, type Target, type TxTarget } from './run-statement';
import type { SqlStatement } from './sql-builder';

/** What a JSON read needs of the SQL driver. */
export interface JsonReadContext {
  catalog: Catalog;
  tables: ModelMap;
  models: Record<string, ModelStatic<Model>>;
  heads: JsonHeadCache;
  db: Sequelize;
  run(statement: SqlStatement, t: Target): Promise<Record<string, unknown>[]>;
  /** A connection lost under a statement: a read outside a transaction is tried once more. */
  lost(error: unknown): boolean;
}

/** The Sequelize attribute types of a model's fields (json-values.ts renders by them). */
export function nativeTypes(models: Record<string, ModelStatic<Model>>): NativeTypes {
  return (model, field) => {
    const native = models[model];
    const type = native ? attributesOf(native)[field]?.type : undefined;
    return { key: type?.key, item: type?.type?.key };
  };
}

/** A list/show as one statement building its JSON (compile-json.ts); null when it cannot be rendered so (the caller takes the usual path). */
export function planJson(c: Pick<JsonReadContext, 'catalog' | 'tables' | 'models' | 'heads'> & { caseFold: CaseFold }, query: ListQuery, hidden: HiddenFields | null): CompiledJson | null {
  // REST_JSON_READS=false turns the fast path off (comparisons, diagnosis): every read takes `list`
  if (process.env.REST_JSON_READS === 'false') return null;
  return compileJson(query, c.catalog, c.tables, nativeTypes(c.models), hidden, c.heads, c.caseFold);
}

/**
 * Runs a planned JSON read as `list` runs its page: on the transaction's connection or a leased
 * one, once more on a fresh connection when the first was lost.
 */
export async function runJson(c: JsonReadContext, compiled: CompiledJson, t: TxTarget | undefined): Promise<JsonRows> {
  const { statement, counted, cursor } = compiled;
  const once = async (target: Target): Promise<JsonRows> => {
    const row = (await c.run(statement, target))[0] ?? {};
    const result: JsonRows = { data: typeof row.data === 'string' ? row.data : '', rows: Number(row.rows ?? 0), loaded: Number(row.loaded ?? 0) };
    if (counted) result.total = Number(row.total ?? 0);
    if (cursor) {
      result.hasMore = result.rows > cursor.size;
      if (result.hasMore) result.rows = cursor.size;
      // the last visible row's order keys, typed as listOn types them (a few values: parsed here)
      const after = typeof row.after === 'string' ? (JSON.parse(row.after) as unknown[]) : null;
      result.nextAfter = result.hasMore && after ? cursor.keys.map((k, i) => convertValue(after[i], k.field.type, k.field.itemType) as Scalar) : null;
    }
    return result;
  };
  if (t) return once(t);
  try {
    return await withLease(c.db, once, true);
  } catch (error) {
    if (!c.lost(error)) throw error;
    return withLease(c.db, once, true);
  }
}
