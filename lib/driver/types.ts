import type { DatabaseErrorInfo } from '../errors/database-error';
import type { IdempotencyCapability, UpsertChunk, UpsertOutcome } from './write-types';
export type * from './write-types';
export type * from './history-types';
import type { HistoryCapability } from './history-types';
export type { DatabaseErrorInfo, DatabaseErrorType } from '../errors/database-error';
import type { AggregateQuery, AggregateResult } from '../query/aggregate-ast';
import type { Filter, ListQuery, RelationLoad, Scalar } from '../query/ast';
export type { ReadOptions } from '../query/ast';
import type { Catalog, ModelInfo } from '../resource/model-info';
import type { ModelDeclaration } from '../resource/relation-declaration';

/** A record id as exposed: ObjectId hex string (MongoDB) or integer (SQL). */
export type Id = string | number;

/**
 * A record as a driver returns it: plain JSON-ready values except Date objects for dates (the HTTP
 * layer formats them), relations nested (to-one: object or null; to-many: array; many-to-many
 * items carry `pivot`). Never contains `_id`, `__v` or write-only fields.
 */
export type Row = Record<string, unknown>;

export interface ListResult {
  rows: Row[];
  /** Offset pages: the number of matching root records. */
  total?: number;
  /** Cursor pages: whether more rows follow, and the order-key values of the last row returned. */
  hasMore?: boolean;
  nextAfter?: Scalar[] | null;
}

/** An open transaction; opaque outside the driver that made it. */
export interface Transaction {
  readonly driver: string;
  /**
   * Set by a caller just before the transaction's last statement, when nothing after it can still
   * fail: the driver may commit with that statement (SQL: COMMIT written right behind it, one round
   * trip fewer; if the statement fails, nothing is committed). Drivers may ignore it.
   */
  endsWithNext?: boolean;
  /** The request it runs for (the service's RequestContext, set by its door): history's actor is read here, not from an AsyncLocalStorage. */
  request?: unknown;
}

export interface UpdateItem {
  id: Id;
  changes: Record<string, unknown>;
  /**
   * Decision 81: the version the caller read. The row is written only while its version field
   * still holds it (compared inside the write, never read first); a row that does not is left
   * untouched and not counted. -1 never matches (a weak or malformed tag).
   */
  expected?: number;
}

/** Only rows whose `field` is null (`isNull`) or not null are updated: soft delete and restore, race-free. */
export interface UpdateGuard {
  field: string;
  isNull: boolean;
}

/**
 * How a driver reports a failure it detected itself (a restrict rule on MongoDB, ...): plain data
 * on an Error, so drivers never import the library's error classes; the service renders it.
 */
export class DriverFailure extends Error {
  readonly driverFailure = true;
  constructor(readonly info: DatabaseErrorInfo) {
    super(info.type);
  }
}

export function isDriverFailure(error: unknown): error is DriverFailure {
  return error instanceof Error && (error as Partial<DriverFailure>).driverFailure === true;
}

/**
 * Model facts the driver reads from the native model; the registry merges the declaration in.
 * `paranoid`: the model itself says it is soft-deletable (a Sequelize paranoid model) through this field.
 */
export type DescribedModel = Omit<ModelInfo, 'fillable' | 'fieldsByRole' | 'hierarchyField' | 'name' | 'softDelete' | 'owner'> & { paranoid?: string };

/** One pivot row of a many-to-many relation: the two keys and the extra pivot columns. */
export interface PivotRow {
  parentId: Id;
  relatedId: Id;
  values: Record<string, unknown>;
}

/** What a set-based link write does: attach the new ids, sync the set (detach the others, update changed values), or toggle. */
export type PivotLinkMode = 'attach' | 'sync' | 'toggle';

/** The related ids a link write changed, in the relation routes' answer order. */
export interface PivotLinkOutcome {
  attached: Id[];
  detached: Id[];
  updated: Id[];
}

/**
 * Many-to-many pivot reads and writes (capability): each call is ONE statement / operation
 * whatever the number of ids. `relation` is a belongsToMany relation of `model`.
 */
