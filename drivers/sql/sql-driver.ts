import type { Model, ModelStatic, Sequelize } from 'sequelize';
import { DriverFailure, isDriverFailure, type DatabaseErrorInfo, type DescribedModel, type Driver, type Id, type ListResult, type PivotCapability, type Row, type Transaction, type UpdateGuard, type UpdateItem, type UpsertChunk, type UpsertOutcome } from '../../lib/driver';
import { createPivots } from './pivot-writes';
import { restrictHolders, runGuardedDelete } from './delete-rules';
import { lockOrRetry } from './advisory-locks';
import { compileHierarchyLock, compileHierarchyTryLock } from './compile-tree';
import type { ListQuery } from '../../lib/query/ast';
import type { Catalog } from '../../lib/resource/model-info';
import type { ModelDeclaration } from '../../lib/resource/relation-declaration';
import { ConnectionDriver } from '../../lib/driver/connection-driver';
import { compileList, RelationPlanCache, type CompiledList } from './compile-list';
import { compileAggregate } from './compile-aggregate';
import { runAggregate } from './run-aggregate';
import type { AggregateQuery, AggregateResult } from '../../lib/query/aggregate-ast';
import { selectFields } from './compile-relations';
import { CompileContext } from './compile-context';
import { runUpsert } from './compile-upsert';
import { sqlHistoryStore } from './history-store';
import { sqlIdempotencyStore } from './idempotency-store';
import { compileExistingIds, compileInsert, compileUpdate, type InsertDefaults } from './compile-writes';
import { describeSequelizeModel } from './describe-model';
import { modelDefaults, pivotColumnsOf } from './model-columns';
import type { SqlStatement } from './sql-builder';
import type { StorageInfo } from './model-map';
import { translateSqlError } from './translate-error';
import { runStatement, withLease, type Target, type TxTarget } from './run-statement';
import { inTransaction, readsCommitted, targetOf, type SqlTransaction } from './sql-transaction';
export type { SqlTransaction } from './sql-transaction';
import { allOrNone, isShortfall } from './all-or-none';
import { shapeRow, type LoadContext } from './load-relations';
import { runList } from './run-list';
import { ServerFacts } from './server-facts';
import { learnColumnTypes } from './column-types';
import type { HiddenFields, JsonPlan, JsonReadOptions, JsonReads, JsonRows } from '../../lib/driver/json-read';
import { JsonHeadCache, type CompiledJson } from './compile-json';
import { planJson, runJson } from './read-json';
import { lostConnection } from './lost-connection';
import { closeReplicas } from './read-routing';
import { sqlOptions } from './sql-options';
import { useReplicas } from '../../lib/driver/read-route';

type AnyModel = ModelStatic<Model>;

/** True for a Sequelize model class (a class with `getAttributes` and a `sequelize` instance). */
export function isSequelizeModel(model: unknown): boolean {
  if (typeof model !== 'function') return false;
  const m = model as unknown as { getAttributes?: unknown; sequelize?: { query?: unknown }; rawAttributes?: unknown };
  return typeof m.getAttributes === 'function' && !!m.rawAttributes && typeof m.sequelize?.query === 'function';
}

/**
 * The Sequelize/PostgreSQL driver. Statements are hand-built SQL with bound parameters, run on
 * the pg clients of Sequelize's pool and transactions (run-statement.ts); a list is a constant number of
 * statements: the page, its count, and one per eager-loaded relation level.
 */
export class SqlDriver extends ConnectionDriver<Sequelize> implements Driver, JsonReads {
  readonly kind = 'sql';
  private readonly tables: Record<string, StorageInfo> = {};
  private readonly models: Record<string, AnyModel> = {};
  private readonly maxIds: Record<string, number> = {};
  private readonly relationPlans = new RelationPlanCache();
  private readonly loader: LoadContext = { catalog: () => this.requireCatalog(), run: (s, t) => this.run(s, t) };
  private readonly jsonHeads = new JsonHeadCache();
  /** The server's version and case fold (server-facts.ts): compiles before they are known use the default fold and no cache. */
  private readonly facts = new ServerFacts((s) => this.run(s, undefined));

