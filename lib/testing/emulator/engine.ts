import { Aggregator, ProcessingMode, Query, update as mingoUpdate } from 'mingo';
import { serialize } from 'bson';
import { CommandError, toCommandError } from './errors';
import { HASH_LOOKUP_STAGE, NON_EMPTY, makeLookupOperator } from './lookup';
import { emulatorContext, filterContext } from './mingo-context';
import { checkStage } from './stage-checks';
import { CLONE_STAGE, cloneStage, copyOnWrite, facetStage } from './copy-on-write';
import { topK } from './top-k';
import { cloneDeep, isOperatorObject, isPlainObject, type Doc } from './values';

/** Resolves `from` of $lookup/$graphLookup/$unionWith to the visible documents of a collection. */
export type Resolver = (name: string) => Doc[];

type SortSpec = Record<string, 1 | -1>;
type MingoOptions = NonNullable<ConstructorParameters<typeof Aggregator>[1]>;
/* mingo's core Aggregator takes the context as given (the package entry would put its defaults first). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const CoreAggregator = (require('mingo/aggregator') as { Aggregator: typeof Aggregator }).Aggregator;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const CoreQuery = (require('mingo/query') as { Query: typeof Query }).Query;

const UPDATE_OPERATORS = new Set([
  '$set', '$unset', '$inc', '$mul', '$min', '$max', '$rename', '$currentDate', '$push', '$pull',
  '$pullAll', '$addToSet', '$pop', '$bit', '$setOnInsert',
]);
/** Stages whose output would be written back; mingo would write into the resolver's arrays. */
const UNSUPPORTED_STAGES = new Set(['$out', '$merge', '$changeStream', '$currentOp', '$indexStats', '$collStats', '$search', '$listSessions']);

function wrap<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw toCommandError(err);
  }
}

/** `variables`: the command's `let`, usable as `$$name` in `$expr`. */
export function compileFilter(filter: unknown, variables?: Doc): Query {
  if (filter !== undefined && filter !== null && !isPlainObject(filter)) throw new CommandError('TypeMismatch', 'filter must be an object');
  // The emulator's operator set: `$expr` compares as MongoDB's expressions do (missing is not null).
  return wrap(() => new CoreQuery((filter ?? {}) as Doc, { context: filterContext(), ...(variables ? { variables } : {}) } as never));
}

export function parseSort(sort: unknown): SortSpec | undefined {
  if (!isPlainObject(sort) || Object.keys(sort).length === 0) return undefined;
  const out: SortSpec = {};
  for (const [k, v] of Object.entries(sort)) {
    if (v === 1 || v === -1) out[k] = v;
    else throw new CommandError('BadValue', `$sort key ordering must be 1 (for ascending) or -1 (for descending)`);
  }
  return out;
}

export interface FindOptions {
  filter?: unknown;
  sort?: unknown;
  projection?: unknown;
  skip?: number;
  limit?: number;
  variables?: Doc;
}

/**
 * The find result as a lazy iterator over `source` (which may be a live view of the collection):
 * without a sort, documents are filtered, skipped, limited and projected as a cursor's batches ask
 * for them, so a first batch or a small limit costs what it returns, not the collection's size.
 * A sort still reads everything first (mingo sorts the whole input).
 */
export function findLazy(source: Iterable<Doc>, opts: FindOptions): Iterator<Doc> {
  const query = compileFilter(opts.filter, opts.variables);
  const sort = parseSort(opts.sort);
  const projection = isPlainObject(opts.projection) && Object.keys(opts.projection).length ? opts.projection : undefined;
  const sortKeys = sort ? Object.keys(sort) : [];
  if (sort && sortKeys.length === 1 && opts.limit) {
    // sort + limit on one field: keep the best skip + limit documents instead of sorting them all
    const skip = opts.skip ?? 0;
    const best = wrap(() => topK(source, (d) => query.test(d), sortKeys[0], sort[sortKeys[0]], skip + Math.abs(opts.limit as number)));
    if (best) {
      const page = best.slice(skip);
      return (projection ? wrap(() => query.find<Doc>(page, projection).all()) : page)[Symbol.iterator]();
    }
  }
  const cursor = wrap(() => {
    let c = query.find<Doc>(source, projection);
    if (sort) c = c.sort(sort);
    if (opts.skip) c = c.skip(opts.skip);
    return c;
  });
  // the limit is counted here: mingo's limit filters out the rest, reading the source to its end
  let left = opts.limit ? Math.abs(opts.limit) : Infinity;
  return {
    next: () => {
      if (left <= 0) return { done: true, value: undefined };
      const value = wrap(() => cursor.next());
      if (value === undefined) return { done: true, value: undefined };
      left--;
      return { done: false, value };
    },
  };
}