export interface PivotCapability {
  /** The pivot rows of one parent, all or those of `relatedIds`. */
  read(model: string, relation: string, parentId: Id, relatedIds: Id[] | null, tx?: Transaction): Promise<PivotRow[]>;
  /**
   * Inserts pivot rows (`values` hold only allowed pivot columns); a pair already present is left as
   * it is. Answers the related ids this call inserted (what the database changed, not what was asked).
   */
  attach(model: string, relation: string, rows: PivotRow[], tx: Transaction): Promise<Id[]>;
  /** Removes the pivot rows of `relatedIds` (all when null); returns the related ids detached. */
  detach(model: string, relation: string, parentId: Id, relatedIds: Id[] | null, tx: Transaction): Promise<Id[]>;
  /** Sets pivot column values of existing pivot rows (each row's own columns; absent ones keep their value). */
  update(model: string, relation: string, rows: PivotRow[], tx: Transaction): Promise<void>;
  /**
   * Optional: the first statement of a transaction that changes one parent's pivot rows. Concurrent
   * such transactions of the same parent and relation run one after the other (PostgreSQL: an
   * advisory lock; MongoDB: a write to one lock document, so the later one conflicts, is retried
   * and reads what the other committed): a sync reads the set it replaces.
   */
  lock?(model: string, relation: string, parentId: Id, tx: Transaction): Promise<void>;
  /**
   * Optional: an attach, sync or toggle of one parent's links (`wanted`: distinct ids, each with its
   * allowed pivot values) as one set-based write, after `lock` in the same transaction; without it
   * the relation routes read the links and call detach, update and attach.
   */
  link?(model: string, relation: string, parentId: Id, wanted: Array<{ id: Id; values: Record<string, unknown> }>, mode: PivotLinkMode, tx: Transaction): Promise<PivotLinkOutcome>;
  /**
   * Optional: `link` with its checks and its lock in one round trip, the first statements of the
   * transaction: the lock, then the write whose own conditions are the parent's visibility
   * (nothing written when it is not visible) and each related id's (an id not visible is left
   * out). Null when the driver cannot here (a transaction whose snapshot predates the lock:
   * REPEATABLE READ); the caller then checks, locks and links in steps.
   */
  guardedLink?(model: string, relation: string, parentId: Id, wanted: Array<{ id: Id; values: Record<string, unknown> }>, mode: PivotLinkMode, guard: LinkGuard, tx: Transaction): Promise<GuardedLinkOutcome | null>;
}

/** The read scopes a guarded link checks (null: every record is visible). */
export interface LinkGuard {
  /** The parent's scope; undefined when the parent is not checked (the caller is the parent). */
  parent?: Filter | null;
  related: Filter | null;
}

export interface GuardedLinkOutcome extends PivotLinkOutcome {
  /** False when the parent was not visible: nothing was written. */
  parentVisible: boolean;
  /** The wanted related ids that were visible (the others were left out). */
  visible: Id[];
}

/** Rows of a list query as a stream from a database cursor (capability: exports). */
export interface StreamCapability {
  stream(query: ListQuery, signal?: AbortSignal): AsyncIterable<Row>;
}

/**
 * What every driver implements. The service and HTTP layers only talk to this.
 * All write methods run inside a transaction opened with `transaction()`; reads accept one too so
 * a write can return what it wrote. Anything that narrows visible records (ownership, soft delete,
 * a relation route's parent) arrives as part of a Filter: drivers have no notion of scopes.
 */
export interface Driver {
  readonly kind: string;

  /**
   * Describe a declared model: fields and types from the model, relations derived from the
   * model (mongoose refs/virtuals, Sequelize associations) merged with the declared ones.
   * `modelNameOf` maps a native model name (mongoose modelName, Sequelize name) to a MODEL.
   */
  describe(declaration: ModelDeclaration, modelNameOf: (nativeName: string) => string | undefined): DescribedModel;

  /** Called once every resource is described, before the first request. */
  bind(catalog: Catalog): void;

  /** Parse a path id; null when it cannot be an id of that model (-> 404). */
  parseId(model: string, raw: string): Id | null;

  /** One list page: ONE aggregation on MongoDB, a constant number of statements on SQL. */
  list(query: ListQuery, tx?: Transaction): Promise<ListResult>;

  /**
   * Grouped aggregates (decisions 55-57): ONE aggregation on MongoDB, ONE statement on SQL, the
   * number of groups in the same round trip. Values come back output-ready, like a list's rows.
   */
  aggregate?(query: AggregateQuery, tx?: Transaction): Promise<AggregateResult>;

  /** Which of `ids` exist, in one query (scoped existence goes through `list` with the scope's filter). */
  existingIds(model: string, ids: Id[], tx?: Transaction): Promise<Id[]>;

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;

  /** Insert records (already validated, fillable only) in one bulk operation; returns their ids in order. */
  insert(model: string, records: Record<string, unknown>[], tx: Transaction): Promise<Id[]>;

  /**
   * Optional: insert as `insert` does and return the new rows as `list(read)` would read them
   * (`read`: the by-ids read of the new records, its select narrowed to the caller's view; no
   * relations), in the statement that inserts them. Saves reading back a bulk insert. The
   * statement is built when this is called and sent when the returned function is, so a caller
   * can build one while the database runs another.
   */
  insertRows?(model: string, records: Record<string, unknown>[], read: ListQuery): (tx: Transaction) => Promise<Row[]>;

