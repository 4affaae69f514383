import { ObjectId } from 'bson';
import { CommandError, toCommandError } from '../errors';
import { applyUpdate, find, isOperatorUpdate, isPipelineUpdate, upsertSeed, validateUpdate } from '../engine';
import { idKeyOf, type Collection } from '../store';
import { isPlainObject, type Doc } from '../values';
import { byId } from '../by-id';
import { collectionName, resolverFor, type CommandContext, type Handler } from './context';
import { checkHint, letVariables } from './options';
import { parseCollation, type Collation } from '../collation';
import { collatedSelect } from './collated';
import { validateDocument } from '../validation';
import { checkPrepareUnique } from '../prepare-unique';

/** The documents a write statement's filter selects: by key when it pins _id, else a scan. */
function findIn(ctx: CommandContext, coll: Collection | undefined, filter: unknown, options: { sort?: unknown; limit?: number; variables?: Doc; collation?: Collation }): Doc[] {
  if (options.collation) return collatedSelect(ctx.scope.list(coll), filter, options.collation, options);
  const picked = options.variables ? null : byId(ctx.scope, coll, filter);
  return find(picked ? picked.docs : ctx.scope.list(coll), { filter: picked ? picked.rest : filter, ...options });
}

/** The filter, for updates using the positional `$` operator (the only ones that need it). */
function positional(filter: Doc, u: unknown): Doc | undefined {
  return isOperatorUpdate(u) && /\.\$(\.|"|$)/.test(JSON.stringify(Object.values(u).map((v) => Object.keys(v as Doc)))) ? filter : undefined;
}

/** `_id` first, generated when absent, as the server stores it. */
function withId(doc: Doc): Doc {
  if (doc._id === undefined) return { _id: new ObjectId(), ...doc };
  if (Object.keys(doc)[0] === '_id') return doc;
  const { _id, ...rest } = doc;
  return { _id, ...rest };
}

function checkId(doc: Doc): void {
  if (isPlainObject(doc._id)) {
    const dollar = Object.keys(doc._id).find((k) => k.startsWith('$'));
    if (dollar) throw new CommandError('DollarPrefixedFieldName', `_id fields may not contain '$'-prefixed fields: ${dollar} is not valid for storage.`);
  }
  if (Array.isArray(doc._id)) throw new CommandError('BadValue', "can't use an array for _id");
  if (doc._id instanceof RegExp) throw new CommandError('BadValue', "can't use a regex for _id");
}

function statements(ctx: CommandContext, field: string): Doc[] {
  const list = ctx.cmd[field];
  if (!Array.isArray(list)) throw new CommandError('FailedToParse', `BSON field '${field}' is missing but a required field`);
  return list as Doc[];
}

/**
 * Runs write statements; a failing statement becomes a write error. Ordered batches stop at the
 * first error. WriteConflict is never a per-statement error: it fails the command so that the
 * TransientTransactionError label reaches the driver.
 */
function runBatch(ctx: CommandContext, stmts: Doc[], run: (stmt: Doc, index: number) => void): Doc[] {
  const ordered = ctx.cmd.ordered !== false;
  const writeErrors: Doc[] = [];
  for (let i = 0; i < stmts.length; i++) {
    try {
      run(stmts[i], i);
    } catch (err) {
      const e = toCommandError(err);
      if (e.codeName === 'WriteConflict') throw e;
      writeErrors.push(e.toWriteError(i));
      if (ordered) break;
    }
  }
  return writeErrors;
}

function withErrors(reply: Doc, writeErrors: Doc[]): Doc {
  if (writeErrors.length) reply.writeErrors = writeErrors;
  reply.ok = 1;
  return reply;
}

const insert: Handler = (ctx) => {
  const name = collectionName(ctx, 'insert');
  const coll = ctx.scope.ensure(ctx.db, name);
  let n = 0;
  const errors = runBatch(ctx, statements(ctx, 'documents'), (raw) => {
    if (!isPlainObject(raw)) throw new CommandError('TypeMismatch', 'document to insert must be an object');
    const doc = withId(raw);
    checkId(doc);
    validateDocument(coll, doc, undefined, ctx.cmd.bypassDocumentValidation === true);
    checkPrepareUnique(ctx.scope, coll, doc, undefined);
    ctx.scope.write(coll, idKeyOf(doc), doc, true);
    n++;
  });
  return withErrors({ n }, errors);
};

/** Insert the document an upsert produces; returns its _id. */
function upsertInsert(ctx: CommandContext, coll: Collection, filter: Doc, u: unknown, arrayFilters: Doc[] | undefined, variables?: Doc): Doc {
  const seed = upsertSeed(filter);
  let doc: Doc;
  if (isOperatorUpdate(u) || isPipelineUpdate(u)) {
    doc = applyUpdate(seed, u, { arrayFilters, isInsert: true, resolver: resolverFor(ctx), variables }).doc;
  } else {
    doc = { ...(u as Doc) };
    if (doc._id === undefined && seed._id !== undefined) doc._id = seed._id;
  }
  doc = withId(doc);
  checkId(doc);
  validateDocument(coll, doc, undefined, ctx.cmd.bypassDocumentValidation === true);
  checkPrepareUnique(ctx.scope, coll, doc, undefined);
  ctx.scope.write(coll, idKeyOf(doc), doc, true);
  return doc;
}

const update: Handler = (ctx) => {
  const name = collectionName(ctx, 'update');
  let nMatched = 0;
  let nModified = 0;
  const upserted: Doc[] = [];
  // the emulator answers as a 7.0 server, where an update statement has no `sort` (8.0 added it)
  const list = statements(ctx, 'updates');
  const variables = letVariables(ctx.cmd.let, 'update');
  if (list.some((stmt) => isPlainObject(stmt) && stmt.sort !== undefined)) throw new CommandError('Location40415', "BSON field 'update.updates.sort' is an unknown field.");
  const errors = runBatch(ctx, list, (stmt, index) => {
    const filter = isPlainObject(stmt.q) ? stmt.q : {};
    const u = stmt.u;
    validateUpdate(u);
    const multi = stmt.multi === true;
    if (multi && !isOperatorUpdate(u) && !isPipelineUpdate(u)) {
      throw new CommandError('FailedToParse', 'multi update is not supported for replacement-style update');
    }
    const arrayFilters = Array.isArray(stmt.arrayFilters) ? (stmt.arrayFilters as Doc[]) : undefined;
    let coll = ctx.state.store.get(ctx.db, name);
    const collation = parseCollation(stmt.collation, 'update.updates.collation');
    checkHint(coll, stmt.hint);
    const matches = findIn(ctx, coll, filter, { sort: stmt.sort, limit: multi ? 0 : 1, variables, collation });
    if (coll && matches.length) {
      for (const doc of matches) {
        const result = applyUpdate(doc, u, { arrayFilters, filter: positional(filter, u), resolver: resolverFor(ctx), variables });
        nMatched++;
        if (!result.modified) continue;
        validateDocument(coll, result.doc, doc, ctx.cmd.bypassDocumentValidation === true);
        checkPrepareUnique(ctx.scope, coll, result.doc, doc);
        ctx.scope.write(coll, idKeyOf(doc), result.doc, false);
        nModified++;
      }
    } else if (stmt.upsert === true) {
      coll = ctx.scope.ensure(ctx.db, name);
      const doc = upsertInsert(ctx, coll, filter, u, arrayFilters, variables);
      upserted.push({ index, _id: doc._id });
    }
  });
  const reply: Doc = { n: nMatched + upserted.length, nModified };
  if (upserted.length) reply.upserted = upserted;
  return withErrors(reply, errors);
};

const del: Handler = (ctx) => {
  const name = collectionName(ctx, 'delete');
  let n = 0;
  const variables = letVariables(ctx.cmd.let, 'delete');
  const errors = runBatch(ctx, statements(ctx, 'deletes'), (stmt) => {
    const coll = ctx.state.store.get(ctx.db, name);
    if (!coll) return;
    const limit = stmt.limit === 1 ? 1 : 0;
    const collation = parseCollation(stmt.collation, 'delete.deletes.collation');
    checkHint(coll, stmt.hint);
    for (const doc of findIn(ctx, coll, stmt.q, { sort: stmt.sort, limit, variables, collation })) {
      ctx.scope.write(coll, idKeyOf(doc), null, false);
      n++;
    }
  });
  return withErrors({ n }, errors);
};

function project(doc: Doc | null, fields: unknown): Doc | null {
  if (!doc || !isPlainObject(fields) || Object.keys(fields).length === 0) return doc;
  return find([doc], { projection: fields })[0] ?? null;
}

const findAndModify: Handler = (ctx) => {
  const name = collectionName(ctx, 'findAndModify');
  const { cmd } = ctx;
  const filter = isPlainObject(cmd.query) ? cmd.query : {};
  const remove = cmd.remove === true;
  if (remove && cmd.update !== undefined) throw new CommandError('FailedToParse', 'Cannot specify both an update and remove=true');
  if (!remove && cmd.update === undefined) throw new CommandError('FailedToParse', 'Either an update or remove=true must be specified');
  if (remove && cmd.upsert === true) throw new CommandError('FailedToParse', 'Cannot specify both upsert=true and remove=true');
  if (!remove) validateUpdate(cmd.update);
  const arrayFilters = Array.isArray(cmd.arrayFilters) ? (cmd.arrayFilters as Doc[]) : undefined;
  let coll = ctx.state.store.get(ctx.db, name);
  const collation = parseCollation(cmd.collation);
  checkHint(coll, cmd.hint);
  const variables = letVariables(cmd.let, 'findAndModify');
  const match = findIn(ctx, coll, filter, { sort: cmd.sort, limit: 1, variables, collation })[0];

  if (remove) {
    if (coll && match) ctx.scope.write(coll, idKeyOf(match), null, false);
    return { lastErrorObject: { n: match ? 1 : 0 }, value: project(match ?? null, cmd.fields), ok: 1 };
  }
  if (coll && match) {
    const result = applyUpdate(match, cmd.update, { arrayFilters, filter: positional(filter, cmd.update), resolver: resolverFor(ctx), variables });
    if (result.modified) {
      validateDocument(coll, result.doc, match, ctx.cmd.bypassDocumentValidation === true);
      checkPrepareUnique(ctx.scope, coll, result.doc, match);
      ctx.scope.write(coll, idKeyOf(match), result.doc, false);
    }
    return {
      lastErrorObject: { n: 1, updatedExisting: true },
      value: project(cmd.new === true ? result.doc : match, cmd.fields),
      ok: 1,
    };
  }
  if (cmd.upsert === true) {
    coll = ctx.scope.ensure(ctx.db, name);
    const doc = upsertInsert(ctx, coll, filter, cmd.update, arrayFilters, variables);
    return {
      lastErrorObject: { n: 1, updatedExisting: false, upserted: doc._id },
      value: cmd.new === true ? project(doc, cmd.fields) : null,
      ok: 1,
    };
  }
  return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
};

export const writeCommands: Record<string, Handler> = {
  insert,
  update,
  delete: del,
  findAndModify,
  findandmodify: (ctx) => findAndModify({ ...ctx, cmd: { findAndModify: ctx.cmd.findandmodify, ...ctx.cmd } }),
};