export function find(docs: Doc[], opts: FindOptions): Doc[] {
  const query = compileFilter(opts.filter, opts.variables);
  const sort = parseSort(opts.sort);
  const projection = isPlainObject(opts.projection) && Object.keys(opts.projection).length ? opts.projection : undefined;
  return wrap(() => {
    let cursor = query.find<Doc>(docs, projection);
    if (sort) cursor = cursor.sort(sort);
    if (opts.skip) cursor = cursor.skip(opts.skip);
    if (opts.limit) cursor = cursor.limit(Math.abs(opts.limit));
    return cursor.all();
  });
}

export function validatePipeline(pipeline: unknown): Doc[] {
  if (!Array.isArray(pipeline)) throw new CommandError('TypeMismatch', "'pipeline' option must be specified as an array");
  for (const stage of pipeline) {
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
      throw new CommandError('Location40324', 'A pipeline stage specification object must contain exactly one field.');
    }
    const name = Object.keys(stage)[0];
    if (UNSUPPORTED_STAGES.has(name)) throw new CommandError('NotImplemented', `${name} is not supported by the MongoDB emulator`);
  }
  return pipeline as Doc[];
}

/**
 * mingo's $count emits {n: 0} for empty input; MongoDB emits no document. Rewrite $count as
 * $group + $project everywhere (including $facet, $lookup and $unionWith sub-pipelines), and put
 * a copy before every stage that may change its input (copy-on-write.ts), at every level.
 */
function rewriteStages(stages: Doc[]): Doc[] {
  const out: Doc[] = [];
  for (const stage of stages) {
    const [name] = Object.keys(stage);
    const arg = stage[name];
    checkStage(name, arg);
    if (name === '$count' && typeof arg === 'string') {
      out.push({ $group: { _id: null, [arg]: { $sum: 1 } } }, { $project: { _id: 0, [arg]: 1 } });
    } else if (name === '$facet' && isPlainObject(arg)) {
      const facets: Doc = {};
      for (const [k, sub] of Object.entries(arg)) facets[k] = Array.isArray(sub) ? rewriteStages(validatePipeline(sub)) : sub;
      out.push({ $facet: facets });
    } else if (name === '$lookup' && isPlainObject(arg) && Array.isArray(arg.pipeline) && typeof arg.from === 'string') {
      // Evaluated by lookup.ts (hash join, or mingo's $lookup when the form is not recognised).
      out.push({ [HASH_LOOKUP_STAGE]: { ...arg, pipeline: rewriteStages(validatePipeline(arg.pipeline)) } });
    } else if (name === '$lookup' && isPlainObject(arg) && arg.pipeline === undefined && typeof arg.from === 'string' && typeof arg.localField === 'string' && typeof arg.foreignField === 'string') {
      // Equality form: lookup.ts returns the matches in the foreign collection's order, as MongoDB.
      out.push({ [HASH_LOOKUP_STAGE]: arg });
    } else if ((name === '$lookup' || name === '$unionWith') && isPlainObject(arg) && Array.isArray(arg.pipeline)) {
      out.push({ [name]: { ...arg, pipeline: rewriteStages(validatePipeline(arg.pipeline)) } });
    } else {
      out.push(stage);
    }
  }
  return copyOnWrite(joinFilters(out));
}

/** A lookup followed by `$match: {<as>: {$ne: []}}` drops the inputs that join nothing itself (lookup.ts NON_EMPTY). */
function joinFilters(stages: Doc[]): Doc[] {
  const out: Doc[] = [];
  for (let i = 0; i < stages.length; i++) {
    const lookup = stages[i][HASH_LOOKUP_STAGE] as Doc | undefined;
    const match = stages[i + 1]?.$match;
    const as = lookup?.as;
    if (lookup && typeof as === 'string' && !as.includes('.') && isPlainObject(match) && Object.keys(match).length === 1 && isNonEmptyTest(match[as])) {
      out.push({ [HASH_LOOKUP_STAGE]: { ...lookup, [NON_EMPTY]: true } });
      i++;
    } else {
      out.push(stages[i]);
    }
  }
  return out;
}

const isNonEmptyTest = (v: unknown): boolean => isPlainObject(v) && Object.keys(v).length === 1 && Array.isArray(v.$ne) && v.$ne.length === 0;

export function aggregate(docs: Doc[], pipeline: unknown, resolver: Resolver, variables?: Doc): Doc[] {
  const stages = rewriteStages(validatePipeline(pipeline));
  const options: MingoOptions = {
    // Stored documents are never copied wholesale: rewriteStages put a copy before every stage that
    // may change its input (copy-on-write.ts), so inputs and foreign collections are read in place.
    processingMode: ProcessingMode.CLONE_OFF,
    collectionResolver: resolver,
    variables,
    context: emulatorContext({ [HASH_LOOKUP_STAGE]: makeLookupOperator(resolver), [CLONE_STAGE]: cloneStage, $facet: facetStage }) as never,
  };
  return wrap(() => new CoreAggregator(stages, options).run(docs) as Doc[]);
}

