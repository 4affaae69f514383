import { quoteIdent, quoteLiteral, type SqlStatement } from './sql-builder';
import type { StorageInfo } from './model-map';

/**
 * Write statements. Values travel as ONE JSON parameter turned into rows of the table's own
 * row type (json_populate_recordset), so every value is typed by its column and one statement
 * serves any number of records, without the 65535-parameter ceiling. An INSERT reads `json`, not
 * `jsonb`: PostgreSQL then skips converting the whole text first (5 % less time per row).
 */

export function tableSql(info: StorageInfo): string {
  return info.schema ? `${quoteIdent(info.schema)}.${quoteIdent(info.table)}` : quoteIdent(info.table);
}

export function columnOf(info: StorageInfo, field: string): string {
  return info.columns[field] ?? field;
}

const MANAGED = (info: StorageInfo, key: string): Set<string> => new Set([key, info.createdAt, info.updatedAt].filter((f): f is string => !!f));

/** A model default, made per record (Sequelize's `defaultValue`, e.g. a fresh UUID each time). */
export type InsertDefaults = Record<string, () => unknown>;

/** The fields an insert writes: any record's, plus those with a default, never the key or timestamps. */
function insertFields(info: StorageInfo, key: string, records: Record<string, unknown>[], defaults: InsertDefaults): string[] {
  const managed = MANAGED(info, key);
  const seen = new Set<string>();
  for (const record of records) for (const field of Object.keys(record)) seen.add(field);
  for (const field of Object.keys(defaults)) seen.add(field);
  return [...seen].filter((f) => f in info.columns && !managed.has(f));
}

/**
 * One multi-row INSERT ... RETURNING key, in input order. `records` hold model fields only; a
 * field a record lacks gets its model default when it has one, else NULL (what Sequelize's build
 * would do). Each record becomes its JSON row in one pass.
 */
export function compileInsert(info: StorageInfo, key: string, records: Record<string, unknown>[], returned: string[] = [key], defaults: InsertDefaults = {}): SqlStatement {
  const fields = insertFields(info, key, records, defaults);
  const table = tableSql(info);
  const stamps = [info.createdAt, info.updatedAt].filter((f): f is string => !!f);
  const targets = [...fields, ...stamps].map((f) => quoteIdent(columnOf(info, f)));
  const returning = `RETURNING ${returned.map((f) => `${quoteIdent(columnOf(info, f))} AS ${quoteIdent(f)}`).join(', ')}`;
  if (targets.length === 0) {
    return { sql: `INSERT INTO ${table} (${quoteIdent(columnOf(info, key))}) VALUES ${records.map(() => '(DEFAULT)').join(', ')} ${returning}`, bind: [] };
  }
  const values = [...fields.map((f) => `"v".${quoteIdent(columnOf(info, f))}`), ...stamps.map(() => "date_trunc('milliseconds', now())")];
  const columns = fields.map((f) => columnOf(info, f));
  const made = fields.map((f) => defaults[f]);
  // literal objects (V8's fast properties: half the time of prototype-less ones to build and
  // stringify) unless a column is named __proto__, which a literal would take as its prototype
  const literal = !columns.includes('__proto__');
  const rows = records.map((record) => {
    const out: Record<string, unknown> = literal ? {} : (Object.create(null) as Record<string, unknown>);
    for (let i = 0; i < fields.length; i += 1) {
      const value = record[fields[i]];
      out[columns[i]] = value !== undefined ? value : made[i] ? made[i]() : null;
    }
    return out;
  });
  return {
    sql:
      `INSERT INTO ${table} (${targets.join(', ')}) SELECT ${values.join(', ')} ` +
      `FROM json_populate_recordset(NULL::${table}, $1::json) WITH ORDINALITY AS "v" ORDER BY "v"."ordinality" ${returning}`,
    bind: [JSON.stringify(rows)],
    // prepared: its plan cannot hinge on the value (one JSON document, estimated at 100 rows
    // whatever it holds), and a chunked bulk create runs the same text up to eight times
    prepare: true,
  };
}

/**
 * One UPDATE for every item whatever their changed fields: a field absent from an item's changes
 * keeps its value (CASE on the key's presence in that item's JSON). updated_at = now() truncated to milliseconds, only on a row where a sent value differs from the stored one (decision 67), (what a JS Date holds, so keyset cursors on timestamps compare exactly).
 */
/** `jsonb_build_object('<column>', "<alias>"."<column>", ...)`: the columns of a row as JSON (columns are the model's, never a client's). */
export function rowObject(alias: string, columns: string[]): string {
  // PostgreSQL 18's RETURNING names the row before the update `old`, a keyword rather than an alias
  const prefix = alias === 'old' ? 'old' : quoteIdent(alias);
  return columns.length === 0 ? `'{}'::jsonb` : `jsonb_build_object(${columns.map((c) => `${quoteLiteral(c)}, ${prefix}.${quoteIdent(c)}`).join(', ')})`;
}

