import { CommandError } from '../errors';
import { aggregate, compileFilter, findLazy } from '../engine';
import { isPlainObject, keyOf, pathValues, type Doc } from '../values';
import { byId, scanSource, visibleCount } from '../by-id';
import { collectionName, optionalNumber, resolverFor, type CommandContext, type Handler } from './context';
import { checkHint, letVariables } from './options';
import { parseCollation } from '../collation';
import { collatedAggregate, collatedCount, collatedDistinctReply, collatedFindDocs } from './collated';
import { localSessions } from './sessions';
import { runWriteStage, splitWriteStage } from './write-stages';

function ns(ctx: CommandContext, coll: string): string {
  return `${ctx.db}.${coll}`;
}

const findCmd: Handler = (ctx) => {
  const name = collectionName(ctx, 'find');
  const { cmd } = ctx;
  const coll = ctx.state.store.get(ctx.db, name);
  const limit = optionalNumber(cmd.limit, 'limit');
  const collation = parseCollation(cmd.collation);
  checkHint(coll, cmd.hint);
  const variables = letVariables(cmd.let, 'find');
  if (collation) {
    const singleBatch = cmd.singleBatch === true || (limit !== undefined && limit < 0);
    const docs = collatedFindDocs(ctx, coll, collation, variables);
    return ctx.state.cursors.first(ns(ctx, name), docs, { batchSize: optionalNumber(cmd.batchSize, 'batchSize'), singleBatch, sessionKey: ctx.sessionKey });
  }
  const picked = byId(ctx.scope, coll, cmd.filter);
  // lazy: batches are computed as the first reply and getMore ask for them (engine.ts findLazy)
  const docs = findLazy(picked ? picked.docs : scanSource(ctx.scope, coll), {
    variables,
    filter: picked ? picked.rest : cmd.filter,
    sort: cmd.sort,
    projection: cmd.projection,
    skip: optionalNumber(cmd.skip, 'skip'),
    limit,
  });
  const batchSize = optionalNumber(cmd.batchSize, 'batchSize');
  const singleBatch = cmd.singleBatch === true || (limit !== undefined && limit < 0);
  // A positive limit smaller than the batch closes the cursor after the first batch, as on the server.
  return ctx.state.cursors.first(ns(ctx, name), docs, { batchSize, singleBatch, sessionKey: ctx.sessionKey });
};

const getMore: Handler = (ctx) => {
  const id = Number(ctx.cmd.getMore);
  const name = collectionName(ctx, 'collection');
  return ctx.state.cursors.more(ns(ctx, name), id, optionalNumber(ctx.cmd.batchSize, 'batchSize'));
};

const killCursors: Handler = (ctx) => {
  const ids = Array.isArray(ctx.cmd.cursors) ? ctx.cmd.cursors.map((c) => Number(c)) : [];
  return ctx.state.cursors.kill(ids);
};

