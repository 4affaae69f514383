/**
 * A column as PostgreSQL must render it in JSON for the answer to mean what the usual path's
 * answer means (pg's parsers + convertValue + the HTTP layer's formatDate), by the Sequelize
 * attribute type: null when no such rendering is known (the read then takes the usual path).
 */
export interface NativeType {
  key?: string;
  /** ARRAY: the element type's key. */
  item?: string;
}

/** Types whose to_json text already is the usual answer's value (strings, numbers, booleans, JSON). */
const AS_IS = new Set([
  'STRING', 'TEXT', 'CITEXT', 'CHAR', 'UUID', 'ENUM',
  'INTEGER', 'BIGINT', 'SMALLINT', 'MEDIUMINT', 'TINYINT',
  'BOOLEAN', 'JSON', 'JSONB',
]);

const FLOATS = new Set(['FLOAT', 'DOUBLE', 'DOUBLE PRECISION', 'REAL']);

/** NaN and infinities are null in JSON.stringify, strings in PostgreSQL's JSON (NaN sorts above Infinity). */
const finite = (expr: string): string => `CASE WHEN ${expr} < 'Infinity' AND ${expr} > '-Infinity' THEN ${expr} END`;

/** formatDate's form: UTC, milliseconds (truncated, as a JS Date holds them) and three zeros. */
const TIMESTAMP = `'YYYY-MM-DD"T"HH24:MI:SS.MS"000Z"'`;

export function jsonValue(expr: string, native: NativeType): string | null {
  const key = native.key ?? '';
  if (AS_IS.has(key)) return expr;
  if (FLOATS.has(key)) return finite(expr);
  switch (key) {
    // pg hands NUMERIC over as text and convertValue makes it a double: 12.50 -> 12.5
    case 'DECIMAL':
      return finite(`${expr}::float8`);
    case 'DATE':
      return `to_char(${expr} AT TIME ZONE 'UTC', ${TIMESTAMP})`;
    // 'YYYY-MM-DD' from pg, read by new Date() as UTC midnight
    case 'DATEONLY':
      return `to_char(${expr}, 'YYYY-MM-DD"T00:00:00.000000Z"')`;
    // arrays of floats could hold NaN: not rendered
    case 'ARRAY':
      return AS_IS.has(native.item ?? '') ? expr : null;
    default:
      return null;
  }
}

/** A pivot column by its field type (the native type is not kept): ids and plain values only. */
export function pivotJsonValue(expr: string, type: string): string | null {
  switch (type) {
    case 'id':
    case 'string':
    case 'integer':
    case 'boolean':
    case 'object':
      return expr;
    // NUMERIC or a float: through numeric, as pg's text then Number() would read it
    case 'number':
      return finite(`${expr}::numeric::float8`);
    default:
      return null;
  }
}