/** The row as it was, for history (decision 83): columns read from PostgreSQL 18's `old` in RETURNING, or from the row's pre-statement version joined by key; answered as `grr_b<i>`. */
export type BeforeRow = false | { old: string[] } | { joined: string[] };

export function compileUpdate(info: StorageInfo, key: string, items: UpdateItems, guard?: { field: string; isNull: boolean }, returned: string[] = [key], version: string | null | undefined = null, before: BeforeRow = false): SqlStatement {
  const managed = MANAGED(info, key);
  if (version) managed.add(version);
  const seen = new Set<string>();
  for (const item of items) for (const f in item.changes) if (Object.prototype.hasOwnProperty.call(item.changes, f)) seen.add(f);
  const fields = [...seen].filter((f) => f in info.columns && !managed.has(f));
  // every item changes the same fields (a batch's usual case): one typed recordset and plain SETs,
  // no per-item record nor CASE on which keys it sent
  const uniform = items.every((i) => fields.every((f) => Object.prototype.hasOwnProperty.call(i.changes, f)));
  // the text depends on the fields and options only: made once per shape (a batch of 100 rebuilt it every time)
  // with every column's type known (column-types.ts), a typed column list instead of the table's whole row type
  const typed = uniform ? typedRecordset(info, [key, ...fields, ...(version ? [version] : [])].map((f) => columnOf(info, f)), '$1', 'u') : null;
  const shape = `${key}\u0001${fields.join('\u0000')}\u0001${uniform}\u0001${typed !== null}\u0001${guard ? `${guard.field}:${guard.isNull}` : ''}\u0001${returned.join('\u0000')}\u0001${version ?? ''}\u0001${before ? JSON.stringify(before) : ''}`;
  let texts = updateTexts.get(info);
  if (!texts) updateTexts.set(info, (texts = new Map()));
  let sql = texts.get(shape);
  if (sql === undefined) {
    sql = updateText(info, key, fields, typed ?? uniform, guard, returned, version, before);
    if (texts.size < 200) texts.set(shape, sql);
  }
  // prepared, as the INSERT: one JSON document whatever the items, so one plan fits all
  return { sql, bind: [updateRowsJson(info, key, fields, version, items)], prepare: true };
}

type UpdateItems = { id: unknown; changes: Record<string, unknown>; expected?: number }[];

/** Update statements' texts by table and shape (fields, options). */
const updateTexts = new WeakMap<StorageInfo, Map<string, string>>();

/** A value's JSON: numbers and the like without JSON.stringify's generic path (a batch's rows are mostly numbers). */
function jsonValue(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? `${value}` : 'null';
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(value) ?? 'null';
}

/**
 * The rows' JSON for jsonb_populate_recordset, written directly (column names quoted once): a
 * prototype-less object per item, stringified, took four times as long.
 */
function updateRowsJson(info: StorageInfo, key: string, fields: string[], version: string | null | undefined, items: UpdateItems): string {
  const keyName = `{${JSON.stringify(columnOf(info, key))}:`;
  const names = fields.map((f) => `,${JSON.stringify(columnOf(info, f))}:`);
  const versionName = version ? `,${JSON.stringify(columnOf(info, version))}:` : '';
  let json = '[';
  for (let i = 0; i < items.length; i += 1) {
    const { id, changes, expected } = items[i];
    if (i > 0) json += ',';
    json += keyName + jsonValue(id);
    for (let f = 0; f < fields.length; f += 1) if (Object.prototype.hasOwnProperty.call(changes, fields[f])) json += names[f] + jsonValue(changes[fields[f]]);
    // the precondition travels in the version column of the item's row (null: none)
    if (version && expected !== undefined) json += versionName + jsonValue(expected);
    json += '}';
  }
  return `${json}]`;
}

/**
 * `json_to_recordset(<json>::json) AS <alias>(<column> <type>, ...)`: the rows of a JSON array with
 * only these columns, each of its catalog type (column-types.ts; the catalog's text, never a
 * client's); null when a column's type is not known (the caller keeps the table's row type).
 */
export function typedRecordset(info: StorageInfo, columns: string[], json: string, alias: string): string | null {
  const types = info.columnTypes;
  if (!types || !columns.every((c) => types[c] !== undefined)) return null;
  return `json_to_recordset(${json}::json) AS ${quoteIdent(alias)}(${columns.map((c) => `${quoteIdent(c)} ${types[c]}`).join(', ')})`;
}

/** Decision 67's dirty check of one field: a plain-equality type (describe-model.ts) compared as itself, any other as JSON. */
export function differsSql(info: StorageInfo, field: string, given: string, stored: string): string {
  return info.plainEquality?.[field] ? `${given} IS DISTINCT FROM ${stored}` : `to_jsonb(${given}) IS DISTINCT FROM to_jsonb(${stored})`;
}

