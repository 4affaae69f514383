import type { ClientSession, Db, Document } from 'mongodb';
import type { Connection, Model } from 'mongoose';
import { DriverFailure, type DatabaseErrorInfo, type DescribedModel, type Driver, type Id, type ListResult, type PivotCapability, type PivotRow, type Row, type StreamCapability, type Transaction, type UpdateGuard, type UpdateItem } from '../../lib/driver';
import type { PivotInfo } from '../../lib/resource/model-info';
import { relationOf } from '../../lib/resource/model-lookup';
import type { ListQuery, Scalar } from '../../lib/query/ast';
import type { ModelDeclaration } from '../../lib/resource/relation-declaration';
import { ConnectionDriver } from '../../lib/driver/connection-driver';
import { isHexId, toObjectId } from './compile-context';
import { compileList, type CompiledList } from './compile-list';
import { compileAggregate } from './compile-aggregate';
import { runAggregate } from './run-aggregate';
import type { AggregateQuery, AggregateResult } from '../../lib/query/aggregate-ast';
import { deleteWithRules } from './delete-rules';
import { assertReferencesExist, lockKey, lockRecords, referencedKeys } from './reference-locks';
import { describeMongooseModel } from './describe-model';
import type { ModelMap } from './model-map';
import { outputValue, serialize } from './serialize';
import { translateMongoError } from './translate-error';
import { connectionOptions, type MongoConnectionOptions } from './connection-options';
import { checkMongoServer, inspectMongoServer, MongoServerRefusedError, type MongoServerFacts } from './server-check';
import type { Catalog } from '../../lib/resource/model-info';

export interface MongoTransaction extends Transaction {
  readonly driver: 'mongo';
  /** The session of the work; in a multi-document transaction unless the connection declared `transactions: false`. */
  readonly session: ClientSession;
}

type AnyModel = Model<unknown>;

/** True for a mongoose Model (a function with a schema, a modelName and a connection). */
export function isMongooseModel(model: unknown): boolean {
  if (typeof model !== 'function') return false;
  const m = model as unknown as { schema?: { paths?: unknown }; modelName?: unknown; db?: unknown; collection?: unknown };
  return typeof m.modelName === 'string' && !!m.schema?.paths && !!m.db && !!m.collection;
}

/**
 * The mongoose/MongoDB driver. A list page is ONE aggregation (compile-list.ts); writes go through
 * the mongoose models (casting, validation, timestamps); declared foreign keys are enforced on delete.
 */
export class MongoDriver extends ConnectionDriver<Connection> implements Driver {
  readonly kind = 'mongo';
  private readonly collections: ModelMap = {};
  private readonly models: Record<string, AnyModel> = {};
  /** The server check (server-check.ts): started when the models are bound, awaited by every operation. */
  private checked: Promise<MongoServerFacts> | null = null;

  constructor(
    connection?: Connection,
    private readonly declared: MongoConnectionOptions = {},
  ) {
    super(connection);
  }

  /** Whether writes run in multi-document transactions: createMongoDriver's options, else configureMongo's, else true. */
  private transactionsOn(): boolean {
    return this.declared.transactions ?? connectionOptions(this.nativeOrUndefined()).transactions ?? true;
  }

  private nativeOrUndefined(): Connection | undefined {
    try {
      return this.native();
    } catch {
      return undefined;
    }
  }

  /** Starts asking the server at start (router()), so a refusal is known before the first request. */
  override bind(catalog: Catalog): void {
    super.bind(catalog);
    if (this.nativeOrUndefined()) void this.ready().catch(() => undefined);
  }

  /**
   * Asks the server what it is, once (decision 65): a standalone server without `transactions:
   * false`, a release older than 5.0, or a mongos older than 5.1 is refused with a
   * MongoServerRefusedError that says why and what to do. A connection failure is not remembered:
   * the next call asks again.
   */
  ready(): Promise<void> {
    this.checked ??= this.checkServer().catch((error: unknown) => {
      if (!(error instanceof MongoServerRefusedError)) this.checked = null;
      throw error;
    });
    return this.checked.then(() => undefined);
  }

  /** What the server said (after ready()). */
  async serverFacts(): Promise<MongoServerFacts> {
    await this.ready();
    return this.checked as Promise<MongoServerFacts>;
  }

  private async checkServer(): Promise<MongoServerFacts> {
    const conn = this.conn();
    if (conn.readyState !== 1) await conn.asPromise();
    const admin = this.db().admin();
    const facts = await inspectMongoServer((command) => admin.command(command));
    checkMongoServer(facts, { transactions: this.transactionsOn(), where: whereOf(conn) });
    return facts;
  }

  protected isNativeModel(model: unknown): boolean {
    return isMongooseModel(model);
  }

  protected connectionOf(model: unknown): Connection {
    return (model as AnyModel).db;
  }

