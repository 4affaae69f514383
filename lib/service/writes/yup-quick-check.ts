import type * as Yup from 'yup';

/**
 * A synchronous proof that yup would accept a record unchanged, compiled once per schema.
 *
 * yup's `validate` runs every rule through promises and closures: about 12 µs and 36 KB of garbage
 * per record of nine fields, more than half of a bulk create's CPU. For an object schema of plain
 * string, number and boolean fields whose rules are yup's own (required, min, max, length,
 * matches/email/url/uuid, integer, moreThan/lessThan, oneOf/notOneOf, nullable, defined) this
 * check answers `true` only when yup would resolve with the very same object (no cast changed a
 * value, no default added one). Anything else answers `false` and yup runs as before, so errors,
 * messages and casts always come from yup. A schema using anything not recognized (custom tests,
 * transforms, `when`, defaults, dates, arrays, nested objects, another copy of yup) gets no check.
 * Rules are recognized by name, parameters and the source of yup's own test function, so a
 * custom test that borrows a built-in name is not mistaken for it.
 */
export type QuickCheck = (record: Record<string, unknown>) => boolean;

/** The parts of a yup schema this file reads (yup's own fields; not all in its public types). */
interface Rule {
  OPTIONS?: { name?: string; test?: unknown; params?: Record<string, unknown>; skipAbsent?: boolean };
}
interface YupSchema {
  type: string;
  spec: { strip?: boolean; nullable?: boolean; optional?: boolean; default?: unknown; noUnknown?: boolean };
  tests: Rule[];
  internalTests: Record<string, Rule | undefined>;
  transforms: unknown[];
  conditions: unknown[];
  _whitelist: Set<unknown>;
  _blacklist: Set<unknown>;
  _typeCheck: (value: unknown) => boolean;
  fields?: Record<string, unknown>;
}

type Value = string | number | boolean;
type Predicate = (value: Value) => boolean;
type ScalarType = 'string' | 'number' | 'boolean';

const source = (fn: unknown): string => (typeof fn === 'function' ? Function.prototype.toString.call(fn) : '');
const ruleSource = (rule: Rule | undefined): string => source(rule?.OPTIONS?.test);
const asSchema = (s: unknown): YupSchema => s as YupSchema;
const lastTest = (s: unknown): Rule => asSchema(s).tests[asSchema(s).tests.length - 1];

/** One of yup's own rules: which test it is, which parameter it reads, what it checks. */
interface KnownRule {
  type: ScalarType;
  name: string;
  source: string;
  param?: string;
  make: (param: unknown) => Predicate | undefined;
}

const num = (p: unknown): p is number => typeof p === 'number' && !Number.isNaN(p);
const len = (v: Value): number => (v as string).length;

/** Built from fresh yup schemas once, so the sources compared are this yup's own. */
interface References {
  known: KnownRule[];
  internal: Record<string, string>;
  transform: Record<ScalarType, string>;
  noUnknown: string;
  prototypes: Record<ScalarType | 'object', object>;
}
let reference: References | undefined;

/** yup, an optional peer: loaded when a schema is first checked (the application has yup then). */
function loadYup(): typeof Yup | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('yup') as typeof Yup;
  } catch {
    return undefined; // not resolvable from here: every schema runs yup itself
  }
}

function references(): References | undefined {
  if (reference) return reference;
  const yup = loadYup();
  if (!yup) return undefined;
  const { boolean, number, object, string } = yup;
  const rule = (type: ScalarType, s: unknown, param: string | undefined, make: KnownRule['make']): KnownRule => {
    const test = lastTest(s);
    return { type, name: test.OPTIONS?.name ?? '', source: ruleSource(test), param, make };
  };
  const bound = (check: (v: Value, p: number) => boolean) => (p: unknown) => (num(p) ? (v: Value) => check(v, p) : undefined);
  const matches = (p: unknown) => (p instanceof RegExp ? (v: Value) => (v as string).search(p) !== -1 : undefined);
  const known: KnownRule[] = [
    rule('string', string().required(), undefined, () => (v) => len(v) > 0),
    rule('string', string().min(1), 'min', bound((v, p) => len(v) >= p)),
    rule('string', string().max(1), 'max', bound((v, p) => len(v) <= p)),
    rule('string', string().length(1), 'length', bound((v, p) => len(v) === p)),
    // One source for matches, email, url and uuid. `excludeEmptyString` is not among the
    // parameters, so '' passes here only when the pattern matches it (yup may accept more).
    ...['matches', 'email', 'url', 'uuid'].map((name) => ({ ...rule('string', string().matches(/x/), 'regex', matches), name })),
    rule('number', number().min(1), 'min', bound((v, p) => (v as number) >= p)),
    rule('number', number().max(1), 'max', bound((v, p) => (v as number) <= p)),
    rule('number', number().moreThan(1), 'more', bound((v, p) => (v as number) > p)),
    rule('number', number().lessThan(1), 'less', bound((v, p) => (v as number) < p)),
    rule('number', number().integer(), undefined, () => (v) => Number.isInteger(v)),
  ];
  const internal = (s: unknown, key: string): string => ruleSource(asSchema(s).internalTests[key]);
  reference = {
    known,
    internal: {
      typeError: internal(string(), 'typeError'),
      nullable: internal(string(), 'nullable'),
      optionality: internal(string().defined(), 'optionality'),
      whiteList: internal(string().oneOf(['x']), 'whiteList'),
      blacklist: internal(string().notOneOf(['x']), 'blacklist'),
    },
    transform: { string: source(asSchema(string()).transforms[0]), number: source(asSchema(number()).transforms[0]), boolean: source(asSchema(boolean()).transforms[0]) },
    noUnknown: ruleSource(lastTest(object().noUnknown(false))),
    prototypes: { string: Object.getPrototypeOf(string()), number: Object.getPrototypeOf(number()), boolean: Object.getPrototypeOf(boolean()), object: Object.getPrototypeOf(object()) },
  };
  return reference;
}

