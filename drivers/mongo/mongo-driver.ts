import type { ClientSession, Db, Document } from 'mongodb';
import type { Connection, Model } from 'mongoose';
import { type DatabaseErrorInfo, type DescribedModel, type Driver, type Id, type ListResult, type PivotCapability, type Row, type StreamCapability, type Transaction, type UpdateGuard, type UpdateItem, type UpsertChunk, type UpsertOutcome } from '../../lib/driver';
import type { ListQuery, Scalar } from '../../lib/query/ast';
import type { ModelDeclaration } from '../../lib/resource/relation-declaration';
import { ConnectionDriver } from '../../lib/driver/connection-driver';
import { isHexId, toObjectId } from './compile-context';
import { compileList, type CompiledList } from './compile-list';
import { compileAggregate } from './compile-aggregate';
import { runAggregate } from './run-aggregate';
import type { AggregateQuery, AggregateResult } from '../../lib/query/aggregate-ast';
import { deleteWithRules } from './delete-rules';
import { lockHierarchyOf } from './hierarchy-locks';
import { readTimeoutMs } from './read-timeout';
import { createPivots } from './pivot-writes';
import { insertRecords, updateRecords, type WriteContext } from './write-operations';
import { describeMongooseModel } from './describe-model';
import type { ModelMap } from './model-map';
import { outputValue, serialize } from './serialize';
import { cursorPage } from '../../lib/driver/cursor-page';
import { connectionOptions, openedConnection, whereOf, type MongoConnectionOptions } from './connection-options';
import { readPreferenceFor } from './read-preference';
import { translateMongoError } from './translate-error';
import { upsertRecords } from './upsert-writes';
import { mongoHistoryStore } from './history-store';
import { mongoIdempotencyStore } from './idempotency-store';
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
  const m = (typeof model === 'function' ? model : {}) as unknown as { schema?: { paths?: unknown }; modelName?: unknown; db?: unknown; collection?: unknown };
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

  /** Plain flags of what this driver can do (lib/driver/capabilities.ts): without transactions on a standalone server. */
  capabilities(): { transactions: boolean } {
    return { transactions: this.transactionsOn() };
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
    await openedConnection(conn);
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
    const docs = await this.db().collection(plan.collection).aggregate<Document>(plan.pipeline, { ...this.options(tx), ...(tx ? {} : await readPreferenceFor(this.db())), maxTimeMS: readTimeoutMs() }).toArray();
    const page = plan.page;
    if (page?.kind === 'offset') {
      const facet = docs[0] ?? { data: [], total: [] };
      const data = (facet.data ?? []) as Document[];
      const total = ((facet.total ?? []) as Array<{ total?: number }>)[0]?.total ?? 0;
      return { rows: data.map((d) => serialize(d, plan.shape)), total };
    }
    if (page?.kind === 'cursor') {
      const { visible, hasMore, nextAfter } = cursorPage(docs, page.size, (last) => plan.keys.map((k) => outputValue(last[k.path]) as Scalar));
      return { rows: visible.map((d) => serialize(d, plan.shape)), hasMore, nextAfter };
    }
    return { rows: docs.map((d) => serialize(d, plan.shape)) };
  }

  /** Grouped aggregates: ONE aggregation (compile-aggregate.ts). */
  async aggregate(query: AggregateQuery, tx?: Transaction): Promise<AggregateResult> {
    await this.ready();
    const plan = compileAggregate(query, this.requireCatalog(), this.collections);
    return runAggregate(this.db().collection(plan.collection), plan, { ...this.options(tx), ...(tx ? {} : await readPreferenceFor(this.db())), maxTimeMS: readTimeoutMs() });
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
    return insertRecords(this.writes, model, records, tx);
  }

  async update(model: string, items: UpdateItem[], tx: Transaction, guard?: UpdateGuard): Promise<number> {
    return updateRecords(this.writes, model, items, tx, guard);
  }

  /** Decision 79: one bulkWrite of upserts per chunk; decision 80: the Idempotency-Key store; decision 83: history (history-store.ts). */
  upsert = (model: string, chunk: UpsertChunk, tx: Transaction): Promise<UpsertOutcome> => upsertRecords(this.writes, model, chunk, tx);
  readonly idempotency = mongoIdempotencyStore(() => this.db(), (tx) => this.session(tx as Transaction));
  readonly history = mongoHistoryStore(() => this.db(), (m) => this.collection(m), (tx) => this.session(tx));

  async delete(model: string, ids: Id[], tx: Transaction): Promise<Id[]> {
    if (ids.length === 0) return [];
    const rules = { catalog: this.requireCatalog(), db: this.db(), collection: (m: string) => this.collection(m), session: this.session(tx) };
    return (await deleteWithRules(rules, model, ids.map((id) => toObjectId(String(id))))).map((id) => String(outputValue(id)));
  }

  /** What the write operations and pivot writes need of this driver. */
  private readonly writes: WriteContext = {
    catalog: () => this.requireCatalog(),
    db: () => this.db(),
    collection: (m) => this.collection(m),
    session: (tx) => this.session(tx),
    options: (tx) => this.options(tx),
    model: (name) => this.model(name),
  };

  /** Many-to-many pivot documents: one command per call (pivot-writes.ts). */
  readonly pivots: PivotCapability = createPivots(this.writes);

  /** A pivot collection is known when a mongoose model of this connection stores it; its columns are the schema paths. */
  pivotColumns(table: string): string[] | null {
    const models = Object.values(this.conn().models) as AnyModel[];
    const model = models.find((m) => m.collection.collectionName === table);
    return model ? Object.keys(model.schema.paths) : null;
  }

  /** One lock document per collection with a hierarchy (hierarchy-locks.ts). */
  async lockHierarchy(model: string, tx: Transaction): Promise<void> {
    await lockHierarchyOf(this.db(), this.session(tx), this.collection(model));
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

/** `options.transactions`: as configureMongo's, for a driver passed in declarations (`driver:`). */
export function createMongoDriver(connection?: Connection, options: MongoConnectionOptions = {}): Driver {
  return new MongoDriver(connection, options);
}
