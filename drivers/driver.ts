import type { ListQuery, RelationLoad, Scalar } from '../lib/query/ast';
import type { Catalog, ModelInfo } from '../lib/resource/model-info';
import type { ResourceDeclaration } from '../lib/resource/declaration';

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

export interface ReadOptions {
  select: string[] | null;
  relations: RelationLoad[];
}

/** An open transaction; opaque outside the driver that made it. */
export interface Transaction {
  readonly driver: string;
}

export interface UpdateItem {
  id: Id;
  changes: Record<string, unknown>;
}

export type DatabaseErrorType =
  | 'unique_violation'
  | 'foreign_key_violation'
  | 'not_null_violation'
  | 'validation_error'
  | 'bad_request'
  | 'connection_error'
  | 'database_error';

/** A database error translated into the API's terms (the original goes to the db-error log). */
export interface DatabaseErrorInfo {
  type: DatabaseErrorType;
  field?: string;
  /** Field -> messages, for validation errors raised by the model layer (mongoose validators). */
  errors?: Record<string, string[]>;
}

/** Model facts the driver reads from the native model; the registry merges the declaration in. */
export type DescribedModel = Omit<ModelInfo, 'fillable' | 'fieldsByRole' | 'hierarchyField' | 'name'>;

/**
 * What every driver implements. The service and HTTP layers only talk to this.
 * All write methods run inside a transaction opened with `transaction()`; reads accept one too so
 * a write can return what it wrote.
 */
export interface Driver {
  readonly kind: string;

  /** True when this driver can serve the given native model. */
  accepts(model: unknown): boolean;

  /**
   * Describe a declared resource: fields and types from the model, relations derived from the
   * model (mongoose refs/virtuals, Sequelize associations) merged with the declared ones.
   * `modelNameOf` maps a native model name (mongoose modelName, Sequelize name) to a MODEL.
   */
  describe(declaration: ResourceDeclaration, modelNameOf: (nativeName: string) => string | undefined): DescribedModel;

  /** Called once every resource is described, before the first request. */
  bind(catalog: Catalog, declarations: ReadonlyMap<string, ResourceDeclaration>): void;

  /** Parse a path id; null when it cannot be an id of that model (-> 404). */
  parseId(model: string, raw: string): Id | null;

  /** One list page: ONE aggregation on MongoDB, a constant number of statements on SQL. */
  list(query: ListQuery, tx?: Transaction): Promise<ListResult>;

  /** Records by id, in the order of `ids`, absent ids skipped. */
  findByIds(model: string, ids: Id[], options: ReadOptions, tx?: Transaction): Promise<Row[]>;

  /** Which of `ids` exist. */
  existingIds(model: string, ids: Id[], tx?: Transaction): Promise<Id[]>;

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;

  /** Insert records (already validated, fillable only) in one bulk operation; returns their ids in order. */
  insert(model: string, records: Record<string, unknown>[], tx: Transaction): Promise<Id[]>;

  /** Apply changes to existing records (bulk); updated_at is set by the driver. */
  update(model: string, items: UpdateItem[], tx: Transaction): Promise<void>;

  /**
   * Delete records, enforcing declared foreign keys of referencing models: restrict -> throws a
   * foreign_key_violation DatabaseError, cascade deletes, setNull clears. Pivot rows cascade.
   */
  delete(model: string, ids: Id[], tx: Transaction): Promise<void>;

  /** Translate a native error; null when it is not a database error this driver knows. */
  translateError(error: unknown): DatabaseErrorInfo | null;

  /** The native form of a list query (pipeline / SQL), for the query log (LOG_QUERY=true). */
  compile?(query: ListQuery): unknown;

  /** Close connections owned by the driver (not the application's). */
  close?(): Promise<void>;
}