  describe(declaration: ModelDeclaration, modelNameOf: (nativeName: string) => string | undefined): DescribedModel {
    const model = declaration.model as AnyModel;
    this.adopt(model);
    const { described, collection } = describeMongooseModel(declaration, modelNameOf);
    this.collections[declaration.MODEL] = { collection };
    this.models[declaration.MODEL] = model;
    return described;
  }

  parseId(_model: string, raw: string): Id | null {
    return isHexId(raw) ? raw.toLowerCase() : null;
  }

  compile(query: ListQuery): CompiledList {
    return compileList(query, this.requireCatalog(), this.collections);
  }

  async list(query: ListQuery, tx?: Transaction): Promise<ListResult> {
    await this.ready();
    const plan = this.compile(query);
    // a server-side time limit: a runaway read ends on the server, never holds the app
    const docs = await this.db().collection(plan.collection).aggregate<Document>(plan.pipeline, { ...this.options(tx), maxTimeMS: readTimeoutMs() }).toArray();
    const page = plan.page;
    if (page?.kind === 'offset') {
      const facet = docs[0] ?? { data: [], total: [] };
      const data = (facet.data ?? []) as Document[];
      const total = ((facet.total ?? []) as Array<{ total?: number }>)[0]?.total ?? 0;
      return { rows: data.map((d) => serialize(d, plan.shape)), total };
    }
    if (page?.kind === 'cursor') {
      const hasMore = docs.length > page.size;
      const visible = hasMore ? docs.slice(0, page.size) : docs;
      const last = visible[visible.length - 1];
      const nextAfter = hasMore && last ? plan.keys.map((k) => outputValue(last[k.path]) as Scalar) : null;
      return { rows: visible.map((d) => serialize(d, plan.shape)), hasMore, nextAfter };
    }
    return { rows: docs.map((d) => serialize(d, plan.shape)) };
  }

  /** Grouped aggregates: ONE aggregation (compile-aggregate.ts). */
  async aggregate(query: AggregateQuery, tx?: Transaction): Promise<AggregateResult> {
    await this.ready();
    const plan = compileAggregate(query, this.requireCatalog(), this.collections);
    return runAggregate(this.db().collection(plan.collection), plan, { ...this.options(tx), maxTimeMS: readTimeoutMs() });
  }

  /** Export rows from one aggregation cursor, read in batches; closing on abort stops the server-side cursor. */
  readonly streams: StreamCapability = {
    stream: (query, signal) => this.stream(query, signal),
  };

  private async *stream(query: ListQuery, signal?: AbortSignal): AsyncGenerator<Row> {
    await this.ready();
    const plan = this.compile({ ...query, page: null, limit: null });
    const cursor = this.db().collection(plan.collection).aggregate<Document>(plan.pipeline, { batchSize: 500 });
    const abort = (): void => void cursor.close().catch(() => undefined);
    signal?.addEventListener('abort', abort, { once: true });
    try {
      for await (const doc of cursor) {
        if (signal?.aborted) return;
        yield serialize(doc, plan.shape);
      }
    } finally {
      signal?.removeEventListener('abort', abort);
      await cursor.close().catch(() => undefined);
    }
  }

  async existingIds(model: string, ids: Id[], tx?: Transaction): Promise<Id[]> {
    if (ids.length === 0) return [];
    await this.ready();
    const docs = await this.db()
      .collection(this.collection(model))
      .find({ _id: { $in: ids.map((id) => toObjectId(String(id))) } } as Document, { ...this.options(tx), projection: { _id: 1 }, maxTimeMS: readTimeoutMs() })
      .toArray();
    const found = new Set(docs.map((d) => String(outputValue(d._id))));
    return ids.filter((id) => found.has(String(id).toLowerCase()));
  }

