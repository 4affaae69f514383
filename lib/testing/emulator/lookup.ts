/**
 * Hash-join evaluation of `$lookup`, registered as the internal stage `$__emuLookup` (engine.ts
 * rewrites every `$lookup` that has a sub-pipeline into it).
 *
 * - let + pipeline whose first stage is a `$match` requiring `$expr: {$eq: ['$field', '$$var']}`
 *   (either operand order, also inside `$and`) or `$expr: {$in: ['$field', '$$var']}`: the foreign
 *   documents are indexed by the field once per aggregate command; for each input document only the
 *   candidates from the index (plus every document whose field value is not a plain scalar) run the
 *   full original sub-pipeline. The candidates are a superset of the documents the `$match` accepts
 *   and keep collection order, so results are exactly mingo's.
 * - localField + foreignField, with or without a pipeline: the pipeline runs on the documents whose
 *   foreignField equals the localField value (mingo ran it on the whole collection), in the foreign
 *   collection's order (mingo ordered the matches by the localField array's elements).
 * - anything else is delegated to mingo's own `$lookup`.
 *
 * Speed (the index use is the planner's, by-id.ts): when the probed field has an index and the
 * command reads committed state, the candidates come from the collection's index instead of a copy
 * and hash of the whole foreign collection per command; and a deterministic sub-pipeline runs once
 * per distinct `let` values within a stage (the library's joins repeat the same category for
 * hundreds of products), every input sharing the memoised result (copy-on-write.ts: a stage that
 * would change it works on a copy). A lookup followed by `$match: {<as>: {$ne: []}}` drops the
 * inputs that join nothing itself (NON_EMPTY).
 */
import { keyOf, type Doc } from './values';
import { fieldPath, isPlain, isScalar, probeOf, type Probe } from './lookup-probe';
import { repeatable, strictKey } from './lookup-memo-key';

export { probeOf } from './lookup-probe';

/* mingo's subpath modules: not reachable with moduleResolution "node", loaded at runtime. */
/* eslint-disable @typescript-eslint/no-require-imports */
const mingoCore = require('mingo/core') as { evalExpr: (obj: unknown, expr: unknown, options: unknown) => unknown };
const mingoUtil = require('mingo/util') as {
  resolve: (obj: unknown, path: string) => unknown;
  ensureArray: (v: unknown) => unknown[];
  HashMap: { init: () => Map<unknown, number[]> };
};
const mingoPipeline = require('mingo/operators/pipeline') as { $lookup: PipelineOp };
const mingoAggregator = require('mingo/aggregator') as { Aggregator: new (pipeline: Doc[], options: unknown) => { run: (docs: Doc[], options: unknown) => Doc[] } };
/* eslint-enable @typescript-eslint/no-require-imports */

interface Lazy {
  map(fn: (o: Doc) => Doc): Lazy;
  filter(fn: (o: Doc) => boolean): Lazy;
}
interface ComputeOptionsLike {
  update(locals: { root: null; variables: unknown }): ComputeOptionsLike;
}
type PipelineOp = (coll: Lazy, expr: Doc, options: unknown) => Lazy;

export const HASH_LOOKUP_STAGE = '$__emuLookup';
/**
 * Set by engine.ts on a lookup directly followed by `$match: {<as>: {$ne: []}}` (the library's
 * filter on a relation): an input that joins nothing is dropped here, without building its output
 * document. The match is exactly "joined something": `as` holds an array of documents, none of which
 * can equal [].
 */
export const NON_EMPTY = '__emuNonEmpty';
/** What an indexed join returns for an input it drops (filtered out right after). */
const DROPPED: Doc = {};

/** Documents of one foreign collection (stored ones, read only) and its field indexes, shared by one aggregate command. */
interface Foreign {
  docs: Doc[];
  indexes: Map<string, FieldIndex>;
}
interface FieldIndex {
  /** keyOf(value) -> positions, for plain scalar values. */
  byKey: Map<string, number[]>;
  /** Positions of documents whose value is not a plain scalar (arrays, documents, Long, ...): always candidates. */
  other: number[];
}

function mergePositions(lists: number[][]): number[] {
  const nonEmpty = lists.filter((l) => l.length > 0);
  if (nonEmpty.length === 0) return [];
  if (nonEmpty.length === 1) return nonEmpty[0];
  return [...new Set(nonEmpty.flat())].sort((x, y) => x - y);
}