export function isPipelineUpdate(u: unknown): u is Doc[] {
  return Array.isArray(u);
}

export function isOperatorUpdate(u: unknown): u is Doc {
  return isPlainObject(u) && Object.keys(u).length > 0 && Object.keys(u)[0].startsWith('$');
}

export function validateUpdate(u: unknown): void {
  if (isPipelineUpdate(u)) {
    validatePipeline(u);
    return;
  }
  if (!isPlainObject(u)) throw new CommandError('FailedToParse', 'Update argument must be either an object or an array');
  if (!isOperatorUpdate(u)) {
    for (const k of Object.keys(u)) if (k.startsWith('$')) throw new CommandError('BadValue', `The dollar ($) prefixed field '${k}' in '${k}' is not allowed in a replacement document`);
    return;
  }
  for (const [op, arg] of Object.entries(u)) {
    if (!op.startsWith('$')) throw new CommandError('FailedToParse', `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`);
    if (!UPDATE_OPERATORS.has(op)) throw new CommandError('FailedToParse', `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`);
    if (!isPlainObject(arg)) throw new CommandError('FailedToParse', `Modifiers operate on fields but we found type ${typeof arg} instead.`);
  }
}

function sameBson(a: Doc, b: Doc): boolean {
  return Buffer.from(serialize(a)).equals(serialize(b));
}

/**
 * Apply an update (operators, replacement, or pipeline) to a copy of `doc`.
 * `filter` feeds the positional `$` operator; `isInsert` enables $setOnInsert.
 */
export function applyUpdate(doc: Doc, u: unknown, opts: { arrayFilters?: Doc[]; filter?: Doc; isInsert?: boolean; resolver?: Resolver; variables?: Doc }): { doc: Doc; modified: boolean } {
  if (isPipelineUpdate(u)) {
    // a copy: the result may share values with `doc` (copy-on-write) and becomes a stored document
    const out = cloneDeep(aggregate([doc], u, opts.resolver ?? (() => []), opts.variables)[0] ?? {});
    if (out._id === undefined) out._id = doc._id;
    checkIdUnchanged(doc, out);
    return { doc: out, modified: !sameBson(doc, out) };
  }
  if (!isOperatorUpdate(u)) {
    const out: Doc = doc._id !== undefined ? { _id: doc._id } : {};
    for (const [k, v] of Object.entries(u as Doc)) if (k !== '_id' || doc._id === undefined) out[k] = cloneDeep(v);
    if ((u as Doc)._id !== undefined) checkIdUnchanged(doc, { ...out, _id: (u as Doc)._id });
    return { doc: out, modified: !sameBson(doc, out) };
  }
  const next = cloneDeep(doc);
  const modifier: Doc = {};
  for (const [op, arg] of Object.entries(u)) {
    if (op === '$setOnInsert') {
      if (opts.isInsert) modifier.$set = { ...((modifier.$set as Doc) ?? {}), ...(arg as Doc) };
    } else if (op === '$set') {
      modifier.$set = { ...((modifier.$set as Doc) ?? {}), ...cloneDeep(arg as Doc) };
    } else {
      modifier[op] = cloneDeep(arg);
    }
  }
  const changed = wrap(() => mingoUpdate(next, modifier, opts.arrayFilters, opts.filter, { cloneMode: 'deep' }));
  checkIdUnchanged(doc, next);
  return { doc: next, modified: changed.length > 0 };
}

function checkIdUnchanged(before: Doc, after: Doc): void {
  if (before._id === undefined) return;
  if (!sameBson({ v: before._id }, { v: after._id })) {
    throw new CommandError('ImmutableField', "Performing an update on the path '_id' would modify the immutable field '_id'");
  }
}

/** The document an upsert starts from: equality conditions of the filter (MongoDB's rules, simplified). */
export function upsertSeed(filter: Doc): Doc {
  const seed: Doc = {};
  const collect = (f: Doc): void => {
    for (const [k, v] of Object.entries(f)) {
      if (k === '$and' && Array.isArray(v)) {
        for (const sub of v) if (isPlainObject(sub)) collect(sub);
      } else if (k.startsWith('$')) {
        continue;
      } else if (isOperatorObject(v)) {
        if ('$eq' in v) seed[k] = cloneDeep(v.$eq);
      } else if (!(v instanceof RegExp)) {
        seed[k] = cloneDeep(v);
      }
    }
  };
  collect(filter);
  // Dotted keys become nested documents, as the server does for {'a.b': 1}.
  const out: Doc = {};
  for (const [path, value] of Object.entries(seed)) {
    const parts = path.split('.');
    let target = out;
    for (const part of parts.slice(0, -1)) {
      if (!isPlainObject(target[part])) target[part] = {};
      target = target[part] as Doc;
    }
    target[parts[parts.length - 1]] = value;
  }
  return out;
}