/** The type, null, undefined, oneOf and notOneOf checks every schema carries are yup's own. */
const builtInInternals = (schema: YupSchema, ref: References): boolean =>
  Object.entries(schema.internalTests).every(([key, test]) => !test || ruleSource(test) === ref.internal[key]);

const isRef = (item: unknown): boolean => typeof item === 'object' && item !== null && (item as { __isYupRef?: boolean }).__isYupRef === true;

/** The checks a present value must pass, or undefined when a rule is not recognized. */
function fieldCheck(schema: YupSchema, ref: References): ((value: unknown, present: boolean) => boolean) | undefined {
  const type = schema.type as ScalarType;
  if (!(type in ref.transform) || Object.getPrototypeOf(schema) !== ref.prototypes[type]) return undefined;
  if (schema.conditions.length > 0 || schema.spec.strip || schema.spec.default !== undefined) return undefined;
  // Only yup's own coercion, which leaves a value of the right type (or null) as it is.
  if (schema.transforms.length !== 1 || source(schema.transforms[0]) !== ref.transform[type]) return undefined;
  if (!builtInInternals(schema, ref)) return undefined;
  const whitelist = schema.internalTests.whiteList ? schema._whitelist : undefined;
  const blacklist = schema.internalTests.blacklist ? schema._blacklist : undefined;
  for (const set of [whitelist, blacklist]) if (set && [...set].some(isRef)) return undefined;
  const predicates: Predicate[] = [];
  for (const test of schema.tests) {
    const options = test.OPTIONS;
    const known = ref.known.find((k) => k.type === type && k.name === options?.name && k.source === ruleSource(test));
    const predicate = known && options?.skipAbsent === true ? known.make(known.param ? options.params?.[known.param] : undefined) : undefined;
    if (!predicate) return undefined;
    predicates.push(predicate);
  }
  const typeCheck = schema._typeCheck;
  const { nullable, optional } = schema.spec;
  return (value, present) => {
    // yup drops a key present with `undefined`, so the output would not be the same object.
    if (value === undefined) return !present && optional === true && !blacklist?.has(undefined);
    if (value === null) return nullable === true && !blacklist?.has(null);
    if (!typeCheck(value) || (whitelist && !whitelist.has(value)) || blacklist?.has(value)) return false;
    for (const predicate of predicates) if (!predicate(value as Value)) return false;
    return true;
  };
}

function compile(schema: YupSchema): QuickCheck | undefined {
  const ref = references();
  if (!ref) return undefined;
  if (schema.type !== 'object' || Object.getPrototypeOf(schema) !== ref.prototypes.object || !schema.fields) return undefined;
  if (schema.conditions.length > 0 || schema.transforms.length > 0 || schema.spec.noUnknown) return undefined;
  if (schema.internalTests.whiteList || schema.internalTests.blacklist || !builtInInternals(schema, ref)) return undefined;
  // `noUnknown(false)` leaves a test that always passes; any other object-level test is unknown.
  if (!schema.tests.every((test) => test.OPTIONS?.name === 'noUnknown' && ruleSource(test) === ref.noUnknown)) return undefined;
  const fields: Array<[string, (value: unknown, present: boolean) => boolean]> = [];
  for (const [name, field] of Object.entries(schema.fields)) {
    const check = typeof field === 'object' && field !== null ? fieldCheck(field as YupSchema, ref) : undefined;
    if (!check) return undefined;
    fields.push([name, check]);
  }
  const typeCheck = schema._typeCheck;
  return (record) => {
    if (!typeCheck(record)) return false;
    for (const [name, check] of fields) {
      const value = record[name];
      if (!check(value, value !== undefined || name in record)) return false;
    }
    // yup copies the record when an unknown key holds NaN (NaN !== NaN reads as a change).
    for (const key in record) if (Number.isNaN(record[key])) return false;
    return true;
  };
}

const compiled = new WeakMap<object, QuickCheck | null>();

/** The schema's quick check (compiled on first use), or undefined when yup must always run. */
export function quickCheck(schema: object): QuickCheck | undefined {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = compile(schema as YupSchema) ?? null;
    compiled.set(schema, check);
  }
  return check ?? undefined;
}
