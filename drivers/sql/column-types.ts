import { tableSql } from './compile-writes';
import type { StorageInfo } from './model-map';
import type { SqlStatement } from './sql-builder';

type Run = (statement: SqlStatement) => Promise<Record<string, unknown>[]>;

/**
 * Each registered table's column types as the catalog names them (`format_type`: `integer`,
 * `character varying(255)`, a schema-qualified enum), read once at start (SqlDriver.ready()) into
 * StorageInfo.columnTypes. A batch update then reads its rows with a typed column list
 * (`json_to_recordset(...) AS "u"("id" integer, ...)`) instead of populating the table's whole
 * row type from jsonb: 0.09 ms of PostgreSQL's time for 100 rows. A table that does not exist yet
 * gets no types, and its writes keep the untyped form.
 */
export async function learnColumnTypes(run: Run, tables: StorageInfo[]): Promise<void> {
  if (tables.length === 0) return;
  const rows = await run({
    sql:
      `SELECT "x"."i", "a"."attname" AS "column", pg_catalog.format_type("a"."atttypid", "a"."atttypmod") AS "type" ` +
      `FROM unnest($1::text[]) WITH ORDINALITY AS "x"("name", "i") ` +
      `JOIN pg_catalog.pg_attribute AS "a" ON "a"."attrelid" = to_regclass("x"."name") WHERE "a"."attnum" > 0 AND NOT "a"."attisdropped"`,
    bind: [tables.map(tableSql)],
  });
  const types = tables.map((): Record<string, string> => ({}));
  for (const row of rows) types[Number(row.i) - 1][String(row.column)] = String(row.type);
  tables.forEach((info, i) => {
    if (Object.keys(types[i]).length > 0) info.columnTypes = types[i];
  });
}
