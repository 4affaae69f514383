import { capabilitiesOf, type DriverCapabilities } from '../driver/capabilities';
import { hasJsonReads, type JsonReads } from '../driver/json-read';
import type { Driver, HistoryCapability, IdempotencyCapability, Id, ListResult, PivotCapability, PivotRow, Row, Transaction, UpdateGuard, UpdateItem, UpsertChunk, UpsertOutcome } from '../driver';
import type { ListQuery } from '../query/ast';
import type { AggregateQuery, AggregateResult } from '../query/aggregate-ast';
import type { ResourceEntry } from './declarations/registry';
import { heldMark } from './held-key';
import type { RequestContext } from './request-context';

/**
 * The one door to a resource's database. Every read and write of the service, and through the
 * service of relations, exports, hierarchy and nested writes, calls the driver here and nowhere
 * else, so a native error becomes the API's error in one place (`translate`, the service's).
 *
 * Calls inside a transaction (`tx` given) pass errors through untouched: the driver's transaction
 * loop must see native errors (MongoDB retries on their labels), and the transaction call itself
 * translates what finally escapes. The driver is read from the entry at each call: the change
 * feed wraps it after start-up.
 */
export class Database {
  constructor(
    private readonly entry: ResourceEntry,
    private readonly translate: (error: unknown) => unknown,
  ) {}

  private get driver(): Driver {
    return this.entry.driver;
  }

  get kind(): string {
    return this.driver.kind;
  }

  /** What the driver can do, as plain flags. */
  get capabilities(): DriverCapabilities {
    return capabilitiesOf(this.driver);
  }

