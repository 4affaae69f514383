import { type ClientSession, type Collection, type Db, type Document } from 'mongodb';
import { EntityMap, Unsupported, type ClientEntity } from './entities';
import type { Json } from './load';

/** What an operation needs besides its arguments. */
export interface OperationContext {
  entities: EntityMap;
  /** The runner's own client, for assertCollectionExists and friends. */
  internal: import('mongodb').MongoClient;
  /** Runs a list of operations; `inCallback`: withTransaction's, where errors propagate. */
  runOperations(ops: Json[], inCallback?: boolean): Promise<void>;
}

type Args = Json & { session?: ClientSession };
type Op<T> = (target: T, args: Args, ctx: OperationContext) => Promise<unknown>;

/** Driver result objects as the plain documents the spec tests expect. */
function bulkResult(r: unknown): Json {
  const b = r as Record<string, unknown>;
  return {
    insertedCount: b.insertedCount,
    matchedCount: b.matchedCount,
    modifiedCount: b.modifiedCount,
    deletedCount: b.deletedCount,
    upsertedCount: b.upsertedCount,
    upsertedIds: b.upsertedIds,
    insertedIds: b.insertedIds,
  };
}

function without(args: Args, ...keys: string[]): Json {
  const out: Json = { ...args };
  for (const k of keys) delete out[k];
  return out;
}

/** `returnDocument: 'After'` in the spec, `'after'` in the Node driver. */
function findAndModifyOptions(args: Args, ...keys: string[]): Json {
  const opts = without(args, ...keys);
  if (typeof opts.returnDocument === 'string') opts.returnDocument = opts.returnDocument.toLowerCase();
  return opts;
}

const collectionOps: Record<string, Op<Collection>> = {
  aggregate: (c, a) => c.aggregate(a.pipeline as Document[], without(a, 'pipeline')).toArray(),
  bulkWrite: async (c, a) => bulkResult(await c.bulkWrite(a.requests as never, without(a, 'requests'))),
  count: (c, a) => c.count((a.filter ?? {}) as Document, without(a, 'filter')),
  countDocuments: (c, a) => c.countDocuments((a.filter ?? {}) as Document, without(a, 'filter')),
  estimatedDocumentCount: (c, a) => c.estimatedDocumentCount(a),
  deleteMany: (c, a) => c.deleteMany(a.filter as Document, without(a, 'filter')),
  deleteOne: (c, a) => c.deleteOne(a.filter as Document, without(a, 'filter')),
  distinct: (c, a) => c.distinct(String(a.fieldName), (a.filter ?? {}) as Document, without(a, 'fieldName', 'filter')),
  find: (c, a) => c.find((a.filter ?? {}) as Document, without(a, 'filter')).toArray(),
  findOne: (c, a) => c.findOne((a.filter ?? {}) as Document, without(a, 'filter')),
  findOneAndDelete: (c, a) => c.findOneAndDelete(a.filter as Document, findAndModifyOptions(a, 'filter')),
  findOneAndReplace: (c, a) => c.findOneAndReplace(a.filter as Document, a.replacement as Document, findAndModifyOptions(a, 'filter', 'replacement')),
  findOneAndUpdate: (c, a) => c.findOneAndUpdate(a.filter as Document, a.update as Document, findAndModifyOptions(a, 'filter', 'update')),
  insertMany: (c, a) => c.insertMany(a.documents as Document[], without(a, 'documents')),
  insertOne: (c, a) => c.insertOne(a.document as Document, without(a, 'document')),
  replaceOne: (c, a) => c.replaceOne(a.filter as Document, a.replacement as Document, without(a, 'filter', 'replacement')),
  updateMany: (c, a) => c.updateMany(a.filter as Document, a.update as Document, without(a, 'filter', 'update')),
  updateOne: (c, a) => c.updateOne(a.filter as Document, a.update as Document, without(a, 'filter', 'update')),
  createIndex: (c, a) => c.createIndex(a.keys as Document, without(a, 'keys')),
  dropIndex: (c, a) => c.dropIndex(String(a.name), without(a, 'name')),
  listIndexes: (c, a) => c.listIndexes(a).toArray(),
  listIndexNames: async (c, a) => (await c.listIndexes(a).toArray()).map((i) => i.name),
  createSearchIndex: (c, a) => c.createSearchIndex(a.model as never),
  createSearchIndexes: (c, a) => c.createSearchIndexes(a.models as never),
  dropSearchIndex: (c, a) => c.dropSearchIndex(String(a.name)),
  updateSearchIndex: (c, a) => c.updateSearchIndex(String(a.name), a.definition as Document),
  listSearchIndexes: (c, a) =>
    (a.name === undefined ? c.listSearchIndexes((a.aggregationOptions ?? {}) as Json) : c.listSearchIndexes(String(a.name), (a.aggregationOptions ?? {}) as Json)).toArray(),
};

