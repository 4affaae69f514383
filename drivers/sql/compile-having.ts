import type { AggregateQuery, Having } from '../../lib/query/aggregate-ast';
import type { FieldInfo } from '../../lib/resource/model-info';
import { ANSWER, answerCatalog } from '../../lib/query/answer-catalog';
import type { CaseFold } from './case-fold';
import { CompileContext } from './compile-context';
import { compileFilter } from './compile-filter';
import type { StorageInfo } from './model-map';
import { quoteIdent, type ParamBuilder } from './sql-builder';

/** 2^960: a scaled sum or average below it is exact and finite once multiplied back by 2^64. */
const LIMIT = '9.7453140114e288';

/** What the grouped rows answer for measure `i`, as `having` compares it: counts, sums and averages as float8, unscaled. */
function measureValue(query: AggregateQuery, i: number, scaled: boolean, alias: string): string {
  const col = `${quoteIdent(alias)}.${quoteIdent(`m${i}`)}`;
  const fn = query.measures[i].fn;
  if (fn === 'min' || fn === 'max') return col;
  if (!scaled) return `${col}::float8`;
  return `(CASE WHEN abs(${col}::float8) < ${LIMIT} THEN ${col}::float8 * 18446744073709551616::float8 ELSE sign(${col}::float8) * 'Infinity'::float8 END)`;
}

/**
 * `having` (decision 84) over the grouped rows `alias` ("a"): the list's condition compiler over a
 * model whose fields are the answer's columns (`g<i>`, and `h<i>` beside each `m<i>`, its value as
 * the answer gives it), so values, nulls and negations mean what they mean in `oper`. Answers
 * the SELECT of the rows kept, every column of `alias` included.
 */
export function compileHaving(query: AggregateQuery, having: Having, scaled: boolean[], textKeys: boolean[], alias: string, params: ParamBuilder, caseFold: CaseFold): string {
  const fields: Record<string, FieldInfo> = {};
  const columns: Record<string, string> = {};
  const textCasts: Record<string, 'text'> = {};
  for (const [key, info] of Object.entries(having.fields)) {
    fields[key] = info;
    if (key.startsWith('m')) columns[key] = `h${key.slice(1)}`;
    else if (textKeys[Number(key.slice(1))]) textCasts[key] = 'text';
  }
  const catalog = answerCatalog(fields, 'integer');
  const storage: StorageInfo = { table: 'h', columns, textCasts, createdAt: null, updatedAt: null };
  const ctx = new CompileContext(catalog, { [ANSWER]: storage }, caseFold);
  const values = query.measures.map((_, i) => `${measureValue(query, i, scaled[i], alias)} AS ${quoteIdent(`h${i}`)}`);
  const inner = `SELECT ${quoteIdent(alias)}.*${values.length ? `, ${values.join(', ')}` : ''} FROM ${quoteIdent(alias)}`;
  return `SELECT * FROM (${inner}) AS "h" WHERE ${compileFilter(having.filter, ctx, ANSWER, 'h', params)}`;
}
