import type { Driver, Id } from '../../lib/driver';
import type { Catalog } from '../../lib/resource/model-info';

/**
 * What a driver contract case is given: a driver built directly against a real database (no HTTP,
 * no service), bound to a catalog of the example domain, and a native view of the database to
 * check its state without going through the driver under test.
 *
 * The domain every driver file declares (same MODEL names, same fields):
 * - category {name, parent_id -> category (restrict)}
 * - product {name, sku (unique), price, stock (default 0), description (nullable), category_id -> category (restrict)}
 *   relations: category (belongsTo), reviews (hasMany), tags (belongsToMany through product_tag {position, note})
 * - review {product_id -> product (cascade), user_id -> user (set null), rating 1..5}; relations product, user
 * - tag {name (unique)}; relation products (belongsToMany)
 * - user {name, email (unique), roles (string array), api_token (write-only)}
 */
export type ModelName = 'category' | 'product' | 'review' | 'tag' | 'user';

/** Optional parts of the Driver interface a case may need. */
export type Capability = 'pivots' | 'streams';

/** One product_tag pivot row as the database holds it, ids in the driver's output form. */
export interface PivotLink {
  parentId: Id;
  relatedId: Id;
  position: number | null;
  note: string | null;
}

export interface DriverHarness {
  /** `sql` / `mongo`: for messages only; cases never branch on it. */
  readonly name: string;
  readonly driver: Driver;
  readonly catalog: Catalog;
  /** A well-formed id (parseId accepts it) that no record has. */
  readonly missingId: Id;
  /** Empties every table / collection (indexes and constraints stay). Run before each case. */
  reset(): Promise<void>;
  /** Number of records of a model, counted natively. */
  count(model: ModelName): Promise<number>;
  /** Every product_tag pivot row, read natively. */
  pivotLinks(): Promise<PivotLink[]>;
}

/** Builds the harness once per driver file; `close` drops what it made. */
export type HarnessFactory = () => Promise<DriverHarness & { close(): Promise<void> }>;
