import type { Filter, Scalar } from '../query/ast';
import type { ModelInfo } from '../resource/model-info';
import { simpleLower } from '../query/simple-lower';

/**
 * Whether one record (as the feed carries it: JSON values, dates as ISO text) matches a filter on
 * its own fields, with the drivers' semantics (decisions 4-10): negative operators match null,
 * `=`/`in` on an array field mean contains / contains any, `like` is anchored with `%` and `_`
 * (`_` one code point, as PostgreSQL and MongoDB count), `ilike` compares both sides under the
 * drivers' one case rule (lib/query/simple-lower.ts, decision 73), dates compare as instants,
 * strings bytewise. A relation filter cannot be decided without the
 * database: it never matches (the feed refuses relation filters; a scope holding one delivers nothing).
 */
export function matchesFilter(filter: Filter | null, row: Record<string, unknown>, info: ModelInfo): boolean {
  if (!filter) return true;
  switch (filter.kind) {
    case 'and':
      return filter.filters.every((f) => matchesFilter(f, row, info));
    case 'or':
      return filter.filters.some((f) => matchesFilter(f, row, info));
    case 'related':
      return false;
    default:
      return matchesCondition(filter.field, filter.operator, filter.value, row, info);
  }
}

type Comparable = string | number | boolean;

/** A value in comparable form: dates as epoch ms, ids as lower-case text or numbers. */
function comparable(value: unknown, type: string | undefined): Comparable | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.getTime();
  if (type === 'date') {
    const time = Date.parse(String(value));
    return Number.isNaN(time) ? String(value) : time;
  }
  if (type === 'id' && typeof value === 'string') return value.toLowerCase();
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string') return value;
  return JSON.stringify(value);
}

function compare(a: Comparable, b: Comparable): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A LIKE pattern as an anchored, case-sensitive regular expression over code points (`u`). */
function likeRegex(pattern: string): RegExp {
  const body = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '[\\s\\S]*').replace(/_/g, '[\\s\\S]');
  return new RegExp(`^${body}$`, 'u');
}

/** `like` as written; `ilike` with pattern and value both in the rule's lower case (never the regex `i` flag). */
function likeMatches(pattern: string, stored: string, caseless: boolean): boolean {
  return caseless ? likeRegex(simpleLower(pattern)).test(simpleLower(stored)) : likeRegex(pattern).test(stored);
}

function positive(operator: string, stored: Comparable, value: Scalar | Scalar[] | undefined, type: string | undefined): boolean {
  const one = (v: unknown) => comparable(v, type);
  switch (operator) {
    case '=': {
      const v = one(value);
      return v !== null && compare(stored, v) === 0;
    }
    case '>':
    case '>=':
    case '<':
    case '<=': {
      const v = one(value);
      if (v === null) return false;
      const c = compare(stored, v);
      return operator === '>' ? c > 0 : operator === '>=' ? c >= 0 : operator === '<' ? c < 0 : c <= 0;
    }
    case 'in':
      return Array.isArray(value) && value.some((v) => {
        const x = one(v);
        return x !== null && compare(stored, x) === 0;
      });
    case 'between': {
      if (!Array.isArray(value) || value.length !== 2) return false;
      const [low, high] = value.map(one);
      return low !== null && high !== null && compare(stored, low) >= 0 && compare(stored, high) <= 0;
    }
    case 'like':
    case 'ilike':
      return typeof stored === 'string' && likeMatches(String(value), stored, operator === 'ilike');
    default:
      return false;
  }
}

const NEGATIONS: Record<string, string> = { '!=': '=', 'not in': 'in', 'not between': 'between', 'not like': 'like', 'not ilike': 'ilike' };

function matchesCondition(field: string, operator: string, value: Scalar | Scalar[] | undefined, row: Record<string, unknown>, info: ModelInfo): boolean {
  const raw = row[field];
  const type = info.fields[field]?.type;
  if (operator === 'null') return raw === null || raw === undefined;
  if (operator === 'not null') return raw !== null && raw !== undefined;
  const negated = NEGATIONS[operator];
  const test = (stored: unknown) => {
    const c = comparable(stored, type === 'array' ? undefined : type);
    return c !== null && positive(negated ?? operator, c, value, type === 'array' ? undefined : type);
  };
  // an array field holds the value when one element does (MongoDB's semantics, decision on users.roles)
  const hit = Array.isArray(raw) ? raw.some(test) : test(raw);
  return negated ? !hit : hit;
}
