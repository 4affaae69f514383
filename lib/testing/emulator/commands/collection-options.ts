import { CommandError } from '../errors';
import { Index } from '../indexes';
import { checkValidator } from '../validation';
import { checkViewDefinition, isView } from '../views';
import { convertToUnique } from '../prepare-unique';
import { isPlainObject, type Doc } from '../values';
import { collectionName, type Handler } from './context';
import { ddlCommands } from './ddl';
import { checkCollation } from './options';

/** Fields of any command that are not options of the command itself. */
const GENERIC = new Set(['$db', 'lsid', 'txnNumber', 'autocommit', 'startTransaction', 'writeConcern', 'readConcern', '$clusterTime', '$readPreference', 'comment', 'maxTimeMS', 'apiVersion', 'apiStrict', 'apiDeprecationErrors']);

const CREATE_OPTIONS = new Set([
  'create', 'capped', 'size', 'max', 'storageEngine', 'validator', 'validationLevel', 'validationAction', 'indexOptionDefaults', 'viewOn', 'pipeline',
  'collation', 'changeStreamPreAndPostImages', 'timeseries', 'clusteredIndex', 'expireAfterSeconds', 'encryptedFields', 'autoIndexId', 'idIndex',
]);

function notImplemented(what: string): never {
  throw new CommandError('NotImplemented', `${what} not supported by the MongoDB emulator`);
}

function checkValidation(cmd: Doc, command: string): void {
  checkValidator(cmd.validator);
  if (cmd.validationLevel !== undefined && !['off', 'strict', 'moderate'].includes(String(cmd.validationLevel))) {
    throw new CommandError('BadValue', `Enumeration value '${String(cmd.validationLevel)}' for field '${command}.validationLevel' is not a valid value.`);
  }
  if (cmd.validationAction !== undefined && !['error', 'warn'].includes(String(cmd.validationAction))) {
    throw new CommandError('BadValue', `Enumeration value '${String(cmd.validationAction)}' for field '${command}.validationAction' is not a valid value.`);
  }
}

/**
 * `create`: what the emulator implements is accepted (validators, the simple collation, a clustered
 * index on _id, pre/post image settings); views, time-series, capped and encrypted collections are
 * refused instead of silently becoming plain collections.
 */
const create: Handler = (ctx) => {
  const { cmd } = ctx;
  for (const k of Object.keys(cmd)) if (!CREATE_OPTIONS.has(k) && !GENERIC.has(k)) throw new CommandError('Location40415', `BSON field 'create.${k}' is an unknown field.`);
  if (cmd.viewOn !== undefined || cmd.pipeline !== undefined) return createView(ctx);
  if (cmd.timeseries !== undefined) notImplemented('time-series collections are');
  if (cmd.capped === true) notImplemented('capped collections are');
  if (cmd.encryptedFields !== undefined) notImplemented('queryable encryption is');
  if (cmd.expireAfterSeconds !== undefined && cmd.clusteredIndex === undefined) {
    throw new CommandError('InvalidOptions', "'expireAfterSeconds' is only supported on time-series or clustered collections");
  }
  if (cmd.expireAfterSeconds !== undefined) notImplemented('TTL deletion (expireAfterSeconds) is');
  checkCollation(cmd.collation, 'create.collation');
  checkValidation(cmd, 'create');
  let clustered: Doc | undefined;
  if (cmd.clusteredIndex !== undefined) {
    const c = cmd.clusteredIndex;
    if (!isPlainObject(c) || JSON.stringify(c.key) !== '{"_id":1}' || c.unique !== true) {
      throw new CommandError('InvalidOptions', "The clusteredIndex option requires key: {_id: 1} and unique: true");
    }
    clustered = { v: 2, key: { _id: 1 }, name: typeof c.name === 'string' ? c.name : '_id_', unique: true };
  }
  // only the collection's options are stored (not comment, maxTimeMS ...)
  const stored: Doc = {};
  for (const [k, v] of Object.entries(cmd)) if (CREATE_OPTIONS.has(k) || ['lsid', 'txnNumber', 'autocommit', 'startTransaction'].includes(k)) stored[k] = v;
  if (clustered) stored.clusteredIndex = clustered;
  const reply = ddlCommands.create({ ...ctx, cmd: stored });
  const coll = ctx.state.store.get(ctx.db, collectionName(ctx, 'create'));
  // a collection clustered on _id stores documents by _id: its _id index is the clustered index
  if (clustered && coll) coll.indexes[0] = new Index({ v: 2, key: { _id: 1 }, name: String(clustered.name), unique: true, clustered: true });
  return reply;
};

/** A read-only view: its definition is stored as the options of an entry that holds no documents (views.ts). */
const createView: Handler = (ctx) => {
  const { cmd } = ctx;
  if (ctx.txn) throw new CommandError('OperationNotSupportedInTransaction', 'Cannot create a view in a multi-document transaction.');
  for (const k of Object.keys(cmd)) {
    if (!['create', 'viewOn', 'pipeline', 'collation'].includes(k) && !GENERIC.has(k)) throw new CommandError('InvalidOptions', `option not supported on a view: ${k}`);
  }
  checkCollation(cmd.collation, 'create.collation');
  const pipeline = checkViewDefinition(cmd.viewOn, cmd.pipeline);
  return ddlCommands.create({ ...ctx, cmd: { create: cmd.create, viewOn: cmd.viewOn, pipeline } });
};