  /** Runs driver work; a native error becomes a typed one (the original kept as cause). */
  async guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.translate(error);
    }
  }

  private run<T>(tx: Transaction | undefined, work: () => Promise<T>): Promise<T> {
    return tx ? work() : this.guarded(work);
  }

  parseId(model: string, raw: string): Id | null {
    return this.driver.parseId(model, raw);
  }

  list(query: ListQuery, tx?: Transaction): Promise<ListResult> {
    return this.run(tx, () => this.driver.list(query, tx));
  }

  get canAggregate(): boolean {
    return this.capabilities.aggregates;
  }

  aggregate(query: AggregateQuery): Promise<AggregateResult> {
    return this.guarded(() => this.driver.aggregate!(query));
  }

  existingIds(model: string, ids: Id[], tx?: Transaction): Promise<Id[]> {
    return this.run(tx, () => this.driver.existingIds(model, ids, tx));
  }

  /** `ctx`: the request the writes are for, kept on the transaction (`Transaction.request`: history's actor, the Idempotency-Key's mark). */
  transaction<T>(work: (tx: Transaction) => Promise<T>, ctx?: RequestContext): Promise<T> {
    return this.guarded(() => this.begin(work, ctx));
  }

  /**
   * A transaction whose escaping errors the caller handles itself (the pipelined insert abandons
   * with its own sentinel, then translates what remains through `guarded`).
   */
  transactionUntranslated<T>(work: (tx: Transaction) => Promise<T>, ctx?: RequestContext): Promise<T> {
    return this.begin(work, ctx);
  }

  /**
   * Decision 80: a request holding an Idempotency-Key of this database marks it committed first
   * thing in its first write transaction (first, so a last statement that commits, `endsWithNext`,
   * still ends the transaction): the mark commits or rolls back with the writes.
   */
  private async begin<T>(work: (tx: Transaction) => Promise<T>, ctx: RequestContext | undefined): Promise<T> {
    if (!ctx) return this.driver.transaction(work);
    const hold = heldMark(ctx);
    if (!hold || hold.marked || hold.store !== this.idempotency) {
      return this.driver.transaction((tx) => {
        tx.request = ctx;
        return work(tx);
      });
    }
    // without transactions (a MongoDB deployment that has none) the mark would stand even if the
    // writes failed: it then follows them, so a failure before any write leaves the key free
    const atomic = this.capabilities.transactions;
    const result = await this.driver.transaction(async (tx) => {
      tx.request = ctx;
      if (atomic) await hold.store.markCommitted(hold.caller, hold.key, tx);
      const done = await work(tx);
      if (!atomic) await hold.store.markCommitted(hold.caller, hold.key, tx);
      return done;
    });
    hold.marked = true;
    return result;
  }

  insert(model: string, records: Record<string, unknown>[], tx: Transaction): Promise<Id[]> {
    return this.driver.insert(model, records, tx);
  }

  get canInsertRows(): boolean {
    return Boolean(this.driver.insertRows);
  }

  insertRows(model: string, records: Record<string, unknown>[], read: ListQuery): (tx: Transaction) => Promise<Row[]> {
    return this.driver.insertRows!(model, records, read);
  }

  get canUpdateRows(): boolean {
    return Boolean(this.driver.updateRows);
  }

  updateRows(model: string, items: UpdateItem[], tx: Transaction, read: ListQuery, allOrNone?: boolean): Promise<Row[]> {
    return this.driver.updateRows!(model, items, tx, read, allOrNone);
  }

  update(model: string, items: UpdateItem[], tx: Transaction, guard?: UpdateGuard): Promise<number> {
    return this.driver.update(model, items, tx, guard);
  }

  get canUpsert(): boolean {
    return Boolean(this.driver.upsert);
  }

  /** Decision 79: one chunk of an upsert, one statement or one bulkWrite. */
  upsert(model: string, chunk: UpsertChunk, tx: Transaction): Promise<UpsertOutcome> {
    if (!this.driver.upsert) throw new Error(`the ${this.driver.kind} driver cannot upsert`);
    return this.driver.upsert(model, chunk, tx);
  }

  /**
   * Decision 80: the Idempotency-Key store of this resource's database (null: the driver keeps
   * none); errors translated, except the mark written inside a transaction. One object per driver
   * store, so a held key knows its database.
   */
  get idempotency(): IdempotencyCapability | null {
    const store = this.driver.idempotency;
    if (!store) return null;
    if (this.keys?.raw !== store) {
      this.keys = {
        raw: store,
        door: {
          claim: (...args) => this.guarded(() => store.claim(...args)),
          markCommitted: (...args) => store.markCommitted(...args),
          complete: (...args) => this.guarded(() => store.complete(...args)),
          release: (...args) => this.guarded(() => store.release(...args)),
          ...(store.touch ? { touch: (caller: string, key: string) => this.guarded(() => store.touch!(caller, key)) } : {}),
        },
      };
    }
    return this.keys.door;
  }

  private keys: { raw: IdempotencyCapability; door: IdempotencyCapability } | null = null;

  /** Decision 83: the history entries of this resource's database (null: the driver keeps none); errors translated. */
  get history(): HistoryCapability | null {
    const store = this.driver.history;
    if (!store) return null;
    return {
      ensure: (...args) => this.guarded(() => store.ensure(...args)),
      append: (...args) => store.append(...args),
      read: (...args) => this.guarded(() => store.read(...args)),
      entry: (...args) => this.guarded(() => store.entry(...args)),
    };
  }

  delete(model: string, ids: Id[], tx: Transaction): Promise<Id[]> {
    return this.driver.delete(model, ids, tx);
  }

  get locksHierarchy(): boolean {
    return this.capabilities.hierarchyLocks;
  }

  lockHierarchy(model: string, tx: Transaction): Promise<void> {
    return this.driver.lockHierarchy ? this.driver.lockHierarchy(model, tx) : Promise.resolve();
  }

  /**
   * What is derived from the driver's methods, worked out once per driver object: its methods do
   * not change, but the change feed may put a wrapper in its place after start-up.
   */
  private derived: { driver: Driver; json: JsonReads | null; pivots: PivotCapability & Required<Pick<PivotCapability, 'lock'>> } | null = null;

  private get facts(): NonNullable<Database['derived']> {
    const driver = this.driver;
    if (this.derived?.driver !== driver) this.derived = { driver, json: hasJsonReads(driver) ? driver : null, pivots: this.pivotsFor() };
    return this.derived;
  }

  /** JSON text built by the database (issue 36: the SQL driver), or null: the usual read path answers. */
  get jsonReads(): JsonReads | null {
    return this.facts.json;
  }

  /** The native form of a list query, for the query log. */
  compile(query: ListQuery): unknown {
    return this.driver.compile?.(query);
  }

  /** Whether the driver writes pivot rows (many-to-many relation routes and nested links). */
  get hasPivots(): boolean {
    return this.capabilities.pivots;
  }

  /** Pivot rows of one parent, through the door like every other read and write (built once per driver). */
  get pivots(): PivotCapability & Required<Pick<PivotCapability, 'lock'>> {
    return this.facts.pivots;
  }

  private pivotsFor(): PivotCapability & Required<Pick<PivotCapability, 'lock'>> {
    const pivots = (): PivotCapability => {
      if (!this.driver.pivots) throw new Error(`the ${this.driver.kind} driver cannot write pivot rows`);
      return this.driver.pivots;
    };
    return {
      read: (model: string, relation: string, parentId: Id, relatedIds: Id[] | null, tx?: Transaction): Promise<PivotRow[]> =>
        this.run(tx, () => pivots().read(model, relation, parentId, relatedIds, tx)),
      attach: (...args: Parameters<PivotCapability['attach']>) => pivots().attach(...args),
      detach: (...args: Parameters<PivotCapability['detach']>) => pivots().detach(...args),
      update: (...args: Parameters<PivotCapability['update']>) => pivots().update(...args),
      lock: (model: string, relation: string, parentId: Id, tx: Transaction) => pivots().lock?.(model, relation, parentId, tx) ?? Promise.resolve(),
      link: this.driver.pivots?.link ? (...args: Parameters<NonNullable<PivotCapability['link']>>) => pivots().link!(...args) : undefined,
      guardedLink: this.driver.pivots?.guardedLink ? (...args: Parameters<NonNullable<PivotCapability['guardedLink']>>) => pivots().guardedLink!(...args) : undefined,
    };
  }

  get canStream(): boolean {
    return this.capabilities.streams;
  }

  /** Rows from a database cursor (exports); errors met while iterating are translated too. */
  async *stream(query: ListQuery, signal?: AbortSignal): AsyncIterable<Row> {
    if (!this.driver.streams) throw new Error(`the ${this.driver.kind} driver cannot stream rows`);
    try {
      yield* this.driver.streams.stream(query, signal);
    } catch (error) {
      throw this.translate(error);
    }
  }
}