/** `form`: the typed recordset (typedRecordset), else whether every item sends the same fields. */
function updateText(info: StorageInfo, key: string, fields: string[], form: boolean | string, guard: { field: string; isNull: boolean } | undefined, returned: string[], version: string | null | undefined, before: BeforeRow): string {
  const table = tableSql(info);
  const uniform = form !== false;
  const value = (col: string) => (uniform ? `"u".${col}` : `("u"."r").${col}`);
  const sent = (f: string) => (uniform ? '' : `jsonb_exists("u"."j", ${quoteLiteral(columnOf(info, f))}) AND `);
  const sets = fields.map((f) => {
    const col = quoteIdent(columnOf(info, f));
    return uniform ? `${col} = "u".${col}` : `${col} = CASE WHEN jsonb_exists("u"."j", ${quoteLiteral(columnOf(info, f))}) THEN ("u"."r").${col} ELSE "t".${col} END`;
  });
  // decision 67 (an ORM's dirty check): updated_at moves only when a sent value differs from the
  // stored one; compared as jsonb so every column type (json, arrays) has an equality
  const differs = fields.map((f) => {
    const col = quoteIdent(columnOf(info, f));
    return `(${sent(f)}${differsSql(info, f, value(col), `"t".${col}`)})`;
  });
  // a guarded write (soft delete, restore) always changes its field
  const changed = guard ? 'TRUE' : differs.length === 0 ? 'FALSE' : differs.join(' OR ');
  if (info.updatedAt) {
    const stamp = quoteIdent(columnOf(info, info.updatedAt));
    sets.push(differs.length === 0 ? `${stamp} = "t".${stamp}` : `${stamp} = CASE WHEN ${differs.join(' OR ')} THEN date_trunc('milliseconds', now()) ELSE "t".${stamp} END`);
  }
  // decision 81: the version moves with every write of the row, in the same statement
  const versionCol = version ? quoteIdent(columnOf(info, version)) : null;
  if (versionCol) sets.push(`${versionCol} = CASE WHEN ${changed} THEN "t".${versionCol} + 1 ELSE "t".${versionCol} END`);
  const keyCol = quoteIdent(columnOf(info, key));
  if (sets.length === 0) sets.push(`${keyCol} = "t".${keyCol}`);
  const source = typeof form === 'string' ? form : uniform ? `jsonb_populate_recordset(NULL::${table}, $1::jsonb) AS "u"` : `(SELECT "e"."j", jsonb_populate_record(NULL::${table}, "e"."j") AS "r" FROM jsonb_array_elements($1::jsonb) AS "e"("j")) AS "u"`;
  // decision 83 (history): the row as it was, from RETURNING's `old` or the statement's snapshot joined by key
  const old = before && 'joined' in before ? ` JOIN ${table} AS "o" ON "o".${keyCol} = ${value(keyCol)}` : '';
  const beforeRow = !before ? '' : ('joined' in before ? before.joined.map((c) => `"o".${quoteIdent(c)}`) : before.old.map((c) => `old.${quoteIdent(c)}`)).map((c, i) => `, ${c} AS "grr_b${i}"`).join('');
  return (
    `UPDATE ${table} AS "t" SET ${sets.join(', ')} FROM ${source}${old} WHERE "t".${keyCol} = ${value(keyCol)}` +
    (guard ? ` AND "t".${quoteIdent(columnOf(info, guard.field))} IS ${guard.isNull ? '' : 'NOT '}NULL` : '') +
    (versionCol ? ` AND (${value(versionCol)} IS NULL OR "t".${versionCol} = ${value(versionCol)})` : '') +
    ` RETURNING ${returned.map((f) => `"t".${quoteIdent(columnOf(info, f))} AS ${quoteIdent(f)}`).join(', ')}${beforeRow}`
  );
}

/** With `whole`, each removed row's columns too, as `grr_c<i>` (history, decision 83: the records as they were, from the DELETE). */
export function compileDelete(info: StorageInfo, key: string, ids: unknown[], whole: string[] = []): SqlStatement {
  const col = quoteIdent(columnOf(info, key));
  return { sql: `DELETE FROM ${tableSql(info)} WHERE ${col} = ANY($1) RETURNING ${col} AS ${quoteIdent(key)}${wholeColumns(whole)}`, bind: [ids] };
}

/** The returned columns of a DELETE that answers its rows whole: `, "<column>" AS "grr_c<i>"`. */
export function wholeColumns(columns: string[]): string {
  return columns.map((c, i) => `, ${quoteIdent(c)} AS "grr_c${i}"`).join('');
}

export function compileExistingIds(info: StorageInfo, key: string, ids: unknown[]): SqlStatement {
  const col = quoteIdent(columnOf(info, key));
  // prepared: keys only, one plan fits every id list (an index lookup per id)
  return { sql: `SELECT ${col} AS ${quoteIdent(key)} FROM ${tableSql(info)} WHERE ${col} = ANY($1)`, bind: [ids], prepare: true };
}