const aggregateCmd: Handler = (ctx) => {
  const { cmd } = ctx;
  const dbLevel = cmd.aggregate === 1;
  const name = dbLevel ? '$cmd.aggregate' : collectionName(ctx, 'aggregate');
  if (!dbLevel && cmd.cursor === undefined && cmd.explain !== true) {
    throw new CommandError('FailedToParse', "The 'cursor' option is required, except for aggregate with the explain argument");
  }
  if (cmd.explain === true) throw new CommandError('NotImplemented', 'explain is not supported by the MongoDB emulator');
  const coll = dbLevel ? undefined : ctx.state.store.get(ctx.db, name);
  const collation = parseCollation(cmd.collation);
  checkHint(coll, cmd.hint);
  const variables = letVariables(cmd.let, 'aggregate');
  if (collation) {
    const docs = collatedAggregate(ctx, coll, collation, variables);
    const options = isPlainObject(cmd.cursor) ? cmd.cursor : {};
    return ctx.state.cursors.first(ns(ctx, name), docs, { batchSize: optionalNumber(options.batchSize, 'batchSize'), sessionKey: ctx.sessionKey });
  }
  // listed only when no index picks the leading $match's candidates
  let source: Doc[] | undefined = dbLevel ? [] : undefined;
  let pipeline = cmd.pipeline;
  const firstStage = Array.isArray(pipeline) && isPlainObject(pipeline[0]) ? Object.keys(pipeline[0])[0] : undefined;
  if (firstStage === '$listSearchIndexes') throw new CommandError('Location6047401', '$listSearchIndexes stage is only allowed on MongoDB Atlas');
  if (firstStage === '$listLocalSessions' && Array.isArray(pipeline)) {
    if (!dbLevel) throw new CommandError('InvalidNamespace', '$listLocalSessions must be run against the database with {aggregate: 1}');
    source = localSessions(ctx.state);
    pipeline = pipeline.slice(1);
  }
  // a leading $match that pins _id reads those documents by key (the server's _id index)
  const first = Array.isArray(pipeline) && isPlainObject(pipeline[0]) && Object.keys(pipeline[0]).length === 1 ? (pipeline[0] as Doc).$match : undefined;
  const picked = first !== undefined ? byId(ctx.scope, coll, first) : null;
  if (picked && Array.isArray(pipeline)) {
    source = picked.docs;
    pipeline = Object.keys(picked.rest).length ? [{ $match: picked.rest }, ...pipeline.slice(1)] : pipeline.slice(1);
  }
  const split = splitWriteStage(pipeline);
  let out = aggregate(source ?? ctx.scope.list(coll), split.pipeline, resolverFor(ctx), variables);
  if (split.stage) {
    runWriteStage(ctx, split.stage, out);
    out = [];
  }
  const cursor = isPlainObject(cmd.cursor) ? cmd.cursor : {};
  return ctx.state.cursors.first(ns(ctx, name), out, { batchSize: optionalNumber(cursor.batchSize, 'batchSize'), sessionKey: ctx.sessionKey });
};

const count: Handler = (ctx) => {
  const name = collectionName(ctx, 'count');
  const { cmd } = ctx;
  const collation = parseCollation(cmd.collation);
  checkHint(ctx.state.store.get(ctx.db, name), cmd.hint);
  if (collation) return collatedCount(ctx, ctx.state.store.get(ctx.db, name), collation);
  const coll = ctx.state.store.get(ctx.db, name);
  // no query: the collection's size; an indexed query: only the index's candidates are tested
  const everything = !isPlainObject(cmd.query) || Object.keys(cmd.query).length === 0;
  const size = everything ? visibleCount(ctx.scope, coll) : undefined;
  const picked = everything ? null : byId(ctx.scope, coll, cmd.query);
  const query = compileFilter(picked ? picked.rest : cmd.query);
  let n = size ?? (picked ? picked.docs : ctx.scope.list(coll)).filter((d) => query.test(d)).length;
  const skip = optionalNumber(cmd.skip, 'skip') ?? 0;
  const limit = Math.abs(optionalNumber(cmd.limit, 'limit') ?? 0);
  n = Math.max(0, n - skip);
  if (limit) n = Math.min(n, limit);
  return { n, ok: 1 };
};

const distinct: Handler = (ctx) => {
  const name = collectionName(ctx, 'distinct');
  const key = ctx.cmd.key;
  if (typeof key !== 'string') throw new CommandError('TypeMismatch', "BSON field 'distinct.key' is missing but a required field");
  const collation = parseCollation(ctx.cmd.collation);
  checkHint(ctx.state.store.get(ctx.db, name), ctx.cmd.hint);
  if (collation) return collatedDistinctReply(ctx, ctx.state.store.get(ctx.db, name), key, collation);
  const query = compileFilter(ctx.cmd.query);
  const seen = new Map<string, unknown>();
  for (const d of ctx.scope.list(ctx.state.store.get(ctx.db, name))) {
    if (!query.test(d)) continue;
    // Array values contribute each element, like the server's distinct.
    for (const v of pathValues(d, key)) {
      const k = keyOf(v);
      if (!seen.has(k)) seen.set(k, v);
    }
  }
  return { values: Array.from(seen.values()), ok: 1 };
};

export const readCommands: Record<string, Handler> = {
  find: findCmd,
  getMore,
  killCursors,
  aggregate: aggregateCmd,
  count,
  distinct,
};

export type { Doc };
