import type { Scalar } from '../query/ast';
import type { ResourceService } from '../service/resource-service';
import type { RequestContext } from '../service/request-context';
import { lookupKeys } from '../service/writes/import-lookups';
import type { ImportColumn } from './import-columns';
import type { BuiltRow } from './import-rows';

/**
 * The to-one columns of a chunk resolved to foreign keys: one query per relation column for the
 * whole chunk (never one per row), under the caller's read rules of the related resource. A value
 * that names no record they can read is a row error (`not_found`); nothing is created.
 */
export async function resolveLookups(rows: BuiltRow[], columns: ImportColumn[], serviceOf: (model: string) => ResourceService | undefined, ctx: RequestContext): Promise<void> {
  for (const column of columns) {
    if (column.kind !== 'relation') continue;
    const wanted = rows.filter((r) => !r.error && r.lookups?.has(column.index));
    if (wanted.length === 0) continue;
    const related = serviceOf(column.target);
    if (!related) throw new Error(`No service for ${column.target}`);
    const viaType = related.entry.info.fields[column.via]?.type;
    const cast = (v: unknown): Scalar => ((viaType === 'integer' || viaType === 'number') && !Number.isNaN(Number(v)) ? Number(v) : (v as Scalar));
    const keys = await lookupKeys(related, column.via, wanted.map((r) => cast(r.lookups!.get(column.index))), ctx);
    for (const r of wanted) {
      const value = r.lookups!.get(column.index);
      const key = keys.get(String(cast(value)));
      if (key === undefined) r.error = { row: r.row, column: column.header, field: column.foreignKey.name, code: 'not_found', message: `No ${column.target} with ${column.via} "${String(value)}".` };
      else r.record[column.foreignKey.name] = key;
    }
  }
}
