import type { Transaction } from '../transaction';
import { CommandError } from '../errors';
import { compileFilter } from '../engine';
import { Index, parseIndexSpec } from '../indexes';
import { validateCollectionName, type Collection } from '../store';
import { isPlainObject, type Doc } from '../values';
import { collectionName, type CommandContext, type Handler } from './context';
import { heldBy } from './transactions';

function collectionInfo(coll: Collection): Doc {
  if (typeof coll.options.viewOn === 'string') {
    return { name: coll.name, type: 'view', options: { viewOn: coll.options.viewOn, pipeline: coll.options.pipeline ?? [] }, info: { readOnly: true } };
  }
  return {
    name: coll.name,
    type: 'collection',
    options: { ...coll.options },
    info: { readOnly: false, uuid: coll.uuid },
    idIndex: { v: 2, key: { _id: 1 }, name: '_id_' },
  };
}

const create: Handler = (ctx) => {
  const name = collectionName(ctx, 'create');
  validateCollectionName(name);
  const pending = ctx.state.store.get(ctx.db, name)?.pendingIn;
  if (pending && pending !== ctx.txn) throw ctx.scope.conflict(pending as Transaction);
  if (ctx.state.store.get(ctx.db, name)) {
    throw new CommandError('NamespaceExists', `Collection ${ctx.db}.${name} already exists.`);
  }
  const options: Doc = {};
  for (const [k, v] of Object.entries(ctx.cmd)) {
    if (k === 'create' || k.startsWith('$') || ['lsid', 'txnNumber', 'autocommit', 'startTransaction', 'writeConcern', 'readConcern'].includes(k)) continue;
    options[k] = v;
  }
  const { coll } = ctx.state.store.ensure(ctx.db, name, options);
  if (ctx.txn) {
    // visible to others from the transaction's commit; dropped again by its abort
    ctx.txn.created.add(coll);
    coll.pendingIn = ctx.txn;
  }
  return { ok: 1 };
};

const drop: Handler = (ctx) => {
  const name = collectionName(ctx, 'drop');
  waitForTransactions(ctx, name);
  const coll = ctx.state.store.drop(ctx.db, name);
  // MongoDB 7 answers ok for a missing collection.
  return { ns: `${ctx.db}.${name}`, nIndexesWas: coll ? coll.indexes.length : 0, ok: 1 };
};

const dropDatabase: Handler = (ctx) => {
  for (const name of ctx.state.store.dbs.get(ctx.db)?.keys() ?? []) waitForTransactions(ctx, name);
  ctx.state.store.dropDatabase(ctx.db);
  return { dropped: ctx.db, ok: 1 };
};

const listCollections: Handler = (ctx) => {
  // a collection an open transaction is creating is not listed until it commits
  const colls = Array.from(ctx.state.store.dbs.get(ctx.db)?.values() ?? []).filter((c) => !c.pendingIn);
  const filter = compileFilter(ctx.cmd.filter);
  let infos = colls.map(collectionInfo).filter((info) => filter.test(info));
  if (ctx.cmd.nameOnly === true) infos = infos.map((i) => ({ name: i.name, type: i.type }));
  const cursor = isPlainObject(ctx.cmd.cursor) ? ctx.cmd.cursor : {};
  return ctx.state.cursors.first(`${ctx.db}.$cmd.listCollections`, infos, {
    batchSize: typeof cursor.batchSize === 'number' ? cursor.batchSize : undefined,
  });
};

const listDatabases: Handler = (ctx) => {
  const filter = compileFilter(ctx.cmd.filter);
  const databases = Array.from(ctx.state.store.dbs.entries())
    .map(([name, colls]) => ({ name, sizeOnDisk: 8192 * Math.max(1, colls.size), empty: colls.size === 0 }))
    .filter((d) => filter.test(d));
  if (ctx.cmd.nameOnly === true) return { databases: databases.map((d) => ({ name: d.name })), ok: 1 };
  return { databases, totalSize: databases.reduce((s, d) => s + d.sizeOnDisk, 0), totalSizeMb: 0, ok: 1 };
};

const renameCollection: Handler = (ctx) => {
  const from = String(ctx.cmd.renameCollection);
  const to = String(ctx.cmd.to);
  const [fromDb, ...fromRest] = from.split('.');
  const [toDb, ...toRest] = to.split('.');
  waitForTransactions(ctx, fromRest.join('.'), fromDb);
  waitForTransactions(ctx, toRest.join('.'), toDb);
  const source = ctx.state.store.get(fromDb, fromRest.join('.'));
  if (!source) throw new CommandError('NamespaceNotFound', 'Source collection does not exist');
  if (ctx.state.store.get(toDb, toRest.join('.'))) {
    if (ctx.cmd.dropTarget !== true) throw new CommandError('NamespaceExists', 'target namespace exists');
    ctx.state.store.drop(toDb, toRest.join('.'));
  }
  const { coll } = ctx.state.store.ensure(toDb, toRest.join('.'), source.options);
  for (const [k, d] of source.docs) coll.put(k, d, ctx.state.store.nextSeq());
  for (const index of source.indexes.slice(1)) {
    const copy = new Index(index.spec);
    for (const [k, d] of coll.docs) copy.add(d, k);
    coll.indexes.push(copy);
  }
  ctx.state.store.drop(fromDb, fromRest.join('.'));
  return { ok: 1 };
};

