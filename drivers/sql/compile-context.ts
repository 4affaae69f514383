import { CatalogLookup } from '../../lib/resource/model-lookup';
import type { Catalog, FieldInfo, ModelInfo, RelationInfo } from '../../lib/resource/model-info';
import { quoteIdent } from './sql-builder';
import type { StorageInfo, ModelMap } from './model-map';
import type { CaseFold } from './case-fold';

/** Model facts the compiler needs, resolved to quoted SQL identifiers, and the server's case fold. */
export class CompileContext extends CatalogLookup {
  constructor(
    catalog: Catalog,
    readonly tables: ModelMap,
    /** The collation of `ilike`'s `lower()` on the server the SQL runs on (server-facts.ts). */
    readonly caseFold: CaseFold,
  ) {
    super(catalog);
  }

  tableInfo(model: string): StorageInfo {
    const info = this.tables[model];
    if (!info) throw new Error(`No table known for model ${model}`);
    return info;
  }

  /** `"schema"."table"` of a model. */
  table(model: string): string {
    const info = this.tableInfo(model);
    return info.schema ? `${quoteIdent(info.schema)}.${quoteIdent(info.table)}` : quoteIdent(info.table);
  }

  columnName(model: string, field: string): string {
    return this.tables[model]?.columns[field] ?? field;
  }

  /** `"alias"."column"` of a model field. */
  column(model: string, alias: string, field: string): string {
    return `${quoteIdent(alias)}.${quoteIdent(this.columnName(model, field))}`;
  }

  /** The column as compared in filters and sort keys (enum/uuid columns as text). */
  value(model: string, alias: string, field: string): string {
    const col = this.column(model, alias, field);
    const cast = this.tables[model]?.textCasts?.[field];
    return cast ? `${col}::${cast}` : col;
  }
}
