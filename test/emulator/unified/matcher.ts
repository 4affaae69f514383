import { Binary, BSONRegExp, Decimal128, Double, EJSON, Int32, Long, ObjectId, Timestamp } from 'bson';
import type { EntityMap } from './entities';

/**
 * The unified format's matching rules ("Evaluating Matches"): root-level documents may carry extra
 * fields, nested ones may not; numbers compare across int/long/double; `$$` operators assert.
 */
export class MatchError extends Error {}

type Doc = Record<string, unknown>;

function isDoc(v: unknown): v is Doc {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Actual values may be driver classes (ReadConcern, WriteConcern) or Maps (sort): documents too. */
function asDoc(v: unknown): Doc | undefined {
  if (isDoc(v)) return v;
  if (v instanceof Map) return Object.fromEntries(v);
  if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof Date || v instanceof RegExp || Buffer.isBuffer(v)) return undefined;
  if ((v as { _bsontype?: string })._bsontype) return undefined;
  return { ...(v as Doc) };
}

function operatorOf(v: unknown): string | undefined {
  if (!isDoc(v)) return undefined;
  const keys = Object.keys(v);
  return keys.length === 1 && keys[0].startsWith('$$') ? keys[0] : undefined;
}

function show(v: unknown): string {
  try {
    return EJSON.stringify(v as never, { relaxed: true });
  } catch {
    return String(v);
  }
}

function asNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (v instanceof Long) return v.toNumber();
  if (v instanceof Int32 || v instanceof Double) return v.valueOf();
  if (typeof v === 'bigint') return Number(v);
  return undefined;
}

/** The `$type` alias names an actual value can have (a JS number may have been int, long or double). */
export function typesOf(v: unknown): string[] {
  if (v === undefined) return [];
  if (v === null) return ['null'];
  if (typeof v === 'string') return ['string'];
  if (typeof v === 'boolean') return ['bool'];
  if (typeof v === 'number') return Number.isInteger(v) ? ['int', 'long', 'double', 'number'] : ['double', 'number'];
  if (v instanceof Int32) return ['int', 'number'];
  if (v instanceof Long || typeof v === 'bigint') return ['long', 'number'];
  if (v instanceof Double) return ['double', 'number'];
  if (v instanceof Decimal128) return ['decimal', 'number'];
  if (v instanceof ObjectId) return ['objectId'];
  if (v instanceof Date) return ['date'];
  if (v instanceof Binary) return ['binData'];
  if (v instanceof Timestamp) return ['timestamp'];
  if (v instanceof RegExp || v instanceof BSONRegExp) return ['regex'];
  if (Array.isArray(v)) return ['array'];
  const bsontype = (v as { _bsontype?: string })._bsontype;
  if (bsontype === 'MinKey') return ['minKey'];
  if (bsontype === 'MaxKey') return ['maxKey'];
  if (bsontype === 'Code') return ['javascript', 'javascriptWithScope'];
  return ['object'];
}

function scalarEquals(expected: unknown, actual: unknown): boolean {
  const e = asNumber(expected);
  const a = asNumber(actual);
  if (e !== undefined || a !== undefined) return e !== undefined && a !== undefined && (e === a || (Number.isNaN(e) && Number.isNaN(a)));
  if (expected === null || actual === null) return expected === actual;
  if (typeof expected !== 'object' || typeof actual !== 'object') return expected === actual;
  if (expected instanceof Date && actual instanceof Date) return expected.getTime() === actual.getTime();
  if (expected instanceof ObjectId && actual instanceof ObjectId) return expected.equals(actual);
  if (expected instanceof Binary && actual instanceof Binary) return expected.sub_type === actual.sub_type && Buffer.from(expected.buffer).equals(Buffer.from(actual.buffer));
  if (expected instanceof Timestamp && actual instanceof Timestamp) return expected.equals(actual);
  const regex = (r: unknown): string | undefined =>
    r instanceof RegExp ? `${r.source}/${r.flags.split('').sort().join('')}` : r instanceof BSONRegExp ? `${r.pattern}/${r.options.split('').sort().join('')}` : undefined;
  if (regex(expected) !== undefined) return regex(expected) === regex(actual);
  return show(expected) === show(actual);
}

export interface MatchOptions {
  entities?: EntityMap;
}