const COLLMOD_OPTIONS = new Set(['collMod', 'validator', 'validationLevel', 'validationAction', 'changeStreamPreAndPostImages', 'index', 'viewOn', 'pipeline', 'expireAfterSeconds', 'timeseries']);

/** `collMod`: validation settings, pre/post image settings, an index's `hidden`, `prepareUnique` and `unique: true`. */
const collMod: Handler = (ctx) => {
  const { cmd } = ctx;
  const name = collectionName(ctx, 'collMod');
  for (const k of Object.keys(cmd)) if (!COLLMOD_OPTIONS.has(k) && !GENERIC.has(k)) throw new CommandError('InvalidOptions', `unknown option to collMod: ${k}`);
  const coll = ctx.state.store.get(ctx.db, name);
  if (!coll) throw new CommandError('NamespaceNotFound', `ns does not exist: ${ctx.db}.${name}`);
  if (isView(coll)) {
    for (const k of Object.keys(cmd)) if (!['collMod', 'viewOn', 'pipeline'].includes(k) && !GENERIC.has(k)) throw new CommandError('InvalidOptions', `option not supported on a view: ${k}`);
    const pipeline = checkViewDefinition(cmd.viewOn ?? coll.options.viewOn, cmd.pipeline ?? coll.options.pipeline);
    coll.options.viewOn = cmd.viewOn ?? coll.options.viewOn;
    coll.options.pipeline = pipeline;
    return { ok: 1 };
  }
  if (cmd.viewOn !== undefined || cmd.pipeline !== undefined) throw new CommandError('InvalidOptions', `${coll.ns} is a collection, not a view`);
  if (cmd.timeseries !== undefined) notImplemented('time-series collections are');
  if (cmd.expireAfterSeconds !== undefined) notImplemented('TTL deletion (expireAfterSeconds) is');
  checkValidation(cmd, 'collMod');
  const reply: Doc = { ok: 1 };
  if (cmd.index !== undefined) {
    const spec = cmd.index;
    if (!isPlainObject(spec)) throw new CommandError('TypeMismatch', "BSON field 'collMod.index' is the wrong type, expected type 'object'");
    const index = coll.indexes.find((i) => (typeof spec.name === 'string' ? i.spec.name === spec.name : JSON.stringify(i.spec.key) === JSON.stringify(spec.keyPattern)));
    if (!index) throw new CommandError('IndexNotFound', `cannot find index ${JSON.stringify(spec.name ?? spec.keyPattern)} for ns ${coll.ns}`);
    for (const k of Object.keys(spec)) {
      if (['name', 'keyPattern', 'hidden', 'prepareUnique'].includes(k) || (k === 'unique' && spec.unique === true)) continue;
      notImplemented(`collMod index option '${k}: ${JSON.stringify(spec[k])}' is`);
    }
    if (typeof spec.prepareUnique === 'boolean') {
      const was = index.spec.prepareUnique === true;
      if (spec.prepareUnique) index.spec.prepareUnique = true;
      else delete index.spec.prepareUnique;
      if (was !== spec.prepareUnique) Object.assign(reply, { prepareUnique_old: was, prepareUnique_new: spec.prepareUnique });
    }
    if (spec.unique === true && !index.unique) {
      convertToUnique(ctx.scope, coll, index);
      reply.unique_new = true;
    }
    if (typeof spec.hidden === 'boolean') {
      if (index.spec.name === '_id_') throw new CommandError('BadValue', 'can\'t hide _id index');
      const was = index.spec.hidden === true;
      if (spec.hidden) index.spec.hidden = true;
      else delete index.spec.hidden;
      if (was !== spec.hidden) Object.assign(reply, { hidden_old: was, hidden_new: spec.hidden });
    }
  }
  for (const k of ['validator', 'validationLevel', 'validationAction', 'changeStreamPreAndPostImages']) if (cmd[k] !== undefined) coll.options[k] = cmd[k];
  return reply;
};

const INDEX_OPTIONS = new Set([
  'key', 'name', 'unique', 'sparse', 'partialFilterExpression', 'expireAfterSeconds', 'hidden', 'collation', 'background', 'v', 'storageEngine', 'wildcardProjection', 'ns',
]);

/**
 * createIndexes: options the server does not know are refused (197); text and geo indexes, which
 * the emulator cannot query, and non-simple index collations are refused (238).
 */
const createIndexes: Handler = (ctx) => {
  const specs = Array.isArray(ctx.cmd.indexes) ? ctx.cmd.indexes : [];
  for (const spec of specs) {
    if (!isPlainObject(spec)) continue;
    for (const k of Object.keys(spec)) {
      if (!INDEX_OPTIONS.has(k)) throw new CommandError('InvalidIndexSpecificationOption', `The field '${k}' is not valid for an index specification. Specification: ${JSON.stringify(spec)}`);
    }
    checkCollation(spec.collation, 'createIndexes.indexes.collation');
    for (const type of Object.values(isPlainObject(spec.key) ? spec.key : {})) {
      if (typeof type === 'string' && type !== 'hashed') notImplemented(`${type} indexes are`);
      if (typeof type === 'string' && spec.unique === true) throw new CommandError('CannotCreateIndex', `Currently hashed indexes cannot guarantee uniqueness. Use a regular index.`);
    }
  }
  return ddlCommands.createIndexes(ctx);
};

export const collectionOptionCommands: Record<string, Handler> = { create, collMod, createIndexes };
