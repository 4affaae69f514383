import type { MongoClient } from 'mongodb';
import { clientWorkaround } from './driver-deviations';
import { EntityMap } from './entities';
import { checkError } from './errors';
import { checkEvents } from './events';
import type { Json, SpecFile, SpecTest } from './load';
import { match, matchRootArray } from './matcher';
import { runOperation, type OperationContext } from './operations';

/** Operations returning an iterable of documents: each element is matched as a root document. */
const ITERABLE = new Set(['aggregate', 'find', 'listCollections', 'listCollectionObjects', 'listDatabases', 'listDatabaseObjects', 'listIndexes', 'listSearchIndexes', 'runCursorCommand']);

async function loadInitialData(internal: MongoClient, data: Json[] | undefined): Promise<void> {
  for (const c of data ?? []) {
    const db = internal.db(String(c.databaseName));
    const name = String(c.collectionName);
    await db.collection(name).drop({ writeConcern: { w: 'majority' } }).catch(() => undefined);
    const docs = (c.documents ?? []) as Json[];
    if (c.createOptions || docs.length === 0) await db.createCollection(name, { ...(c.createOptions as Json), writeConcern: { w: 'majority' } });
    if (docs.length) await db.collection(name).insertMany(docs, { writeConcern: { w: 'majority' } });
  }
}

async function checkOutcome(internal: MongoClient, outcome: Json[] | undefined): Promise<void> {
  for (const c of outcome ?? []) {
    const docs = await internal
      .db(String(c.databaseName))
      .collection(String(c.collectionName))
      .find({}, { sort: { _id: 1 }, readPreference: 'primary', readConcern: { level: 'local' } })
      .toArray();
    // exact match (no extra fields anywhere), key order aside
    try {
      match(c.documents, docs, {}, false);
    } catch (err) {
      throw new Error(`outcome of ${String(c.collectionName)}: ${(err as Error).message}`);
    }
  }
}

/** `propagate`: inside withTransaction's callback, an operation's error reaches withTransaction even when expected. */
async function runOne(op: Json, ctx: OperationContext, propagate = false): Promise<void> {
  let result: unknown;
  let error: unknown;
  let threw = false;
  try {
    result = await runOperation(op, ctx);
  } catch (err) {
    threw = true;
    error = err;
  }
  const label = `${String(op.object)}.${String(op.name)}`;
  if (op.ignoreResultAndError === true) {
    if (threw && propagate) throw error;
    return;
  }
  if (op.expectError) {
    if (!threw) throw new Error(`${label}: an error was expected, the operation returned ${JSON.stringify(result)}`);
    try {
      checkError(op.expectError as Json, error, ctx.entities);
    } catch (err) {
      throw new Error(`${label}: ${(err as Error).message}`);
    }
    if (propagate) throw error;
    return;
  }
  if (threw) {
    const e = error as Error & { code?: unknown };
    throw Object.assign(new Error(`${label} failed: ${e.message}${e.code !== undefined ? ` (code ${String(e.code)})` : ''}`), { cause: error });
  }
  if (op.expectResult !== undefined) {
    try {
      if (ITERABLE.has(String(op.name)) && Array.isArray(result)) matchRootArray(op.expectResult, result, { entities: ctx.entities });
      else match(op.expectResult, result, { entities: ctx.entities });
    } catch (err) {
      throw new Error(`${label} result: ${(err as Error).message}`);
    }
  }
  if (typeof op.saveResultAsEntity === 'string') ctx.entities.save(op.saveResultAsEntity, result);
}

/** Executes one test of a file (unified test format, "Executing a Test"). */
export async function runSpecTest(file: SpecFile, test: SpecTest, internal: MongoClient, uri: string): Promise<void> {
  await loadInitialData(internal, file.initialData as Json[] | undefined);
  const entities = new EntityMap(uri, clientWorkaround(file.folder, file.file));
  const ctx: OperationContext = {
    entities,
    internal,
    runOperations: async (ops, inCallback = false) => {
      for (const op of ops) await runOne(op, ctx, inCallback);
    },
  };
  try {
    await entities.create((file.createEntities ?? []) as Json[]);
    await ctx.runOperations(test.operations);
    for (const expected of test.expectEvents ?? []) checkEvents(expected, entities);
    await checkOutcome(internal, test.outcome);
  } finally {
    await entities.close();
    // a fail point a test set must not outlive it (servers without test commands refuse: ignored)
    for (const name of ['failCommand', 'onPrimaryTransactionalWrite']) await internal.db('admin').command({ configureFailPoint: name, mode: 'off' }).catch(() => undefined);
    // open transactions of a failed test must not block the next one
    await internal.db('admin').command({ killAllSessions: [] }).catch(() => undefined);
  }
}