/** Throws MatchError naming the path of the first difference. */
export function match(expected: unknown, actual: unknown, opts: MatchOptions = {}, root = true, path = '$'): void {
  const fail = (why: string): never => {
    throw new MatchError(`${path}: ${why} (expected ${show(expected)}, actual ${show(actual)})`);
  };
  const op = operatorOf(expected);
  if (op) {
    special(op, (expected as Doc)[op], actual, opts, root, path);
    return;
  }
  if (isDoc(expected)) {
    const doc = asDoc(actual);
    if (!doc) return fail('not a document');
    for (const [key, value] of Object.entries(expected)) {
      const keyOp = operatorOf(value);
      const sub = `${path}.${key}`;
      if (keyOp === '$$exists') {
        const present = doc[key] !== undefined;
        if (present !== ((value as Doc)[keyOp] === true)) throw new MatchError(`${sub}: expected ${present ? 'absent' : 'present'} (actual ${show(doc[key])})`);
        continue;
      }
      if (keyOp === '$$unsetOrMatches') {
        if (doc[key] === undefined) continue;
        match((value as Doc)[keyOp], doc[key], opts, false, sub);
        continue;
      }
      if (doc[key] === undefined) {
        if (value === null) continue; // the driver omits null fields the server sent
        throw new MatchError(`${sub}: missing (expected ${show(value)})`);
      }
      match(value, doc[key], opts, false, sub);
    }
    if (!root) {
      const extra = Object.keys(doc).filter((k) => !(k in expected) && doc[k] !== undefined);
      if (extra.length) fail(`unexpected field(s) ${extra.join(', ')}`);
    }
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return fail('not an array');
    if (actual.length !== expected.length) return fail(`${actual.length} elements, expected ${expected.length}`);
    expected.forEach((e, i) => match(e, actual[i], opts, false, `${path}[${i}]`));
    return;
  }
  if (!scalarEquals(expected, actual)) fail('different value');
}

/** Each element of an iterable result is a root-level document. */
export function matchRootArray(expected: unknown, actual: unknown[], opts: MatchOptions = {}): void {
  if (!Array.isArray(expected)) return match(expected, actual, opts, true);
  if (actual.length !== expected.length) throw new MatchError(`$: ${actual.length} results, expected ${expected.length} (actual ${show(actual)})`);
  expected.forEach((e, i) => match(e, actual[i], opts, true, `$[${i}]`));
}

function special(op: string, arg: unknown, actual: unknown, opts: MatchOptions, root: boolean, path: string): void {
  const fail = (why: string): never => {
    throw new MatchError(`${path}: ${op} ${why} (actual ${show(actual)})`);
  };
  switch (op) {
    case '$$type': {
      const wanted = (Array.isArray(arg) ? arg : [arg]).map(String);
      if (!typesOf(actual).some((t) => wanted.includes(t))) fail(`${show(arg)} not matched`);
      return;
    }
    case '$$exists':
      if ((actual !== undefined) !== (arg === true)) fail(`${show(arg)} not matched`);
      return;
    case '$$unsetOrMatches':
      if (actual === undefined) return;
      match(arg, actual, opts, root, path);
      return;
    case '$$matchesEntity':
      match(opts.entities?.get(String(arg)), actual, opts, root, path);
      return;
    case '$$sessionLsid': {
      const lsid = opts.entities?.sessionLsid(String(arg));
      match(lsid, actual, opts, false, path);
      return;
    }
    case '$$lte': {
      const a = asNumber(actual);
      const e = asNumber(arg);
      if (a === undefined || e === undefined || a > e) fail(`${show(arg)} not satisfied`);
      return;
    }
    case '$$matchesHexBytes': {
      const hex = actual instanceof Binary ? Buffer.from(actual.buffer).toString('hex') : Buffer.isBuffer(actual) ? actual.toString('hex') : undefined;
      if (hex === undefined || hex !== String(arg).toLowerCase()) fail(`${show(arg)} not matched`);
      return;
    }
    case '$$matchAsDocument':
      if (typeof actual !== 'string') fail('needs an Extended JSON string');
      match(arg, EJSON.parse(actual as string, { relaxed: true }), opts, false, path);
      return;
    case '$$matchAsRoot':
      match(arg, actual, opts, true, path);
      return;
    default:
      throw new MatchError(`${path}: unsupported match operator ${op}`);
  }
}