  /**
   * Optional: `update` without a guard, returning the updated rows as `insertRows` does. With
   * `allOrNone`, an item whose id matches no row makes the statement write nothing (answer: `[]`),
   * so the caller may commit with it (Transaction.endsWithNext) and still roll back a 404.
   */
  updateRows?(model: string, items: UpdateItem[], tx: Transaction, read: ListQuery, allOrNone?: boolean): Promise<Row[]>;

  /**
   * Apply changes to existing records (bulk, one statement); updated_at is set by the driver, and
   * the model's version field (decision 81) is incremented on each record written. Returns how
   * many records were updated (with a guard, those that still passed it; with preconditions
   * (`expected`), `items.length` when every one held, else fewer: the caller rolls back).
   */
  update(model: string, items: UpdateItem[], tx: Transaction, guard?: UpdateGuard): Promise<number>;

  /**
   * Optional (decision 79): one chunk of an upsert as ONE statement (PostgreSQL: INSERT ... ON
   * CONFLICT ... DO UPDATE) or ONE bulkWrite of upserts (MongoDB), in the caller's transaction.
   * A matched record is written only where a value it gives differs; the version field moves with
   * each write. Concurrent upserts of the same new key never fail and never create two records.
   */
  upsert?(model: string, chunk: UpsertChunk, tx: Transaction): Promise<UpsertOutcome>;

  /**
   * Delete records and return the ids this call really removed (a concurrent delete may have
   * won), enforcing declared foreign keys of referencing models: restrict -> a
   * DriverFailure foreign_key_violation, cascade deletes, setNull clears. Pivot rows cascade.
   */
  delete(model: string, ids: Id[], tx: Transaction): Promise<Id[]>;

  /**
   * Optional: the first statement of a transaction that changes the hierarchy field of `model`.
   * Concurrent such transactions of the same model run one after the other, each seeing what the
   * previous committed, so the cycle check after the move cannot miss a concurrent move (write skew).
   */
  lockHierarchy?(model: string, tx: Transaction): Promise<void>;

  /** Translate a native error; null when it is not a database error this driver knows. */
  translateError(error: unknown): DatabaseErrorInfo | null;

  /** The native form of a list query (pipeline / SQL), for the query log (LOG_QUERY=true). */
  compile?(query: ListQuery): unknown;

  /** Columns of a pivot table / collection the database layer knows (null: unknown), for start-up checks. */
  pivotColumns?(table: string): string[] | null;

  /**
   * Optional: asks the database, once, whether the driver can serve it (the MongoDB driver checks the
   * server's topology and version, decision 65) and what it compiles for (the SQL driver learns the
   * server's version and ilike's case fold); rejects with the reason and what to do. Started
   * when the driver is bound; `api.ready()` awaits it.
   */
  ready?(): Promise<void>;

  /** Close connections owned by the driver (not the application's). */
  close?(): Promise<void>;

  /** Capabilities the optional methods cannot show (lib/driver/capabilities.ts), e.g. `{transactions: false}`. */
  capabilities?(): Partial<DriverCapabilities>;

  /** Optional capabilities; a feature that needs one refuses at start-up when it is absent. */
  readonly pivots?: PivotCapability;
  readonly streams?: StreamCapability;
  readonly idempotency?: IdempotencyCapability;
  /** Decision 83: per-resource history entries. */
  readonly history?: HistoryCapability;
}

/**
 * What a driver can do, as plain flags (Kysely's style): features check a flag, never probe a
 * method. A driver states `capabilities` for what its methods cannot show (MongoDB without a
 * replica set has no multi-document transactions); the rest follows from the optional methods.
 */
export interface DriverCapabilities {
  /** Writes of one request commit or roll back together. */
  transactions: boolean;
  /** Many-to-many pivot reads and writes (relation routes, nested links). */
  pivots: boolean;
  /** Rows from a database cursor (exports); else keyset pages. */
  streams: boolean;
  /** Grouped aggregates (GET /{resource}/aggregate). */
  aggregates: boolean;
  /** Inserts and updates that return the written rows in the same statement. */
  returningWrites: boolean;
  /** A lock that serializes hierarchy moves of one model. */
  hierarchyLocks: boolean;
  /**
   * Statements of one transaction may be issued together and are answered in order (PostgreSQL's
   * pipelined connection): independent checks inside a transaction cost one round trip together.
   * Without it, a transaction's operations run one after another (a MongoDB session).
   */
  pipelinedTransactions: boolean;
}