const databaseOps: Record<string, Op<Db>> = {
  aggregate: (d, a) => d.aggregate(a.pipeline as Document[], without(a, 'pipeline')).toArray(),
  createCollection: async (d, a) => {
    await d.createCollection(String(a.collection), without(a, 'collection'));
    return undefined;
  },
  dropCollection: (d, a) => d.dropCollection(String(a.collection), without(a, 'collection')),
  listCollections: (d, a) => d.listCollections((a.filter ?? {}) as Document, without(a, 'filter')).toArray(),
  // the Node.js driver has no listCollectionNames/Objects: listCollections (nameOnly for the names)
  listCollectionNames: async (d, a) => (await d.listCollections((a.filter ?? {}) as Document, { ...without(a, 'filter'), nameOnly: true }).toArray()).map((c) => c.name),
  listCollectionObjects: (d, a) => d.listCollections((a.filter ?? {}) as Document, without(a, 'filter')).toArray(),
  runCommand: (d, a) => d.command(a.command as Document, without(a, 'command', 'commandName')),
  modifyCollection: (d, a) => d.command({ collMod: a.collection, ...without(a, 'collection', 'session') }, a.session ? { session: a.session } : {}),
};

/** `{insertOne: {namespace, document}}` in the spec, `{name: 'insertOne', namespace, document}` in the Node driver. */
function clientBulkModels(models: Json[]): Json[] {
  return models.map((m) => {
    const [name] = Object.keys(m);
    return { name, ...(m[name] as Json) };
  });
}

const clientOps: Record<string, Op<ClientEntity>> = {
  clientBulkWrite: (c, a) => c.client.bulkWrite(clientBulkModels(a.models as Json[]) as never, without(a, 'models')),
  listDatabases: async (c, a) => (await c.client.db('admin').admin().listDatabases(a)).databases,
  listDatabaseNames: async (c, a) => (await c.client.db('admin').admin().listDatabases({ ...a, nameOnly: true })).databases.map((d) => d.name),
  listDatabaseObjects: async (c, a) => (await c.client.db('admin').admin().listDatabases(a)).databases,
};

const TXN_STATES: Record<string, string> = {
  NO_TRANSACTION: 'none',
  STARTING_TRANSACTION: 'starting',
  TRANSACTION_IN_PROGRESS: 'in_progress',
  TRANSACTION_COMMITTED: 'committed',
  TRANSACTION_COMMITTED_EMPTY: 'committed',
  TRANSACTION_ABORTED: 'aborted',
};

const sessionOps: Record<string, Op<ClientSession>> = {
  startTransaction: async (s, a) => s.startTransaction(a),
  commitTransaction: (s) => s.commitTransaction(),
  abortTransaction: (s) => s.abortTransaction(),
  endSession: (s) => s.endSession(),
  getSnapshotTime: async (s) => (s as unknown as { snapshotTime?: unknown }).snapshotTime,
  withTransaction: async (s, a, ctx) => {
    await s.withTransaction(() => ctx.runOperations(a.callback as Json[], true), without(a, 'callback'));
    return undefined;
  },
};

function lastTwoLsids(ctx: OperationContext, client: string): [unknown, unknown] {
  const started = ctx.entities.client(client).events.filter((e) => e.name === 'commandStartedEvent');
  if (started.length < 2) throw new Error('fewer than two commands were observed');
  const lsid = (i: number): unknown => (started[started.length - i].event.command as Json).lsid;
  return [lsid(2), lsid(1)];
}

function sameLsid(a: unknown, b: unknown): boolean {
  const bytes = (l: unknown): string => Buffer.from(((l as Json)?.id as { buffer: Uint8Array })?.buffer ?? []).toString('hex');
  return bytes(a) !== '' && bytes(a) === bytes(b);
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new Error(message);
}