/** Visible documents of a collection; `probe`, when given, reads an indexed path (by-id.ts's indexProbe). */
export interface LookupSource {
  (name: string): Doc[];
  probe?: (name: string, path: string) => ((values: unknown[]) => Doc[]) | undefined;
}


/**
 * The `$__emuLookup` stage operator. `resolve` returns the visible documents of a collection; they
 * are read in place and joined uncopied: the pipelines are copy-on-write (copy-on-write.ts), so a
 * later stage that changes documents works on copies.
 */
export function makeLookupOperator(resolve: LookupSource): PipelineOp {
  const foreigns = new Map<string, Foreign>();
  const foreign = (name: string): Foreign => {
    let f = foreigns.get(name);
    if (!f) {
      f = { docs: resolve(name), indexes: new Map() };
      foreigns.set(name, f);
    }
    return f;
  };

  const join = (coll: Lazy, spec: Doc, options: unknown, dropEmpty: boolean): Lazy => {
    const concise = typeof spec.localField === 'string' && typeof spec.foreignField === 'string';
    const pipeline = spec.pipeline ?? (concise ? [] : undefined);
    if (typeof spec.from !== 'string' || typeof spec.as !== 'string' || !Array.isArray(pipeline)) return mingoPipeline.$lookup(coll, spec, options);
    const probe = concise ? undefined : probeOf(spec);
    if (!concise && !probe) return mingoPipeline.$lookup(coll, spec, options);

    const as = spec.as;
    const agg = new mingoAggregator.Aggregator(pipeline as Doc[], options);
    const initOpts = (options as { constructor: { init: (o: unknown) => ComputeOptionsLike } }).constructor.init;
    const opts = initOpts(options);
    if (probe) {
      const fast = resolve.probe?.(spec.from, probe.field);
      if (fast) return indexedJoin(coll, spec, probe, fast, agg, opts, options, () => foreign(spec.from as string).docs, dropEmpty);
    }
    const target = foreign(spec.from);
    const docs = target.docs;
    const all = docs.map((_, i) => i);

    const runOn = (obj: Doc, positions: number[]): Doc[] => {
      // Equality form: the matches themselves (shared: one foreign document may join many inputs).
      if (pipeline.length === 0 && spec.let === undefined) return positions.map((i) => docs[i]);
      const variables = mingoCore.evalExpr(obj, spec.let, options);
      opts.update({ root: null, variables });
      return agg.run(positions.map((i) => docs[i]), opts);
    };

    if (concise) {
      // MongoDB: foreignField values (array elements, missing as null) equal to the localField value
      // or one of its elements (missing as null); the pipeline runs on those documents.
      const localField = spec.localField as string;
      const foreignField = spec.foreignField as string;
      const map = mingoUtil.HashMap.init();
      docs.forEach((doc, i) => {
        for (const v of mingoUtil.ensureArray(mingoUtil.resolve(doc, foreignField) ?? null)) {
          const xs = map.get(v);
          if (xs) {
            if (xs[xs.length - 1] !== i) xs.push(i);
          } else map.set(v, [i]);
        }
      });
      return coll.map((obj) => {
        const local = mingoUtil.resolve(obj, localField) ?? null;
        const positions = Array.isArray(local) ? mergePositions(local.map((v) => map.get(v) ?? [])) : (map.get(local) ?? []);
        return { ...obj, [as]: runOn(obj, positions) };
      });
    }

    const p = probe as Probe;
    let index = target.indexes.get(p.field);
    if (!index) {
      const built: FieldIndex = { byKey: new Map(), other: [] };
      docs.forEach((doc, i) => {
        // What '$field' evaluates to in the $match's $expr, where the root is the document.
        const v = mingoUtil.resolve(doc, p.field);
        if (!isScalar(v)) {
          built.other.push(i);
          return;
        }
        const k = keyOf(v);
        const xs = built.byKey.get(k);
        if (xs) xs.push(i);
        else built.byKey.set(k, [i]);
      });
      index = built;
      target.indexes.set(p.field, built);
    }
    const idx = index;
    const candidates = (value: unknown): number[] => {
      if (p.op === '$eq') {
        if (!isScalar(value)) return all;
        return mergePositions([idx.byKey.get(keyOf(value)) ?? [], idx.other]);
      }
      if (!Array.isArray(value) || !value.every(isScalar)) return all;
      return mergePositions([...value.map((v) => idx.byKey.get(keyOf(v)) ?? []), idx.other]);
    };
    return coll.map((obj) => {
      const variables = mingoCore.evalExpr(obj, spec.let, options) as Doc | undefined;
      const value = isPlain(variables) ? variables[p.variable] : undefined;
      const positions = isPlain(variables) ? candidates(value) : all;
      opts.update({ root: null, variables });
      // Run even on no candidates: later stages ($unionWith, ...) may still produce documents.
      return { ...obj, [as]: agg.run(positions.map((i) => docs[i]), opts) };
    });
  };

  return (coll, expr, options) => {
    if (!expr[NON_EMPTY]) return join(coll, expr, options, false);
    const { [NON_EMPTY]: _, ...spec } = expr;
    const as = spec.as as string;
    return join(coll, spec, options, true).filter((d) => d !== DROPPED && Array.isArray(d[as]) && (d[as] as unknown[]).length > 0);
  };
}

