import { ObjectId } from 'bson';
import { CommandError } from '../errors';
import { aggregate } from '../engine';
import { idKeyOf, validateCollectionName, type Collection } from '../store';
import { isPlainObject, keyOf, pathValues, type Doc } from '../values';
import { resolverFor, type CommandContext } from './context';
import { validateDocument } from '../validation';
import { notOnView } from '../views';
import { checkPrepareUnique } from '../prepare-unique';

/**
 * `$out` and `$merge`, the last stage of an aggregate: the pipeline before it runs as usual, then
 * its results are written through the command's scope (unique indexes, validators, transactions'
 * locks apply as for any write). Not allowed inside a transaction, as on the server.
 */
export interface WriteStage {
  name: '$out' | '$merge';
  spec: unknown;
}

/** Splits off a trailing $out/$merge; one anywhere else is left for validatePipeline to refuse. */
export function splitWriteStage(pipeline: unknown): { pipeline: unknown; stage?: WriteStage } {
  if (!Array.isArray(pipeline) || pipeline.length === 0) return { pipeline };
  const last = pipeline[pipeline.length - 1];
  if (!isPlainObject(last)) return { pipeline };
  const [name] = Object.keys(last);
  if (name !== '$out' && name !== '$merge') return { pipeline };
  return { pipeline: pipeline.slice(0, -1), stage: { name, spec: last[name] } };
}

function target(ctx: CommandContext, spec: unknown, stage: string): { db: string; coll: string } {
  if (typeof spec === 'string') return { db: ctx.db, coll: spec };
  if (isPlainObject(spec) && typeof spec.coll === 'string') return { db: typeof spec.db === 'string' ? spec.db : ctx.db, coll: spec.coll };
  throw new CommandError('FailedToParse', `${stage} only supports a string or object argument`);
}

function withId(doc: Doc): Doc {
  return doc._id === undefined ? { _id: new ObjectId(), ...doc } : doc;
}

export function runWriteStage(ctx: CommandContext, stage: WriteStage, results: Doc[]): void {
  if (ctx.txn) {
    throw new CommandError('OperationNotSupportedInTransaction', `Cannot run aggregate with stage ${stage.name} in a multi-document transaction.`);
  }
  const readConcern = ctx.cmd.readConcern;
  if (isPlainObject(readConcern) && readConcern.level === 'linearizable') {
    throw new CommandError('InvalidOptions', `${stage.name} cannot be used with a 'linearizable' read concern level`);
  }
  const bypass = ctx.cmd.bypassDocumentValidation === true;
  if (stage.name === '$out') {
    const into = target(ctx, stage.spec, '$out');
    validateCollectionName(into.coll);
    notOnView(ctx.state.store.get(into.db, into.coll), '$out');
    const coll = ctx.scope.ensure(into.db, into.coll);
    // the server writes into a temporary collection and renames it over the target: the
    // target's indexes stay, its documents are replaced, a duplicate _id fails the whole stage
    const seen = new Set<string>();
    const docs = results.map(withId);
    for (const d of docs) {
      const k = idKeyOf(d);
      if (seen.has(k)) throw coll.indexes[0].duplicateError(coll.ns, [d._id]);
      seen.add(k);
      validateDocument(coll, d, undefined, bypass);
    }
    for (const d of ctx.scope.list(coll)) ctx.scope.write(coll, idKeyOf(d), null, false);
    for (const d of docs) ctx.scope.write(coll, idKeyOf(d), d, true);
    return;
  }
  merge(ctx, stage.spec, results, bypass);
}

