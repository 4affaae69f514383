/**
 * `$graphLookup` with MongoDB's semantics (mingo's treats a missing start or connectFromField value as
 * null, and null as matching a missing connectToField, so it joined every document lacking the field).
 * A breadth-first search: the start values (an array's elements; nothing when missing) are matched
 * against the connectToField values of the `from` documents (array elements each; a document without
 * the field is never matched, as the server adds `$exists: true` to its query), each document is
 * reached once at its least depth, its connectFromField values (none when missing) form the next
 * frontier, up to `maxDepth`.
 */
import { cloneDeep, isPlainObject, keyOf, pathValues, type Doc } from './values';
import { stageError } from './field-stages';

/* eslint-disable @typescript-eslint/no-require-imports */
const { evalExpr } = require('mingo/core') as { evalExpr: (obj: unknown, expr: unknown, options: unknown) => unknown };
const { Query } = require('mingo/query') as { Query: new (condition: Doc, options: unknown) => { test(doc: Doc): boolean } };
const { resolve } = require('mingo/util') as { resolve: (obj: unknown, path: string) => unknown };
/* eslint-enable @typescript-eslint/no-require-imports */

interface Lazy {
  map(fn: (o: Doc) => Doc): Lazy;
}

const KNOWN = new Set(['from', 'startWith', 'connectFromField', 'connectToField', 'as', 'maxDepth', 'depthField', 'restrictSearchWithMatch']);

function validate(spec: unknown): asserts spec is Doc {
  if (!isPlainObject(spec)) throw stageError(40327, 'the $graphLookup stage specification must be an object');
  for (const k of Object.keys(spec)) if (!KNOWN.has(k)) throw stageError(40104, `Unknown argument to $graphLookup: ${k}`);
  for (const k of ['from', 'connectFromField', 'connectToField', 'as']) {
    if (spec[k] !== undefined && typeof spec[k] !== 'string') throw stageError(40103, `expected string as argument for ${k}, found: ${typeof spec[k]}`);
  }
  if (typeof spec.from !== 'string' || typeof spec.as !== 'string' || typeof spec.connectToField !== 'string' || typeof spec.connectFromField !== 'string' || !('startWith' in spec)) {
    throw stageError(40105, 'from, as, connectToField, connectFromField, and startWith must all be specified.');
  }
  if (spec.maxDepth !== undefined) {
    if (typeof spec.maxDepth !== 'number') throw stageError(40100, `maxDepth must be numeric, found type: ${typeof spec.maxDepth}`);
    if (spec.maxDepth < 0) throw stageError(40101, `maxDepth requires a nonnegative argument, found: ${spec.maxDepth}`);
    if (!Number.isInteger(spec.maxDepth)) throw stageError(40102, `maxDepth could not be represented as a long long: ${spec.maxDepth}`);
  }
  if (spec.depthField !== undefined && typeof spec.depthField !== 'string') throw stageError(40103, 'expected string as argument for depthField');
  if (spec.restrictSearchWithMatch !== undefined && !isPlainObject(spec.restrictSearchWithMatch)) {
    throw stageError(40185, 'restrictSearchWithMatch must be an object');
  }
}

/** Frontier values of one value: an array's elements, a value itself, nothing for missing. */
function spread(value: unknown, into: unknown[]): void {
  if (Array.isArray(value)) into.push(...value);
  else if (value !== undefined) into.push(value);
}

export function graphLookupStage(coll: Lazy, spec: unknown, options: unknown): Lazy {
  validate(spec);
  const { from, connectFromField, connectToField, as, depthField } = spec as { from: string; connectFromField: string; connectToField: string; as: string; depthField?: string };
  const maxDepth = spec.maxDepth as number | undefined;
  const resolver = (options as { collectionResolver?: (name: string) => Doc[] }).collectionResolver;
  const docs = resolver ? resolver(from) : [];
  const restrict = spec.restrictSearchWithMatch ? new Query(spec.restrictSearchWithMatch as Doc, options) : undefined;

  // connectToField value -> documents, as the server's `{connectToField: {$in: [...]}, $exists: true}`
  // matches: array elements each, the whole array too; a document without the field is never reached.
  const index = new Map<string, number[]>();
  docs.forEach((doc, i) => {
    const values = pathValues(doc, connectToField);
    if (values.length === 0) return;
    const keys = new Set(values.map(keyOf));
    const whole = resolve(doc, connectToField);
    if (Array.isArray(whole)) keys.add(keyOf(whole));
    for (const k of keys) {
      const list = index.get(k);
      if (list) list.push(i);
      else index.set(k, [i]);
    }
  });

  return coll.map((obj) => {
    const reached = new Map<number, number>();
    const queried = new Set<string>();
    let frontier: unknown[] = [];
    spread(evalExpr(obj, spec.startWith, options), frontier);
    for (let depth = 0; frontier.length > 0 && (maxDepth === undefined || depth <= maxDepth); depth++) {
      const next: unknown[] = [];
      for (const value of frontier) {
        const key = keyOf(value);
        if (queried.has(key)) continue;
        queried.add(key);
        for (const i of index.get(key) ?? []) {
          if (reached.has(i) || (restrict && !restrict.test(docs[i]))) continue;
          reached.set(i, depth);
          spread(resolve(docs[i], connectFromField), next);
        }
      }
      frontier = next;
    }
    const found: Doc[] = [];
    for (const [i, depth] of reached) {
      const doc = cloneDeep(docs[i]);
      if (depthField) doc[depthField] = depth;
      found.push(doc);
    }
    return { ...obj, [as]: found };
  });
}