  protected isNativeModel(model: unknown): boolean {
    return isSequelizeModel(model);
  }

  protected connectionOf(model: unknown): Sequelize {
    return (model as AnyModel).sequelize as Sequelize;
  }

  describe(declaration: ModelDeclaration, modelNameOf: (nativeName: string) => string | undefined): DescribedModel {
    const model = declaration.model as AnyModel;
    this.adopt(model);
    if (sqlOptions(this.db()).replicas?.length) useReplicas(); // callers' writes are marked from the first (decision 86)
    const { described, table, maxId } = describeSequelizeModel(declaration, modelNameOf);
    this.tables[declaration.MODEL] = table;
    this.models[declaration.MODEL] = model;
    this.maxIds[declaration.MODEL] = maxId;
    return described;
  }

  /** Starts asking the server at start (router()), so the first request compiles for it. */
  override bind(catalog: Catalog): void {
    super.bind(catalog);
    if (this.connectionOrUndefined()) void this.ready().catch(() => undefined);
  }

  /** Learns the server's facts and the tables' column types once (api.ready() awaits it); a failure is asked again by the next call. */
  ready = (): Promise<void> => (this.learned ??= Promise.all([this.facts.learn(), learnColumnTypes((s) => this.run(s, undefined), Object.values(this.tables))]).then(() => undefined, (error: unknown) => { this.learned = null; throw error; }));
  private learned: Promise<void> | null = null;

  parseId(model: string, raw: string): Id | null {
    if (!/^[1-9][0-9]{0,15}$/.test(raw)) return null;
    const id = Number(raw);
    return id <= (this.maxIds[model] ?? 2147483647) ? id : null;
  }

  compile(query: ListQuery): CompiledList {
    const known = this.facts.known;
    return compileList(query, this.requireCatalog(), this.tables, known ? this.relationPlans : undefined, known?.caseFold ?? null);
  }

  async list(query: ListQuery, tx?: Transaction): Promise<ListResult> {
    if (!this.facts.known) await this.ready();
    const plan = this.compile(query);
    const t = this.tx(tx);
    const budget = () => (query.loadLimit === undefined ? null : { limit: query.loadLimit, left: query.loadLimit });
    if (t) return runList(this.loader, plan, t, budget());
    try {
      return await withLease(this.db(), (lease) => runList(this.loader, plan, lease, budget()));
    } catch (error) {
      // a read outside a transaction writes nothing: one more try on a fresh connection when the
      // one it had was lost (a pooled connection to a restarted server, a reset mid-query)
      if (!this.lostConnection(error)) throw error;
      return withLease(this.db(), (lease) => runList(this.loader, plan, lease, budget()));
    }
  }

  /** Issue 36: a list/show as one statement building the answer's JSON (compile-json.ts); null: not renderable. */
  planJson(query: ListQuery, hidden: HiddenFields | null, options: JsonReadOptions = {}): JsonPlan | null {
    // before the facts are known the usual path answers (list() awaits them)
    if (!this.facts.known) return null;
    // a one-record read the usual path answers in one statement stays there (JsonReadOptions.single)
    if (options.single && this.compile(query).statements.length <= 1) return null;
    return planJson({ catalog: this.requireCatalog(), tables: this.tables, models: this.models, heads: this.jsonHeads, caseFold: this.facts.known.caseFold }, query, hidden);
  }

  runJson(plan: JsonPlan, tx?: Transaction): Promise<JsonRows> {
    const context = { catalog: this.requireCatalog(), tables: this.tables, models: this.models, heads: this.jsonHeads, db: this.db(), run: (s: SqlStatement, t: Target) => this.run(s, t), lost: (e: unknown) => this.lostConnection(e) };
    return runJson(context, plan as CompiledJson, this.tx(tx));
  }

  async readJson(query: ListQuery, hidden: HiddenFields | null, options: JsonReadOptions = {}, tx?: Transaction): Promise<JsonRows | null> {
    if (!this.facts.known) await this.ready();
    const plan = this.planJson(query, hidden, options);
    return plan ? this.runJson(plan, tx) : null;
  }

  private lostConnection(error: unknown): boolean {
    return lostConnection(error, this.translateError(error));
  }