async function collectionNames(ctx: OperationContext, db: string): Promise<string[]> {
  return (await ctx.internal.db(db).listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
}

async function indexNames(ctx: OperationContext, db: string, coll: string): Promise<string[]> {
  return (await ctx.internal.db(db).collection(coll).listIndexes().toArray()).map((i) => String(i.name));
}

/** Special operations (object: testRunner). */
const runnerOps: Record<string, Op<undefined>> = {
  // configureFailPoint through the test's client; the runner turns it off after the test
  failPoint: async (_, a, ctx) => ctx.entities.client(String(a.client)).client.db('admin').command(a.failPoint as Document),
  // a session pinned to a mongos: on one server, the server the runner talks to
  targetedFailPoint: async (_, a, ctx) => ctx.internal.db('admin').command(a.failPoint as Document),
  createEntities: async (_, a, ctx) => ctx.entities.create(a.entities as Json[]),
  assertSessionTransactionState: async (_, a) => {
    const state = TXN_STATES[String((a.session as unknown as { transaction: { state: string } }).transaction.state)];
    check(state === a.state, `session transaction state is ${state}, expected ${String(a.state)}`);
  },
  assertSessionPinned: async (_, a) => check(a.session!.isPinned, 'session is not pinned'),
  assertSessionUnpinned: async (_, a) => check(!a.session!.isPinned, 'session is pinned'),
  assertSessionDirty: async (_, a) => check((a.session as unknown as { serverSession: { isDirty: boolean } }).serverSession.isDirty === true, 'session is not dirty'),
  assertSessionNotDirty: async (_, a) => check((a.session as unknown as { serverSession: { isDirty: boolean } }).serverSession.isDirty !== true, 'session is dirty'),
  assertDifferentLsidOnLastTwoCommands: async (_, a, ctx) => check(!sameLsid(...lastTwoLsids(ctx, String(a.client))), 'the last two commands used the same lsid'),
  assertSameLsidOnLastTwoCommands: async (_, a, ctx) => check(sameLsid(...lastTwoLsids(ctx, String(a.client))), 'the last two commands used different lsids'),
  assertCollectionExists: async (_, a, ctx) =>
    check((await collectionNames(ctx, String(a.databaseName))).includes(String(a.collectionName)), `collection ${String(a.collectionName)} does not exist`),
  assertCollectionNotExists: async (_, a, ctx) =>
    check(!(await collectionNames(ctx, String(a.databaseName))).includes(String(a.collectionName)), `collection ${String(a.collectionName)} exists`),
  assertIndexExists: async (_, a, ctx) =>
    check((await indexNames(ctx, String(a.databaseName), String(a.collectionName))).includes(String(a.indexName)), `index ${String(a.indexName)} does not exist`),
  assertIndexNotExists: async (_, a, ctx) => {
    const names = await indexNames(ctx, String(a.databaseName), String(a.collectionName)).catch((): string[] => []);
    check(!names.includes(String(a.indexName)), `index ${String(a.indexName)} exists`);
  },
};

/** Operation names the runner implements, per entity type; others are counted as unsupported. */
export const SUPPORTED: Record<string, Set<string>> = {
  collection: new Set(Object.keys(collectionOps)),
  database: new Set(Object.keys(databaseOps)),
  client: new Set(Object.keys(clientOps)),
  session: new Set(Object.keys(sessionOps)),
  testRunner: new Set(Object.keys(runnerOps)),
};

export function isSupported(name: string): boolean {
  return Object.values(SUPPORTED).some((s) => s.has(name));
}

/** Runs one operation on its entity; `session` arguments are resolved to session entities. */
export async function runOperation(op: Json, ctx: OperationContext): Promise<unknown> {
  const name = String(op.name);
  const object = String(op.object);
  const args: Args = { ...((op.arguments ?? {}) as Json) };
  if (typeof args.session === 'string') args.session = ctx.entities.session(args.session);
  if (object === 'testRunner') {
    const fn = runnerOps[name];
    if (!fn) throw new Unsupported(`operation ${name}`);
    return fn(undefined, args, ctx);
  }
  const type = ctx.entities.typeOf(object);
  const table: Record<string, Op<never>> | undefined =
    type === 'collection' ? collectionOps : type === 'database' ? databaseOps : type === 'client' ? clientOps : type === 'session' ? sessionOps : undefined;
  const fn = table?.[name];
  if (!fn) throw new Unsupported(`operation ${name} on ${type ?? 'undefined entity'} ${object}`);
  const target =
    type === 'collection' ? ctx.entities.collection(object) : type === 'database' ? ctx.entities.database(object) : type === 'client' ? ctx.entities.client(object) : ctx.entities.session(object);
  return (fn as Op<unknown>)(target, args, ctx);
}

export { bulkResult };