  async transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    await this.ready();
    const session = await this.conn().startSession();
    try {
      const tx: MongoTransaction = { driver: 'mongo', session };
      // transactions: false (a standalone server): the work runs once, each write on its own
      if (!this.transactionsOn()) return await work(tx);
      let result: T | undefined;
      await session.withTransaction(async () => {
        result = await work(tx);
      });
      return result as T;
    } finally {
      await session.endSession();
    }
  }

  async insert(model: string, records: Record<string, unknown>[], tx: Transaction): Promise<Id[]> {
    if (records.length === 0) return [];
    await this.lockReferences(model, records, tx);
    const docs = await this.model(model).insertMany(records, { session: this.session(tx), ordered: true });
    return docs.map((d) => String(outputValue((d as { _id: unknown })._id)));
  }

  async update(model: string, items: UpdateItem[], tx: Transaction, guard?: UpdateGuard): Promise<number> {
    if (items.length === 0) return 0;
    const native = this.model(model);
    const sets = items.map((item) => withoutUndefined(item.changes));
    // bulkWrite casts but does not validate: the schema validators of the changed paths run in memory
    for (const set of sets) if (Object.keys(set).length) await native.validate({ ...set }, Object.keys(set));
    // decision 67 (an ORM's dirty check): without a guard, a document is written (and its updated_at
    // moved) only when one of the sent values differs from the stored one; the guarded writes
    // (soft delete, restore) always change their field, and count the documents they matched
    const ops = items.flatMap((item, i) => {
      const keys = Object.keys(sets[i]);
      if (!guard && keys.length === 0) return [];
      const differs = guard ? {} : { $or: keys.map((k) => ({ [k]: { $ne: sets[i][k] } })) };
      return [{ updateOne: { filter: { _id: toObjectId(String(item.id)), ...(guard ? { [guard.field]: guard.isNull ? null : { $ne: null } } : {}), ...differs }, update: { $set: sets[i] } } }];
    });
    if (ops.length === 0) return 0;
    await this.lockReferences(model, sets, tx);
    const result = await native.bulkWrite(ops as never, { session: this.session(tx), ordered: true, timestamps: true });
    return result.matchedCount;
  }

  async delete(model: string, ids: Id[], tx: Transaction): Promise<Id[]> {
    if (ids.length === 0) return [];
    const deleted = await deleteWithRules(
      { catalog: this.requireCatalog(), db: this.db(), collection: (m) => this.collection(m), session: this.session(tx) },
      model,
      ids.map((id) => toObjectId(String(id))),
    );
    return deleted.map((id) => String(outputValue(id)));
  }

  /** Many-to-many pivot documents: one command per call (detach: one find and one delete). */
  readonly pivots: PivotCapability = {
    read: async (model, relation, parentId, relatedIds, tx) => {
      const pivot = this.pivotOf(model, relation);
      const filter: Document = { [pivot.parentKey]: toObjectId(String(parentId)) };
      if (relatedIds) filter[pivot.relatedKey] = { $in: relatedIds.map((id) => toObjectId(String(id))) };
      const docs = await this.db().collection(pivot.table).find(filter, { ...this.options(tx), sort: { [pivot.relatedKey]: 1 } }).toArray();
      return docs.map((doc) => pivotRow(pivot, doc));
    },
    attach: async (model, relation, rows, tx) => {
      if (rows.length === 0) return [];
      const pivot = this.pivotOf(model, relation);
      const docs = rows.map((r) => ({ [pivot.parentKey]: toObjectId(String(r.parentId)), [pivot.relatedKey]: toObjectId(String(r.relatedId)), ...Object.fromEntries(pivot.columns.map((c) => [c, r.values[c] ?? null])) }));
      // both sides are referenced: a concurrent delete of either conflicts, as with foreign keys
      const target = relationOf(this.requireCatalog().model(model), relation).target;
      await lockRecords(this.db(), this.session(tx), [...new Set(rows.map((r) => lockKey(model, r.parentId))), ...rows.map((r) => lockKey(target, r.relatedId))]);
      for (const [side, ids] of [[model, rows.map((r) => r.parentId)], [target, rows.map((r) => r.relatedId)]] as const) {
        const wanted = [...new Set(ids.map((id) => String(id).toLowerCase()))];
        const found = await this.db().collection(this.collection(side)).countDocuments({ _id: { $in: wanted.map(toObjectId) } } as Document, { session: this.session(tx) });
        if (found < wanted.length) throw new DriverFailure({ type: 'foreign_key_violation', field: side === model ? pivot.parentKey : pivot.relatedKey });
      }
      await this.db().collection(pivot.table).insertMany(docs, { session: this.session(tx), ordered: true });
      return rows.map((r) => String(outputValue(toObjectId(String(r.relatedId)))));
    },
    lock: async (model, relation, parentId, tx) => {
      // one lock document per (pivot collection, parent): two transactions changing the same links conflict
      const pivot = this.pivotOf(model, relation);
      await lockRecords(this.db(), this.session(tx), [`__pivot:${pivot.table}:${String(outputValue(toObjectId(String(parentId)))).toLowerCase()}`]);
    },
    detach: async (model, relation, parentId, relatedIds, tx) => {
      if (relatedIds && relatedIds.length === 0) return [];
      const pivot = this.pivotOf(model, relation);
      const filter: Document = { [pivot.parentKey]: toObjectId(String(parentId)) };
      if (relatedIds) filter[pivot.relatedKey] = { $in: relatedIds.map((id) => toObjectId(String(id))) };
      const collection = this.db().collection(pivot.table);
      const found = await collection.find(filter, { session: this.session(tx), projection: { [pivot.relatedKey]: 1 } }).toArray();
      if (found.length === 0) return [];
      await collection.deleteMany({ _id: { $in: found.map((d) => d._id) } }, { session: this.session(tx) });
      return found.map((d) => String(outputValue(d[pivot.relatedKey])));
    },
    update: async (model, relation, rows, tx) => {
      if (rows.length === 0) return;
      const pivot = this.pivotOf(model, relation);
      const ops = rows
        .filter((r) => Object.keys(r.values).length > 0)
        .map((r) => ({
          updateOne: { filter: { [pivot.parentKey]: toObjectId(String(r.parentId)), [pivot.relatedKey]: toObjectId(String(r.relatedId)) }, update: { $set: r.values } },
        }));
      if (ops.length > 0) await this.db().collection(pivot.table).bulkWrite(ops, { session: this.session(tx), ordered: true });
    },
  };

  /** Locks what `records` reference, then checks it still exists: a foreign key's guarantee, in the caller's transaction. */
  private async lockReferences(model: string, records: Array<Record<string, unknown>>, tx: Transaction): Promise<void> {
    const catalog = this.requireCatalog();
    const keys = referencedKeys(catalog, model, records);
    if (keys.length === 0) return;
    await lockRecords(this.db(), this.session(tx), keys);
    const field = await assertReferencesExist(this.db(), this.session(tx), catalog, (m) => this.collection(m), model, records, toObjectId);
    if (field) throw new DriverFailure({ type: 'foreign_key_violation', field });
  }

  private pivotOf(model: string, relation: string): PivotInfo {
    const pivot = relationOf(this.requireCatalog().model(model), relation).pivot;
    if (!pivot) throw new Error(`${model}.${relation} has no pivot`);
    return pivot;
  }

  /** A pivot collection is known when a mongoose model of this connection stores it; its columns are the schema paths. */
  pivotColumns(table: string): string[] | null {
    const models = Object.values(this.conn().models) as AnyModel[];
    const model = models.find((m) => m.collection.collectionName === table);
    return model ? Object.keys(model.schema.paths) : null;
  }

  /**
   * One lock document per collection with a hierarchy: two transactions moving records of it write
   * it, so the later one conflicts (WriteConflict), is retried, and its cycle check reads the move
   * the other committed (snapshot isolation alone lets both pass their checks: write skew).
   */
  async lockHierarchy(model: string, tx: Transaction): Promise<void> {
    await lockRecords(this.db(), this.session(tx), [`__hierarchy:${this.collection(model)}`]);
  }

  translateError(error: unknown): DatabaseErrorInfo | null {
    return translateMongoError(error);
  }

  private options(tx: Transaction | undefined): { session?: ClientSession } {
    return tx ? { session: this.session(tx) } : {};
  }

  private session(tx: Transaction): ClientSession {
    if (tx.driver !== 'mongo' || !(tx as MongoTransaction).session) throw new Error('A transaction of another driver was passed to the MongoDB driver.');
    return (tx as MongoTransaction).session;
  }

  private model(name: string): AnyModel {
    const model = this.models[name];
    if (!model) throw new Error(`Model ${name} is not served by this MongoDB driver`);
    return model;
  }

  private collection(name: string): string {
    const entry = this.collections[name];
    if (!entry) throw new Error(`Model ${name} is not served by this MongoDB driver`);
    return entry.collection;
  }

  private conn(): Connection {
    return this.native();
  }

  private db(): Db {
    const db = this.conn().db;
    if (!db) throw new Error('The MongoDB connection is not open.');
    return db as unknown as Db;
  }
}