  /** The replicas' pools (decision 86); the application closes its own Sequelize. */
  async close(): Promise<void> {
    const db = this.connectionOrUndefined();
    if (db) await closeReplicas(db);
  }

  /** Grouped aggregates: ONE statement (compile-aggregate.ts). */
  async aggregate(query: AggregateQuery, tx?: Transaction): Promise<AggregateResult> {
    const { caseFold } = this.facts.known ?? (await this.facts.learn());
    return runAggregate(this.db(), compileAggregate(query, this.requireCatalog(), this.tables, caseFold), this.tx(tx));
  }

  async existingIds(model: string, ids: Id[], tx?: Transaction): Promise<Id[]> {
    if (ids.length === 0) return [];
    const key = this.requireCatalog().model(model).key;
    const rows = await this.run(compileExistingIds(this.table(model), key, ids), this.tx(tx));
    const found = new Set(rows.map((r) => String(r[key])));
    return ids.filter((id) => found.has(String(id)));
  }

  /** Plain flags of what this driver can do (lib/driver/capabilities.ts). */
  capabilities(): { pipelinedTransactions: boolean } {
    // a transaction's connection is pipelined (sql-transaction.ts)
    return { pipelinedTransactions: true };
  }

  /**
   * One transaction; a deadlock or serialization failure (40P01, 40001) rolls it back and runs it
   * again, at most 3 more times with a short jittered pause, as PostgreSQL's manual advises. The
   * facts are known before it starts: what compiles inside (pivot guards, lists) uses them.
   */
  async transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    if (!this.facts.known) await this.ready();
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await inTransaction(this.db(), (t) => work({ driver: 'sql', t } as SqlTransaction));
      } catch (error) {
        if (attempt >= 3 || this.translateError(error)?.type !== 'conflict') throw error;
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * (attempt + 1)));
      }
    }
  }

  async insert(model: string, records: Record<string, unknown>[], tx: Transaction): Promise<Id[]> {
    if (records.length === 0) return [];
    const info = this.table(model);
    const key = this.requireCatalog().model(model).key;
    const rows = await this.run(compileInsert(info, key, records, [key], this.defaultsOf(model)), this.tx(tx));
    return rows.map((r) => Number(r[key]));
  }

  /** One INSERT ... RETURNING the read's columns: the new rows without reading them back. */
  insertRows(model: string, records: Record<string, unknown>[], read: ListQuery): (tx: Transaction) => Promise<Row[]> {
    if (records.length === 0) return async () => [];
    const fields = selectFields(this.compiler(), model, read.select, []);
    const key = this.requireCatalog().model(model).key;
    const statement = compileInsert(this.table(model), key, records, fields, this.defaultsOf(model));
    return async (tx) => (await this.run(statement, this.tx(tx))).map((r) => this.shape(model, fields, r));
  }

  async update(model: string, items: UpdateItem[], tx: Transaction, guard?: UpdateGuard): Promise<number> {
    if (items.length === 0) return 0;
    const { key, versionField } = this.requireCatalog().model(model);
    return (await this.run(compileUpdate(this.table(model), key, items, guard, [key], versionField), this.tx(tx))).length;
  }

  /** One UPDATE ... RETURNING the read's columns: the changed rows without reading them back. */
  async updateRows(model: string, items: UpdateItem[], tx: Transaction, read: ListQuery, all = false): Promise<Row[]> {
    if (items.length === 0) return [];
    const fields = selectFields(this.compiler(), model, read.select, []);
    const { key, versionField } = this.requireCatalog().model(model);
    const update = compileUpdate(this.table(model), key, items, undefined, fields, versionField);
    const target = this.tx(tx);
    // a shortfall: nothing written
    const rows = await this.run(all ? allOrNone(update, items.length) : update, target).catch((error: unknown) => (all && isShortfall(error) ? [] : Promise.reject(error)));
    return rows.map((r) => this.shape(model, fields, r));
  }

  /** Decision 79: one chunk of an upsert in one statement (compile-upsert.ts); decision 80: the Idempotency-Key store; decision 83: history (history-store.ts). */
  upsert = (model: string, chunk: UpsertChunk, tx: Transaction): Promise<UpsertOutcome> => runUpsert(this.table(model), this.requireCatalog().model(model), chunk, this.defaultsOf(model), (s) => this.run(s, this.tx(tx)), chunk.read ? selectFields(this.compiler(), model, chunk.read.select, []) : [], (fields, raw) => this.shape(model, fields, raw), this.history.returnsOld());
  readonly idempotency = sqlIdempotencyStore((s) => this.transaction((tx) => this.run(s, this.tx(tx))), (s, tx) => this.run(s, this.tx(tx as Transaction))); // writes: never a read lease (a replica, READ ONLY)
  readonly history = sqlHistoryStore({ table: (m) => this.table(m), model: (m) => this.requireCatalog().model(m), run: (s, tx) => this.run(s, this.tx(tx as Transaction | undefined)), write: (s) => this.transaction((tx) => this.run(s, this.tx(tx))), fields: (m, read) => selectFields(this.compiler(), m, read.select, []), shape: (m, fields, raw) => this.shape(m, fields, raw), delete: (m, ids, tx, whole) => this.deleteRows(m, ids, tx as Transaction, whole), version: async () => (await this.facts.learn()).version });

  /** One `DELETE ... RETURNING`: exactly the rows this statement removed (a concurrent delete's rows are not reported). */
  async delete(model: string, ids: Id[], tx: Transaction): Promise<Id[]> {
    return (await this.deleteRows(model, ids, tx)).ids;
  }

  /** The DELETE with decision 78's restrict counts (delete-rules.ts); `whole`: columns each removed row answers too (history). */
  private deleteRows(model: string, ids: Id[], tx: Transaction, whole: string[] = []): Promise<{ ids: Id[]; raw: Record<string, unknown>[] }> {
    return runGuardedDelete((s) => this.run(s, this.tx(tx)), this.table(model), this.requireCatalog().model(model).key, ids, restrictHolders(this.requireCatalog(), this.tables, model), (e) => this.translateError(e), whole);
  }

  /** Many-to-many pivot rows: one statement per call (pivot-writes.ts). */
  readonly pivots: PivotCapability = createPivots({ catalog: () => this.requireCatalog(), run: (s, t) => this.run(s, t), tx: (tx) => this.tx(tx), compiler: () => this.compiler(), readsCommitted: () => readsCommitted(this.db()) });

  /** A pivot table is known when a Sequelize model of this instance maps it; its columns are the attributes' fields. */
  pivotColumns(table: string): string[] | null {
    return pivotColumnsOf(this.db(), table);
  }

  async lockHierarchy(model: string, tx: Transaction): Promise<void> {
    const info = this.table(model);
    const table = info.schema ? `${info.schema}.${info.table}` : info.table;
    await lockOrRetry((s, t) => this.run(s, t), compileHierarchyTryLock(table), compileHierarchyLock(table), this.tx(tx));
  }

  translateError(error: unknown): DatabaseErrorInfo | null {
    return translateSqlError(error, this.tables);
  }

  /** A compile context for the server's case fold (the default one's until it is known). */
  private compiler(): CompileContext {
    return new CompileContext(this.requireCatalog(), this.tables, this.facts.known?.caseFold ?? null);
  }

  /** A raw row -> output row: the selected fields, typed. */
  private shape(model: string, fields: string[], raw: Record<string, unknown>): Row {
    return shapeRow(this.loader, model, fields, raw);
  }

  /** Each attribute's model default (what Sequelize's build would set), made per record. */
  private defaultsOf(model: string): InsertDefaults {
    return modelDefaults(this.models[model]);
  }

  private run(statement: SqlStatement, t: Target): Promise<Record<string, unknown>[]> {
    return runStatement(this.db(), statement, t);
  }

  private tx(tx: Transaction | undefined): TxTarget | undefined {
    return targetOf(tx);
  }

  private table(model: string): StorageInfo {
    const info = this.tables[model];
    if (!info) throw new Error(`Model ${model} is not served by this SQL driver`);
    return info;
  }

  private db(): Sequelize {
    return this.native();
  }
}

export function createSqlDriver(sequelize?: Sequelize): Driver {
  return new SqlDriver(sequelize);
}