/**
 * `let` made only of field paths (`{k: '$category_id'}`, the library's joins) read directly, as
 * mingo's evalExpr does with the input document as root: the same values without building
 * expression options per input document. undefined for any other `let` (or a rooted context).
 */
function plainLet(spec: unknown, options: unknown): ((obj: Doc) => Doc) | undefined {
  if (!isPlain(spec)) return undefined;
  const local = (options as { local?: { root?: unknown } } | undefined)?.local;
  if (local && local.root !== undefined && local.root !== null) return undefined;
  const fields: Array<[string, string]> = [];
  for (const [name, expr] of Object.entries(spec)) {
    const path = fieldPath(expr);
    if (path === undefined || path.startsWith('$')) return undefined;
    fields.push([name, path]);
  }
  return (obj) => {
    const out: Doc = {};
    for (const [name, path] of fields) out[name] = mingoUtil.resolve(obj, path);
    return out;
  };
}

/** `{...obj, [as]: joined}`: Object.assign is several times faster than a spread with a computed key. */
function joinedTo(obj: Doc, as: string, joined: Doc[]): Doc {
  return Object.assign({}, obj, { [as]: joined });
}

/**
 * The let + pipeline join of `probe` over an index: each input's candidates are read from the index
 * (stored documents, read in place by the copy-on-write sub-pipeline), and with a repeatable
 * pipeline one run per distinct `let` values serves every input (the same result array, shared).
 */
function indexedJoin(
  coll: Lazy,
  spec: Doc,
  probe: Probe,
  fast: (values: unknown[]) => Doc[],
  agg: { run: (docs: Doc[], options: unknown) => Doc[] },
  opts: ComputeOptionsLike,
  options: unknown,
  everything: () => Doc[],
  dropEmpty: boolean,
): Lazy {
  const candidates = (value: unknown): Doc[] => {
    if (probe.op === '$eq') return isScalar(value) ? fast([value]) : everything();
    return Array.isArray(value) && value.every(isScalar) ? fast(value) : everything();
  };
  const memo = repeatable(spec.pipeline) ? new Map<string, Doc[]>() : undefined;
  const as = spec.as as string;
  const letOf = plainLet(spec.let, options);
  // one field-path variable (the library's joins): its value's key alone tells the runs apart
  const names = letOf ? Object.keys(spec.let as Doc) : [];
  const memoKey = names.length === 1 ? (variables: Doc): string => strictKey(variables[names[0]]) : strictKey;
  return coll.map((obj) => {
    const variables = letOf ? letOf(obj) : (mingoCore.evalExpr(obj, spec.let, options) as Doc | undefined);
    const key = memo ? memoKey(variables as Doc) : undefined;
    const known = key !== undefined ? memo?.get(key) : undefined;
    if (known) return dropEmpty && known.length === 0 ? DROPPED : joinedTo(obj, as, known);
    const docs = isPlain(variables) ? candidates(variables[probe.variable]) : everything();
    opts.update({ root: null, variables });
    // Run even on no candidates: later stages ($unionWith, ...) may still produce documents.
    const out = agg.run(docs, opts);
    if (key !== undefined && memo) memo.set(key, out);
    return dropEmpty && out.length === 0 ? DROPPED : joinedTo(obj, as, out);
  });
}