const createIndexes: Handler = (ctx) => {
  const name = collectionName(ctx, 'createIndexes');
  const specs = ctx.cmd.indexes;
  if (!Array.isArray(specs) || specs.length === 0) throw new CommandError('BadValue', 'Must specify at least one index');
  const existing = ctx.state.store.get(ctx.db, name);
  if (!ctx.txn) waitForTransactions(ctx, name);
  else if (existing?.pendingIn && existing.pendingIn !== ctx.txn) throw ctx.scope.conflict(existing.pendingIn as Transaction);
  const coll = existing ?? ctx.scope.ensure(ctx.db, name);
  const created = !existing;
  const before = coll.indexes.length;
  for (const raw of specs) {
    const spec = parseIndexSpec(raw);
    const sameName = coll.indexes.find((i) => i.spec.name === spec.name);
    const sameKey = coll.indexes.find((i) => JSON.stringify(i.spec.key) === JSON.stringify(spec.key));
    if (sameName) {
      if (JSON.stringify(sameName.spec.key) !== JSON.stringify(spec.key)) {
        throw new CommandError('IndexKeySpecsConflict', `An existing index has the same name as the requested index but different key specification. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(sameName.spec)}`);
      }
      if (Boolean(sameName.spec.unique) !== Boolean(spec.unique)) {
        throw new CommandError('IndexOptionsConflict', `An equivalent index already exists with the same name but different options. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(sameName.spec)}`);
      }
      continue;
    }
    if (sameKey && Boolean(sameKey.spec.unique) === Boolean(spec.unique) && !spec.partialFilterExpression) {
      throw new CommandError('IndexOptionsConflict', `Index already exists with a different name: ${sameKey.spec.name}`);
    }
    if (ctx.txn) checkIndexBuildInTransaction(ctx, coll);
    // Build the unique entries first so an existing duplicate fails the build, as on the server.
    const index = new Index(spec);
    if (index.unique) {
      for (const [idKey, doc] of coll.docs) {
        for (const k of index.keysOf(doc)) {
          const owner = index.entries.get(k.key);
          if (owner !== undefined && owner !== idKey) throw index.duplicateError(coll.ns, k.values);
          index.entries.set(k.key, idKey);
        }
      }
    }
    coll.indexes.push(index);
  }
  const reply: Doc = { numIndexesBefore: before, numIndexesAfter: coll.indexes.length, createdCollectionAutomatically: created, ok: 1 };
  if (before === coll.indexes.length) reply.note = 'all indexes already exist';
  return reply;
};

const listIndexes: Handler = (ctx) => {
  const name = collectionName(ctx, 'listIndexes');
  const coll = ctx.scope.get(ctx.db, name);
  if (!coll) throw new CommandError('NamespaceNotFound', `ns does not exist: ${ctx.db}.${name}`);
  const cursor = isPlainObject(ctx.cmd.cursor) ? ctx.cmd.cursor : {};
  return ctx.state.cursors.first(`${ctx.db}.${name}`, coll.indexes.map((i) => i.toDocument()), { batchSize: typeof cursor.batchSize === 'number' ? cursor.batchSize : undefined });
};

const dropIndexes: Handler = (ctx) => {
  const name = collectionName(ctx, 'dropIndexes');
  waitForTransactions(ctx, name);
  const coll = ctx.state.store.get(ctx.db, name);
  if (!coll) throw new CommandError('NamespaceNotFound', `ns not found ${ctx.db}.${name}`);
  const target = ctx.cmd.index;
  const before = coll.indexes.length;
  const removeWhere = (pred: (i: Index) => boolean, label: string): void => {
    const idx = coll.indexes.findIndex(pred);
    if (idx < 0) throw new CommandError('IndexNotFound', `index not found with name [${label}]`);
    if (idx === 0) throw new CommandError('InvalidOptions', 'cannot drop _id index');
    coll.indexes.splice(idx, 1);
  };
  if (target === '*') {
    coll.indexes.splice(1);
  } else if (typeof target === 'string') {
    removeWhere((i) => i.spec.name === target, target);
  } else if (Array.isArray(target)) {
    for (const t of target) removeWhere((i) => i.spec.name === t, String(t));
  } else if (isPlainObject(target)) {
    removeWhere((i) => JSON.stringify(i.spec.key) === JSON.stringify(target), JSON.stringify(target));
  } else {
    throw new CommandError('TypeMismatch', 'dropIndexes: index must be a string, array or key pattern');
  }
  return { nIndexesWas: before, ok: 1 };
};

/**
 * A 7.0 server builds an index inside a transaction only on a collection this transaction created
 * (implicitly by this command, or earlier) and only while it is empty.
 */
function checkIndexBuildInTransaction(ctx: CommandContext, coll: Collection): void {
  if (coll.pendingIn !== ctx.txn) {
    throw new CommandError('OperationNotSupportedInTransaction', `Cannot create new indexes on existing collection ${coll.ns} in a multi-document transaction.`);
  }
  if (ctx.scope.list(coll).length > 0) {
    throw new CommandError('OperationNotSupportedInTransaction', `Cannot create new indexes on non-empty collection ${coll.ns} in a multi-document transaction.`);
  }
}

/**
 * Collection-level DDL outside a transaction waits, like the server's exclusive collection lock,
 * for open transactions that created or wrote to the collection.
 */
function waitForTransactions(ctx: CommandContext, name: string, db = ctx.db): void {
  const coll = ctx.state.store.get(db, name);
  if (!coll || ctx.txn) return;
  const holder = heldBy(ctx.state.txns, coll);
  if (holder) throw ctx.scope.conflict(holder);
}

export const ddlCommands: Record<string, Handler> = {
  create,
  drop,
  dropDatabase,
  listCollections,
  listDatabases,
  renameCollection,
  createIndexes,
  listIndexes,
  dropIndexes,
};
