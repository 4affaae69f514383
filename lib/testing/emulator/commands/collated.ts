import { CommandError } from '../errors';
import { aggregate, find } from '../engine';
import { collatedDistinct, collatedFilter, collatedSort, type Collation } from '../collation';
import type { Collection } from '../store';
import { isPlainObject, pathValues, type Doc } from '../values';
import { optionalNumber, resolverFor, type CommandContext } from './context';
import { runWriteStage, splitWriteStage } from './write-stages';

/**
 * find, count, distinct and aggregate under a non-simple collation (collation.ts): documents are
 * selected through collation keys and sorted with ICU; the plain paths stay untouched.
 */

/** The selected documents, sorted and sliced; `projection` is applied by the caller's find. */
export function collatedSelect(docs: Doc[], filter: unknown, c: Collation, opts: { sort?: unknown; skip?: number; limit?: number; variables?: Doc }): Doc[] {
  let out = collatedSort(collatedFilter(docs, filter, c, opts.variables), opts.sort, c);
  if (opts.skip) out = out.slice(opts.skip);
  if (opts.limit) out = out.slice(0, Math.abs(opts.limit));
  return out;
}

export function collatedFindDocs(ctx: CommandContext, coll: Collection | undefined, c: Collation, variables: Doc | undefined): Doc[] {
  const { cmd } = ctx;
  const selected = collatedSelect(ctx.scope.list(coll), cmd.filter, c, {
    sort: cmd.sort,
    skip: optionalNumber(cmd.skip, 'skip'),
    limit: optionalNumber(cmd.limit, 'limit'),
    variables,
  });
  return find(selected, { projection: cmd.projection });
}

export function collatedCount(ctx: CommandContext, coll: Collection | undefined, c: Collation): Doc {
  const skip = optionalNumber(ctx.cmd.skip, 'skip') ?? 0;
  const limit = Math.abs(optionalNumber(ctx.cmd.limit, 'limit') ?? 0);
  let n = Math.max(0, collatedFilter(ctx.scope.list(coll), ctx.cmd.query, c).length - skip);
  if (limit) n = Math.min(n, limit);
  return { n, ok: 1 };
}

export function collatedDistinctReply(ctx: CommandContext, coll: Collection | undefined, key: string, c: Collation): Doc {
  const values: unknown[] = [];
  for (const d of collatedFilter(ctx.scope.list(coll), ctx.cmd.query, c)) values.push(...pathValues(d, key));
  return { values: collatedDistinct(values, c), ok: 1 };
}

/** Stages that compare no strings, so they run unchanged after the collated $match stages. */
const NEUTRAL = new Set(['$project', '$addFields', '$set', '$unset', '$limit', '$skip', '$count', '$replaceRoot', '$replaceWith']);

/** A $group that compares no strings: a constant _id, accumulators that do not order values (countDocuments' shape). */
function neutralGroup(stage: Doc): boolean {
  const spec = stage.$group;
  if (!isPlainObject(spec) || !(spec._id === null || typeof spec._id === 'number')) return false;
  return Object.entries(spec).every(([k, v]) => k === '_id' || (isPlainObject(v) && ['$sum', '$count', '$first', '$last', '$push'].includes(Object.keys(v)[0])));
}

/** Leading $match stages select through the collation, a $sort sorts with it; other comparing stages are refused. */
export function collatedAggregate(ctx: CommandContext, coll: Collection | undefined, c: Collation, variables: Doc | undefined): Doc[] {
  const split = splitWriteStage(ctx.cmd.pipeline);
  const stages = Array.isArray(split.pipeline) ? (split.pipeline as Doc[]) : [];
  let docs = ctx.scope.list(coll);
  let i = 0;
  for (; i < stages.length; i++) {
    const stage = stages[i];
    if (!isPlainObject(stage)) break;
    if ('$match' in stage) docs = collatedFilter(docs, stage.$match, c, variables);
    else if ('$sort' in stage) docs = collatedSort(docs, stage.$sort, c);
    else break;
  }
  const rest = stages.slice(i);
  const comparing = rest.filter((s) => !NEUTRAL.has(Object.keys(s)[0]) && !neutralGroup(s)).map((s) => Object.keys(s)[0])[0];
  if (comparing) throw new CommandError('NotImplemented', `collation ${JSON.stringify(c.spec)} with the stage ${comparing} (after the leading $match/$sort stages) is not supported by the MongoDB emulator`);
  let out = rest.length ? aggregate(docs, rest, resolverFor(ctx), variables) : docs;
  if (split.stage) {
    runWriteStage(ctx, split.stage, out);
    out = [];
  }
  return out;
}
