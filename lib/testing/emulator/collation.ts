import { Aggregator } from 'mingo';
import { CommandError, toCommandError } from './errors';
import { compileFilter } from './engine';
import { isPlainObject, keyOf, type Doc } from './values';

/**
 * Collation for English locales (`en`, `en_US` ...) at strength 1 (letters only), 2 (accents
 * count, case does not) or 3 (the default: case counts too). Filters compare strings through a
 * comparison key (accents stripped at 1, case folded at 1 and 2, canonical form at 3), which is
 * ICU's equality for English; sorting uses Intl.Collator (ICU). Range comparisons of strings,
 * $regex, other locales and the options that change ordering are refused (NotImplemented).
 */
export interface Collation {
  spec: Doc;
  strength: 1 | 2 | 3;
  /** The comparison key of a string. */
  key(s: string): string;
}

const ALLOWED: Record<string, (v: unknown) => boolean> = {
  locale: (v) => typeof v === 'string',
  strength: (v) => v === 1 || v === 2 || v === 3,
  caseLevel: (v) => v === false,
  caseFirst: (v) => v === 'off',
  numericOrdering: (v) => v === false,
  alternate: (v) => v === 'non-ignorable',
  maxVariable: () => true,
  normalization: (v) => v === false,
  backwards: (v) => v === false,
  version: () => true,
};

function refuse(spec: unknown, why: string): never {
  throw new CommandError('NotImplemented', `collation ${JSON.stringify(spec)} is not supported by the MongoDB emulator (${why})`);
}

/** undefined for no collation or the simple one (binary comparison, the default). */
export function parseCollation(value: unknown, field = 'collation'): Collation | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw new CommandError('TypeMismatch', `BSON field '${field}' is the wrong type '${typeof value}', expected type 'object'`);
  if (typeof value.locale !== 'string') throw new CommandError('FailedToParse', `BSON field '${field}.locale' is missing but a required field`);
  if (value.locale === 'simple') {
    if (Object.keys(value).length === 1) return undefined;
    throw new CommandError('BadValue', 'If "locale" is set to "simple", then no other fields may be specified');
  }
  if (!/^en([_-][A-Za-z]+)?$/.test(value.locale)) refuse(value, "only 'simple' and English locales");
  for (const [k, v] of Object.entries(value)) {
    const ok = ALLOWED[k];
    if (!ok) throw new CommandError('FailedToParse', `BSON field '${field}.${k}' is an unknown field.`);
    if (!ok(v)) refuse(value, `${k}: ${JSON.stringify(v)}`);
  }
  const strength = (value.strength ?? 3) as 1 | 2 | 3;
  const key =
    strength === 1
      ? (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()
      : strength === 2
        ? (s: string) => s.normalize('NFD').toLowerCase()
        : (s: string) => s.normalize('NFD');
  return { spec: value, strength, key };
}

function keyed(value: unknown, c: Collation): unknown {
  if (typeof value === 'string') return c.key(value);
  if (Array.isArray(value)) return value.map((v) => keyed(v, c));
  if (isPlainObject(value)) {
    const out: Doc = {};
    for (const [k, v] of Object.entries(value)) out[k] = keyed(v, c);
    return out;
  }
  return value;
}

/** Operators whose string operands are not values to compare (type names, patterns, expressions). */
const VERBATIM = new Set(['$type', '$exists', '$size', '$mod', '$bitsAllSet', '$bitsAnySet', '$bitsAllClear', '$bitsAnyClear', '$options']);
const UNSUPPORTED = new Set(['$regex', '$expr', '$where', '$text', '$jsonSchema', '$near', '$nearSphere', '$geoWithin', '$geoIntersects']);
const RANGE = new Set(['$gt', '$gte', '$lt', '$lte']);

function keyedFilter(filter: unknown, c: Collation): unknown {
  if (Array.isArray(filter)) return filter.map((f) => keyedFilter(f, c));
  if (filter instanceof RegExp) refuse(c.spec, 'a regular expression with a collation');
  if (!isPlainObject(filter)) return keyed(filter, c);
  const out: Doc = {};
  for (const [k, v] of Object.entries(filter)) {
    if (UNSUPPORTED.has(k)) refuse(c.spec, `${k} with a collation`);
    if (VERBATIM.has(k)) out[k] = v;
    else if (RANGE.has(k) && typeof v === 'string') refuse(c.spec, `${k} on a string with a collation`);
    else out[k] = keyedFilter(v, c);
  }
  return out;
}

/** The documents of `docs` matching `filter` under the collation, in their order. */
export function collatedFilter(docs: Doc[], filter: unknown, c: Collation, variables?: Doc): Doc[] {
  const query = compileFilter(keyedFilter(filter ?? {}, c), variables);
  return docs.filter((d) => query.test(keyed(d, c) as Doc));
}

/** Sort under the collation (mingo's $sort compares strings with Intl.Collator). */
export function collatedSort(docs: Doc[], sort: unknown, c: Collation): Doc[] {
  if (!isPlainObject(sort) || Object.keys(sort).length === 0) return docs;
  const collation = { locale: String(c.spec.locale).replace('_', '-'), strength: c.strength };
  try {
    return new Aggregator([{ $sort: sort }], { collation } as never).run(docs) as Doc[];
  } catch (err) {
    throw toCommandError(err);
  }
}

/** Distinct values under the collation: the first of each equal group. */
export function collatedDistinct(values: unknown[], c: Collation): unknown[] {
  const seen = new Map<string, unknown>();
  for (const v of values) {
    const k = keyOf(keyed(v, c));
    if (!seen.has(k)) seen.set(k, v);
  }
  return Array.from(seen.values());
}