/** REST_DB_TIMEOUT_MS (default 30 s): the server-side limit of every read's aggregation. */
function readTimeoutMs(): number {
  const n = Number(process.env.REST_DB_TIMEOUT_MS);
  return Number.isSafeInteger(n) && n > 0 ? n : 30_000;
}

function pivotRow(pivot: PivotInfo, doc: Document): PivotRow {
  const values: Record<string, unknown> = {};
  for (const column of pivot.columns) values[column] = outputValue(doc[column]);
  return { parentId: String(outputValue(doc[pivot.parentKey])), relatedId: String(outputValue(doc[pivot.relatedKey])), values };
}

function withoutUndefined(changes: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(changes)) if (v !== undefined && k !== '_id' && k !== 'id') out[k] = v;
  return out;
}

/** `options.transactions`: as configureMongo's, for a driver passed in declarations (`driver:`). */
export function createMongoDriver(connection?: Connection, options: MongoConnectionOptions = {}): Driver {
  return new MongoDriver(connection, options);
}

/** `host:port` of a connection, for messages: never the user name or password. */
function whereOf(conn: Connection): string | undefined {
  const host = (conn as { host?: unknown }).host;
  const port = (conn as { port?: unknown }).port;
  return typeof host === 'string' && host ? `${host}${port ? `:${String(port)}` : ''}` : undefined;
}