function merge(ctx: CommandContext, raw: unknown, results: Doc[], bypass: boolean): void {
  const spec: Doc = typeof raw === 'string' ? { into: raw } : isPlainObject(raw) ? raw : {};
  if (spec.into === undefined) throw new CommandError('FailedToParse', "BSON field '$merge.into' is missing but a required field");
  const into = target(ctx, spec.into, '$merge');
  validateCollectionName(into.coll);
  const on = spec.on === undefined ? ['_id'] : Array.isArray(spec.on) ? spec.on.map(String) : [String(spec.on)];
  const whenMatched = spec.whenMatched ?? 'merge';
  const whenNotMatched = spec.whenNotMatched ?? 'insert';
  if (!['insert', 'discard', 'fail'].includes(String(whenNotMatched))) throw new CommandError('BadValue', `Enumeration value '${String(whenNotMatched)}' for field '$merge.whenNotMatched' is not a valid value.`);
  if (!Array.isArray(whenMatched) && !['replace', 'keepExisting', 'merge', 'fail'].includes(String(whenMatched))) {
    throw new CommandError('BadValue', `Enumeration value '${String(whenMatched)}' for field '$merge.whenMatched' is not a valid value.`);
  }
  const existing = ctx.state.store.get(into.db, into.coll);
  notOnView(existing, '$merge');
  if (!(on.length === 1 && on[0] === '_id')) {
    const key = JSON.stringify(Object.fromEntries(on.map((f) => [f, 1])));
    const unique = existing?.indexes.some((i) => i.unique && JSON.stringify(Object.fromEntries(Object.keys(i.spec.key).map((f) => [f, 1]))) === key);
    if (!unique) throw new CommandError('Location51183', "Cannot find index to verify that join fields will be unique");
  }
  const coll: Collection = existing ?? ctx.scope.ensure(into.db, into.coll);
  const keyOfDoc = (d: Doc): string => on.map((f) => keyOf(pathValues(d, f)[0])).join('\u0001');
  const byKey = new Map<string, Doc>();
  for (const d of ctx.scope.list(coll)) byKey.set(keyOfDoc(d), d);
  for (const result of results) {
    for (const f of on) {
      const v = pathValues(result, f);
      if (v.length !== 1 || Array.isArray(v[0])) throw new CommandError('Location51132', `$merge write error: 'on' field '${f}' cannot be missing, null, undefined or an array`);
    }
    const match = byKey.get(keyOfDoc(result));
    if (!match) {
      if (whenNotMatched === 'discard') continue;
      if (whenNotMatched === 'fail') throw new CommandError('Location13113', '$merge could not find a matching document in the target collection for at least one document in the source collection');
      const doc = withId(result);
      validateDocument(coll, doc, undefined, bypass);
      checkPrepareUnique(ctx.scope, coll, doc, undefined);
      ctx.scope.write(coll, idKeyOf(doc), doc, true);
      byKey.set(keyOfDoc(doc), doc);
      continue;
    }
    let next: Doc;
    if (whenMatched === 'keepExisting') continue;
    if (whenMatched === 'fail') throw coll.indexes[0].duplicateError(coll.ns, [match._id]);
    if (whenMatched === 'replace') next = { ...result, _id: match._id };
    else if (whenMatched === 'merge') next = { ...match, ...result, _id: match._id };
    else {
      const vars: Doc = { new: result };
      if (isPlainObject(spec.let)) for (const [k, v] of Object.entries(spec.let)) vars[k] = aggregate([result], [{ $replaceWith: { v } }], resolverFor(ctx))[0]?.v;
      next = aggregate([match], whenMatched, resolverFor(ctx), vars)[0] ?? match;
      next = { ...next, _id: match._id };
    }
    if (result._id !== undefined && keyOf(result._id) !== keyOf(match._id) && whenMatched !== 'merge' && !Array.isArray(whenMatched)) {
      throw new CommandError('ImmutableField', "$merge failed to update the matching document, did you attempt to modify the _id or the shard key? :: caused by :: Performing an update on the path '_id' would modify the immutable field '_id'");
    }
    validateDocument(coll, next, match, bypass);
    checkPrepareUnique(ctx.scope, coll, next, match);
    ctx.scope.write(coll, idKeyOf(match), next, false);
    byKey.set(keyOfDoc(next), next);
  }
}
