import { CommandError } from '../errors';
import { aggregate, compileFilter } from '../engine';
import { findStages, isView, notOnView, viewDocuments } from '../views';
import { isPlainObject, keyOf, pathValues, type Doc } from '../values';
import { optionalNumber, resolverFor, type CommandContext, type Handler } from './context';
import { letVariables } from './options';
import { runWriteStage, splitWriteStage } from './write-stages';

/** The command's target collection field, per command. */
const TARGET: Record<string, string> = {
  find: 'find', aggregate: 'aggregate', count: 'count', distinct: 'distinct',
  insert: 'insert', update: 'update', delete: 'delete', findAndModify: 'findAndModify', findandmodify: 'findandmodify', renameCollection: 'renameCollection',
  createIndexes: 'createIndexes', dropIndexes: 'dropIndexes', listIndexes: 'listIndexes',
};

const WRITES = new Set(['renameCollection', 'insert', 'update', 'delete', 'findAndModify', 'findandmodify', 'createIndexes', 'dropIndexes', 'listIndexes']);

function viewDocs(ctx: CommandContext, name: string): Doc[] {
  const coll = ctx.state.store.get(ctx.db, name);
  if (!coll) return [];
  return viewDocuments(ctx.state.store, ctx.scope, ctx.db, coll, resolverFor(ctx));
}

/** find, aggregate, count and distinct on a view run over the view's documents. */
function readView(command: string, ctx: CommandContext, name: string): Doc {
  const { cmd } = ctx;
  const ns = `${ctx.db}.${name}`;
  const docs = viewDocs(ctx, name);
  if (cmd.collation !== undefined) throw new CommandError('NotImplemented', 'a collation on a view is not supported by the MongoDB emulator');
  if (cmd.hint !== undefined) throw new CommandError('NotImplemented', 'a hint on a view is not supported by the MongoDB emulator');
  const variables = letVariables(cmd.let, command);
  if (command === 'find') {
    const limit = optionalNumber(cmd.limit, 'limit');
    const out = aggregate(docs, findStages(cmd), resolverFor(ctx), variables);
    const singleBatch = cmd.singleBatch === true || (limit !== undefined && limit < 0);
    return ctx.state.cursors.first(ns, out, { batchSize: optionalNumber(cmd.batchSize, 'batchSize'), singleBatch, sessionKey: ctx.sessionKey });
  }
  if (command === 'aggregate') {
    const split = splitWriteStage(cmd.pipeline);
    let out = aggregate(docs, split.pipeline, resolverFor(ctx), variables);
    if (split.stage) {
      runWriteStage(ctx, split.stage, out);
      out = [];
    }
    const cursor = isPlainObject(cmd.cursor) ? cmd.cursor : {};
    return ctx.state.cursors.first(ns, out, { batchSize: optionalNumber(cursor.batchSize, 'batchSize'), sessionKey: ctx.sessionKey });
  }
  const query = compileFilter(cmd.query);
  const matching = docs.filter((d) => query.test(d));
  if (command === 'count') {
    const skip = optionalNumber(cmd.skip, 'skip') ?? 0;
    const limit = Math.abs(optionalNumber(cmd.limit, 'limit') ?? 0);
    let n = Math.max(0, matching.length - skip);
    if (limit) n = Math.min(n, limit);
    return { n, ok: 1 };
  }
  const seen = new Map<string, unknown>();
  for (const d of matching) for (const v of pathValues(d, String(cmd.key))) if (!seen.has(keyOf(v))) seen.set(keyOf(v), v);
  return { values: Array.from(seen.values()), ok: 1 };
}

/** Commands on a view: reads go through the view, writes and index commands are refused (166). */
export function withViews(handlers: Record<string, Handler>): Record<string, Handler> {
  const out: Record<string, Handler> = { ...handlers };
  for (const [command, field] of Object.entries(TARGET)) {
    const handler = handlers[command];
    if (!handler) continue;
    out[command] = (ctx) => {
      let name = ctx.cmd[field];
      let db = ctx.db;
      // renameCollection names the source as "db.collection"
      if (command === 'renameCollection' && typeof name === 'string') [db, name] = [name.split('.')[0], name.split('.').slice(1).join('.')];
      const coll = typeof name === 'string' ? ctx.state.store.get(db, name) : undefined;
      if (!coll || !isView(coll)) return handler(ctx);
      if (WRITES.has(command)) notOnView(coll, command);
      return readView(command === 'findandmodify' ? 'findAndModify' : command, ctx, String(name));
    };
  }
  return out;
}
